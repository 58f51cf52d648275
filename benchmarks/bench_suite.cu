// bench_suite: the twobody benchmark suite (Google Benchmark). Float32 3-D points uniform in
// a 100^3 box (fixed seed), self mode unless said. Problems:
//   2pcf         pair count within r = 5 (output: registers)
//   2pcf_double  the same in double precision
//   sdh16/256/4096  distance histograms over [0, 100 sqrt(3)) (squared_euclidean + distance_bins;
//                the variant "ieee_sqrt" uses euclidean + uniform_bins instead)
//   rdf256       periodic box (minimum image), 256 bins over [0, 50)
//   kernel_sum   Gaussian kernel sum per point (h = 2), cross mode A x B, |A| = |B| = N
// Variants: input policy + output policy compositions, the naive baseline, the CPU
// backend (OpenMP, all cores), the one-call API on device data ("one_call") and end to end
// with host arrays in and the result back on the host ("one_call_host").
//
// Benchmark names are <problem>/<variant>/<N>. Counters: pairs_per_s (pairs visited per
// second; N^2 for kernel_sum, N(N-1)/2 otherwise) and, for the pair counts,
// fma_peak_fraction (pair arithmetic in flops, an fma counted as 2, over the FP32 or FP64
// peak of the GPU at its boost clock).
//
// GPU timing: CUDA events around each call on a private stream (kernel-only) or the wall
// clock around the whole synchronous call (one_call_host); one warm-up call per benchmark
// and size; 5 repetitions reported as mean/median/stddev/cv. Inputs of 4 MB or more are
// rotated over several copies so that consecutive calls start from data not in L2.
//
// Extra flags (before the Google Benchmark ones):
//   --sizes=16384,65536,262144,1048576   sizes of the GPU benchmarks (N = 2^22 is added for the
//                                         end-to-end comparison unless --no_e2e_large)
//   --naive_max_n=65536   largest N of the global-atomic baselines (slow)
//   --cpu_n=32768         N of the CPU backend runs
//
//   scripts/run_benchmarks.sh bench_suite   (on a GPU machine: benchmarks/results/<gpu>/bench_suite.json)
//
// The SDH rows are in bench_suite_histograms.cu, the RDF rows in bench_suite_rdf.cu, what the files
// share in bench_suite_rows.cuh.
#include "bench_suite_rows.cuh"

namespace suite {

void register_gpu()
{
  // 2PCF
  add("2pcf/shared_tile+registers", kind::gpu, bench_count<float, st4>);
  add("2pcf/shared_tile8+registers", kind::gpu, bench_count<float, st8>);
  add("2pcf/shared_tile8_minblocks4+registers", kind::gpu, bench_count<float, st8b4>);
  add("2pcf/readonly_tile+registers", kind::gpu, bench_count<float, ro4>);
  add("2pcf/shuffle_tile+registers", kind::gpu, bench_count<float, sh4>);
  add("2pcf/naive+registers", kind::baseline, bench_count<float, nv>);
  add("2pcf/one_call", kind::e2e, bench_count_one_call<float>);
  add("2pcf/one_call_host", kind::e2e, bench_count_host);
  add("2pcf_double/shared_tile+registers", kind::gpu, bench_count<double, st4>);
  add("2pcf_double/shared_tile2+registers", kind::gpu, bench_count<double, twobody::input::shared_tile<256, 2>>);
  add("2pcf_double/one_call", kind::gpu, bench_count_one_call<double>);
  register_gpu_sdh();
  register_gpu_rdf();
  // Gaussian kernel sum per point (cross mode)
  add("kernel_sum/shared_tile+per_point_sum", kind::gpu, bench_kernel_sum<st4>);
  add("kernel_sum/shared_tile8+per_point_sum", kind::gpu, bench_kernel_sum<st8>);
  add("kernel_sum/shared_tile8_minblocks4+per_point_sum", kind::gpu, bench_kernel_sum<st8b4>);
  add("kernel_sum/readonly_tile+per_point_sum", kind::gpu, bench_kernel_sum<ro4>);
  add("kernel_sum/shuffle_tile+per_point_sum", kind::gpu, bench_kernel_sum<sh4>);
  add("kernel_sum/naive+per_point_sum", kind::baseline, bench_kernel_sum<nv>);
}

void register_cpu()
{
  twobody::squared_euclidean const sq{};
  add("2pcf/cpu_openmp", kind::cpu, bench_cpu_count);
  add("sdh256/cpu_openmp", kind::cpu, [=](benchmark::State& s) { bench_cpu_histogram(s, sq, sdh_bins(256)); });
  add("rdf256/cpu_openmp", kind::cpu, [](benchmark::State& s) { rdf_problem p; bench_cpu_histogram(s, p.f, p.bins); });
  add("kernel_sum/cpu_openmp", kind::cpu, bench_cpu_kernel_sum);
}

/// Parses and removes our own flags from argv; returns false on a bad value.
bool parse_own_flags(int& argc, char** argv)
{
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (char const* v = value_of(argv[i], "--sizes")) {
      if (!parse_sizes(v, cfg.sizes)) { return false; }
    } else if (char const* v = value_of(argv[i], "--naive_max_n")) {
      cfg.naive_max_n = std::atoll(v);
    } else if (char const* v = value_of(argv[i], "--cpu_n")) {
      cfg.cpu_n = std::atoll(v);
      if (cfg.cpu_n < 2) { std::fprintf(stderr, "--cpu_n must be >= 2\n"); return false; }
    } else if (std::strcmp(argv[i], "--no_e2e_large") == 0) {
      cfg.e2e_large = false;
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  return true;
}

}  // namespace suite

int main(int argc, char** argv)
{
  if (!suite::parse_own_flags(argc, argv)) { return 1; }
  if (bench::record_context()) { suite::register_gpu(); }
  suite::register_cpu();
  return bench::run_registered(argc, argv);
}
