// SDH over points in host memory, spread over every GPU of the machine (the host layer,
// twobody/host/out_of_core.cuh): the set is split into blocks, blocks are copied from pinned
// buffers while the previous block pair computes, and each GPU takes block pairs from a shared
// queue. A progress line on stderr reports block pairs and pairs/s. A device-memory budget
// below the set's size makes it run out of core (as for sets larger than the GPU).
//
//   example_sdh_host [N] [budget MiB] [--help]   (default N = 2^22 on the GPU, 2^14 on the CPU
//                                                 backend; budget: a quarter of free memory)
#include <twobody/twobody.cuh>
#include <twobody/host/out_of_core.cuh>

#include "example_common.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

int run(example::command_line const& cl)
{
  long long const n = cl.n;
  float const box   = 100.f;
  example::check_fits(n, 3 * sizeof(float));  // host memory only: the GPUs get blocks
  example::cloud const pts = example::uniform_box(n, box, 7);  // host memory, fixed seed
  auto const p             = twobody::make_points(n, pts.x.data(), pts.y.data(), pts.z.data());
  auto const pairs         = twobody::self_pairs(p);
  twobody::distance_bins<float> const bins(box * std::sqrt(3.f), 256);
  twobody::squared_euclidean const dist{};

  twobody::histogram_result<unsigned long long> h;
  auto const t0 = std::chrono::steady_clock::now();
  if (cl.gpu) {
    twobody::host::scale_options opt;
    opt.devices = twobody::host::all_devices();
    if (cl.budget_mib > 0) { opt.device_memory_budget = std::size_t(cl.budget_mib) << 20; }
    opt.progress = example::progress_line("SDH");
    twobody::host::scale_stats st;
    h = twobody::host::histogram(pairs, dist, bins, opt, &st);
    std::printf("%zu GPU(s), blocks of %lld points, %zu block pairs, %zu block copies\n", opt.devices.size(),
                static_cast<long long>(st.block_points), st.block_pairs, st.blocks_copied);
  } else {
    example::cpu_self_pairs_in_blocks(
      p, [&](auto const& piece) { return twobody::histogram(twobody::exec::cpu, piece, dist, bins); },
      [&](twobody::histogram_result<unsigned long long> const& part, long long, long long) {
        example::add_histogram(h, part);
      });
  }
  double const s = example::seconds_since(t0);
  std::printf("SDH, 256 bins, %lld points in host memory, %s: %llu pairs (%.3f s, %.3g pairs/s)\n", n,
              cl.gpu ? "GPU" : "CPU", h.pairs, s, double(h.pairs) / s);

  return example::check_counts_add_up(h, pairs.count());
}

}  // namespace

int main(int argc, char** argv)
{
  example::command_spec spec{"SDH of N random points kept in host memory, in blocks on every GPU", 1ll << 22, 1ll << 14};
  spec.takes_budget = true;
  return example::run_example(argc, argv, spec, run);
}
