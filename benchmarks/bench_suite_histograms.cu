// bench_suite's SDH rows (bench_suite.cu has the counts, kernel sums and main,
// bench_suite_rdf.cu the RDF rows, bench_suite_rows.cuh what they share): the SDH at 256, 16 and
// 4096 bins, each input x output composition, the baselines and the one-call forms.
#include "bench_suite_rows.cuh"

namespace suite {

void register_gpu_sdh()
{
  twobody::squared_euclidean const sq{};
  // SDH 256
  auto const b256 = sdh_bins(256);
  add("sdh256/shared_tile8+warp_privatized32", kind::gpu, [=](benchmark::State& s) { bench_histogram<st8>(s, sq, b256, wp{32}); });
  add("sdh256/shared_tile8_minblocks4+warp_privatized32", kind::gpu, [=](benchmark::State& s) { bench_histogram<st8b4>(s, sq, b256, wp{32}); });
  add("sdh256/shared_tile8+warp_privatized8", kind::gpu, [=](benchmark::State& s) { bench_histogram<st8>(s, sq, b256, wp{8}); });
  add("sdh256/shared_tile8+block_privatized", kind::gpu, [=](benchmark::State& s) { bench_histogram<st8>(s, sq, b256, bp{}); });
  add("sdh256/shared_tile+warp_privatized32", kind::gpu, [=](benchmark::State& s) { bench_histogram<st4>(s, sq, b256, wp{32}); });
  add("sdh256/readonly_tile+warp_privatized32", kind::gpu, [=](benchmark::State& s) { bench_histogram<ro4>(s, sq, b256, wp{32}); });
  add("sdh256/shuffle_tile+warp_privatized32", kind::gpu, [=](benchmark::State& s) { bench_histogram<sh4>(s, sq, b256, wp{32}); });
  add("sdh256/shared_tile8+warp_privatized32+ieee_sqrt", kind::gpu, [](benchmark::State& s) {
    bench_histogram<st8>(s, twobody::euclidean{}, twobody::uniform_bins<float>(0.f, sdh_range, 256), wp{32});
  });
  add("sdh256/shared_tile8+global_atomics", kind::baseline, [=](benchmark::State& s) { bench_histogram<st8>(s, sq, b256, ga{}); });
  add("sdh256/naive+global_atomics", kind::baseline, [=](benchmark::State& s) { bench_histogram<nv>(s, sq, b256, ga{}); });
  add("sdh256/one_call", kind::e2e, [=](benchmark::State& s) { bench_histogram<void>(s, sq, b256); });
  add("sdh256/one_call_host", kind::e2e, [=](benchmark::State& s) { bench_histogram_host(s, sq, b256); });
  // SDH 16 and 4096
  auto const b16 = sdh_bins(16);
  add("sdh16/shared_tile8+warp_privatized32", kind::gpu, [=](benchmark::State& s) { bench_histogram<st8>(s, sq, b16, wp{32}); });
  add("sdh16/shuffle_tile+warp_privatized32", kind::gpu, [=](benchmark::State& s) { bench_histogram<sh4>(s, sq, b16, wp{32}); });
  add("sdh16/one_call", kind::gpu, [=](benchmark::State& s) { bench_histogram<void>(s, sq, b16); });
  auto const b4096 = sdh_bins(4096);
  for (int h : {1, 2, 4, 8}) {
    add("sdh4096/shared_tile8+warp_privatized" + std::to_string(h), kind::gpu,
        [=](benchmark::State& s) { bench_histogram<st8>(s, sq, b4096, wp{h}); });
  }
  add("sdh4096/shuffle_tile+warp_privatized4", kind::gpu, [=](benchmark::State& s) { bench_histogram<sh4>(s, sq, b4096, wp{4}); });
  add("sdh4096/one_call", kind::gpu, [=](benchmark::State& s) { bench_histogram<void>(s, sq, b4096); });
}

}  // namespace suite
