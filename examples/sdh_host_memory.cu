// SDH over points in host memory, spread over every GPU of the machine (the host layer,
// twobody/host/out_of_core.cuh): the set is split into blocks, blocks are copied from pinned
// buffers while the previous block pair computes, and each GPU takes block pairs from a shared
// queue. A progress line on stderr reports block pairs and pairs/s. A device-memory budget
// below the set's size makes it run out of core (as for sets larger than the GPU).
//
//   example_sdh_host [N] [budget MiB]   (default N = 2^22 on the GPU, 2^14 on the CPU fallback;
//                                        budget: a quarter of free memory)
#include <twobody/twobody.cuh>
#include <twobody/host/out_of_core.cuh>

#include "example_common.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv)
{
  try {
    bool const gpu    = example::announce_backend();
    long long const n = example::point_count(argc, argv, 1ll << 22, 1ll << 14, gpu);
    if (n == 0) { return 1; }
    float const box = 100.f;
    example::cloud const pts = example::uniform_box(n, box, 7);  // host memory, fixed seed
    auto const pairs = twobody::self_pairs(twobody::make_points(n, pts.x.data(), pts.y.data(), pts.z.data()));
    twobody::distance_bins<float> const bins(box * std::sqrt(3.f), 256);

    twobody::histogram_result<unsigned long long> h;
    auto const t0 = std::chrono::steady_clock::now();
    if (gpu) {
      twobody::host::scale_options opt;
      opt.devices = twobody::host::all_devices();
      if (argc > 2) { opt.device_memory_budget = std::size_t(std::atoll(argv[2])) << 20; }
      opt.progress = example::progress_line("SDH");
      twobody::host::scale_stats st;
      h = twobody::host::histogram(pairs, twobody::squared_euclidean{}, bins, opt, &st);
      std::printf("%zu GPU(s), blocks of %lld points, %zu block pairs, %zu block copies\n", opt.devices.size(),
                  static_cast<long long>(st.block_points), st.block_pairs, st.blocks_copied);
    } else {
      std::vector<unsigned long long> all(bins.size() + 1);
      twobody::cpu::histogram(pairs, twobody::squared_euclidean{}, bins, all.data());
      h = twobody::detail::to_histogram_result(std::move(all), pairs.count());
    }
    double const s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("SDH, 256 bins, %lld points in host memory, %s: %llu pairs (%.3f s, %.3g pairs/s)\n", n,
                gpu ? "GPU" : "CPU", h.pairs, s, double(h.pairs) / s);

    unsigned long long total = h.outside;
    for (auto c : h.counts) { total += c; }
    if (total != h.pairs) {
      std::printf("CHECK FAILED: sum(counts) + outside = %llu != pairs = %llu\n", total, h.pairs);
      return 1;
    }
    std::printf("check: sum(counts) + outside == pairs (%llu)\n", h.pairs);
    return 0;
  } catch (twobody::error const& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
