// Item-similarity self-join: every unordered pair of N uniform points in a 100^3 box closer
// than eps, with eps chosen so that about 4N pairs qualify. The result size is unknown until
// the join has run; twobody's direct output buffer collects it in one pass. Prints the count,
// the rate, and the first pairs in (i, j) order, and checks them against the CPU backend
// on a prefix of the points.
//
//   example_similarity_join [N]   (default N = 2^20 on the GPU, 2^13 on the CPU fallback)
#include <twobody/twobody.cuh>

#include "example_common.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char** argv)
{
  try {
    bool const gpu    = example::announce_backend();
    long long const n = example::point_count(argc, argv, 1ll << 20, 1ll << 13, gpu);
    if (n == 0) { return 1; }
    float const box = 100.f;
    // N^2 / 2 * (4/3 pi eps^3) / box^3 = 4N pairs (the box edges make it a little fewer).
    float const eps = box * static_cast<float>(std::cbrt(6.0 / (3.14159265358979323846 * double(n))));

    example::cloud const pts = example::uniform_box(n, box, 7);
    auto const pairs = twobody::self_pairs(twobody::make_points(n, pts.x.data(), pts.y.data(), pts.z.data()));

    std::vector<twobody::index_pair> near;
    double seconds = 0;
    if (gpu) {
      // Host input, result in host memory (it streams there in rounds if it outgrows the pool).
      twobody::join_options opt;
      opt.location = twobody::result_location::host;
      (void)twobody::pairs_within(twobody::self_pairs(twobody::make_points(1024, pts.x.data(), pts.y.data(), pts.z.data())),
                                  eps, opt);  // warm-up: context and module loading, not timed
      auto const t0 = std::chrono::steady_clock::now();
      auto result   = twobody::pairs_within(pairs, eps, opt);
      seconds       = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("rounds %d, estimated %llu results before the kernel ran\n", result.stats().rounds,
                  static_cast<unsigned long long>(result.stats().estimated_results));
      twobody::sort_by_index(result);
      near = result.to_host();
    } else {
      auto const t0 = std::chrono::steady_clock::now();
      near          = twobody::cpu::join(pairs, twobody::within_eps_fn<float>{eps * eps});
      seconds       = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    std::printf("%lld points, eps %.4f, %s: %zu pairs within eps (%.1f per point), %.3f s, %.3g pairs/s evaluated, "
                "%.3g results/s\n",
                n, eps, gpu ? "GPU" : "CPU", near.size(), 2.0 * double(near.size()) / double(n), seconds,
                double(pairs.count()) / seconds, double(near.size()) / seconds);
    for (std::size_t k = 0; k < near.size() && k < 3; ++k) {
      std::printf("  (%u, %u)\n", near[k].i, near[k].j);
    }

    // Check: the pairs among the first m points are exactly the CPU backend's.
    long long const m = n < 4096 ? n : 4096;
    auto const ref = twobody::cpu::join(twobody::self_pairs(twobody::make_points(m, pts.x.data(), pts.y.data(), pts.z.data())),
                                        twobody::within_eps_fn<float>{eps * eps});
    std::vector<twobody::index_pair> prefix;
    for (auto const& p : near) {
      if (p.j < m) { prefix.push_back(p); }
    }
    bool same = prefix.size() == ref.size();
    for (std::size_t k = 0; same && k < ref.size(); ++k) { same = prefix[k].i == ref[k].i && prefix[k].j == ref[k].j; }
    std::printf("pairs among the first %lld points match the CPU backend: %s\n", m, same ? "yes" : "NO");
    return same ? 0 : 2;
  } catch (twobody::error const& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
