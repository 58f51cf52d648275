// Item-similarity self-join: every unordered pair of N uniform points in a 100^3 box closer
// than eps, with eps chosen so that about 4N pairs qualify. The result size is unknown until
// the join has run; twobody's direct output buffer collects it in one pass. Prints the count,
// the rate, and the first pairs in (i, j) order, and checks them against the CPU backend
// on a prefix of the points.
//
//   example_similarity_join [N] [--help]   (default N = 2^20 on the GPU, 2^13 on the CPU backend)
#include <twobody/twobody.cuh>

#include "example_common.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

int run(example::command_line const& cl)
{
  long long const n = cl.n;
  float const box   = 100.f;
  // N^2 / 2 * (4/3 pi eps^3) / box^3 = 4N pairs (the box edges make it a little fewer).
  float const eps = box * static_cast<float>(std::cbrt(6.0 / (3.14159265358979323846 * double(n))));
  // Points, and about 4 records of 8 bytes per point (twice over while they are gathered).
  example::check_fits(n, 3 * sizeof(float) + 64, cl.gpu ? 3 * sizeof(float) + 64 : 0);

  example::cloud const pts = example::uniform_box(n, box, 7);
  auto const p             = twobody::make_points(n, pts.x.data(), pts.y.data(), pts.z.data());
  auto const pairs         = twobody::self_pairs(p);

  std::vector<twobody::index_pair> near;
  auto t0 = std::chrono::steady_clock::now();
  if (cl.gpu) {
    // Host input, result in host memory (it streams there in rounds if it outgrows the pool).
    twobody::join_options opt;
    opt.location = twobody::result_location::host;
    (void)twobody::pairs_within(twobody::exec::gpu, twobody::self_pairs(example::slice(p, 0, n < 1024 ? n : 1024)), eps,
                                opt);  // warm-up: context and module loading, not timed
    t0          = std::chrono::steady_clock::now();
    auto result = twobody::pairs_within(twobody::exec::gpu, pairs, eps, opt);
    std::printf("rounds %d, estimated %llu results before the kernel ran\n", result.stats().rounds,
                static_cast<unsigned long long>(result.stats().estimated_results));
    twobody::sort_by_index(result);
    near = result.to_host();
  } else {
    // Blocks of rows; the records of a piece are shifted back to rows of the whole set.
    example::cpu_self_pairs_in_blocks(
      p, [&](auto const& piece) { return twobody::pairs_within(twobody::exec::cpu, piece, eps); },
      [&](twobody::join_result<twobody::index_pair> const& part, long long a0, long long b0) {
        for (auto r : part.to_host()) {
          near.push_back({r.i + static_cast<std::uint32_t>(a0), r.j + static_cast<std::uint32_t>(b0)});
        }
      });
    twobody::sort_by_index(near);
  }
  double const seconds = example::seconds_since(t0);
  std::printf("%lld points, eps %.4f, %s: %zu pairs within eps (%.1f per point), %.3f s, %.3g pairs/s evaluated, "
              "%.3g results/s\n",
              n, eps, cl.gpu ? "GPU" : "CPU", near.size(), 2.0 * double(near.size()) / double(n), seconds,
              double(pairs.count()) / seconds, double(near.size()) / seconds);
  for (std::size_t k = 0; k < near.size() && k < 3; ++k) { std::printf("  (%u, %u)\n", near[k].i, near[k].j); }

  // Check: the pairs among the first m points are exactly the CPU backend's, in one call.
  long long const m = n < 4096 ? n : 4096;
  auto ref          = twobody::pairs_within(twobody::exec::cpu, twobody::self_pairs(example::slice(p, 0, m)), eps);
  std::vector<twobody::index_pair> prefix;
  for (auto const& r : near) {
    if (r.j < m) { prefix.push_back(r); }
  }
  auto const want = ref.to_host();
  bool same       = prefix.size() == want.size();
  for (std::size_t k = 0; same && k < want.size(); ++k) { same = prefix[k].i == want[k].i && prefix[k].j == want[k].j; }
  std::printf("pairs among the first %lld points match the CPU backend: %s\n", m, same ? "yes" : "NO");
  return same ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv)
{
  return example::run_example(argc, argv,
                              {"every pair of N random points closer than eps (about 4 per point)", 1ll << 20, 1ll << 13}, run);
}
