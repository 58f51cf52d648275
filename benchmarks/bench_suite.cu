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
#include <twobody/twobody.cuh>

#include "bench_common.cuh"

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {
using namespace bench;

// ---------------------------------------------------------------------------
// Problems
// ---------------------------------------------------------------------------

struct rdf_problem {
  twobody::periodic_squared_euclidean<float, 3> f = twobody::make_periodic_squared_euclidean(box_side, box_side, box_side);
  twobody::distance_bins<float> bins{rdf_range, 256};
};

// 3 subtractions and 3 multiply-adds (against -r^2) per 3-D pair.
constexpr double count_flops_3d = 9.0;

template <class T, class Input>
void bench_count(benchmark::State& state)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const data   = rotated<T>(n);
    auto const pred   = twobody::within_radius(static_cast<T>(radius));
    device_scratch result(sizeof(unsigned long long));
    std::size_t temp_bytes = 0;
    twobody::count_pairs<Input>(nullptr, temp_bytes, twobody::self_pairs(data[0]), pred, result.as<unsigned long long>());
    device_scratch temp(temp_bytes);
    gpu_timer timer;
    timer.run(state, [&](cudaStream_t s, long long it) {
      twobody::count_pairs<Input>(temp.ptr, temp_bytes, twobody::self_pairs(pick(data, it)), pred,
                                  result.as<unsigned long long>(), s);
    });
    set_counters(state, self_pair_count(n), count_flops_3d, sizeof(T) == 4 ? 128 : 64);
  });
}

template <class T>
void bench_count_one_call(benchmark::State& state)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const data   = rotated<T>(n);
    auto const pred   = twobody::within_radius(static_cast<T>(radius));
    device_scratch result(sizeof(unsigned long long));
    gpu_timer timer;
    timer.run(state, [&](cudaStream_t s, long long it) {
      twobody::count_pairs(twobody::self_pairs(pick(data, it)), pred, result.as<unsigned long long>(), s);
    });
    set_counters(state, self_pair_count(n), count_flops_3d, sizeof(T) == 4 ? 128 : 64);
  });
}

void bench_count_host(benchmark::State& state)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const& h     = host_data<float>(n);
    auto const pred   = twobody::within_radius(radius);
    unsigned long long sink = 0;
    gpu_timer timer;
    timer.run_wall(state, [&](cudaStream_t s, long long it) {
      sink += twobody::count_pairs(twobody::self_pairs(pick(std::vector{h.view()}, it)), pred, s);
    });
    benchmark::DoNotOptimize(sink);
    set_counters(state, self_pair_count(n));
  });
}

/// A histogram benchmark: F and Bins give the problem, Input and Output the composition;
/// without an output policy it times the one-call form (its default composition).
template <class Input, class F, class Bins, class... Output>
void bench_histogram(benchmark::State& state, F f, Bins bins, Output... policy)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const data   = rotated<float>(n);
    device_scratch counts(sizeof(unsigned long long) * (bins.size() + 1));
    gpu_timer timer;
    timer.run(state, [&](cudaStream_t s, long long it) {
      auto const pairs = twobody::self_pairs(pick(data, it));
      if constexpr (sizeof...(Output) == 0) {
        twobody::histogram(pairs, f, bins, counts.as<unsigned long long>(), s);
      } else {
        twobody::histogram<Input>(pairs, f, bins, counts.as<unsigned long long>(), policy..., s);
      }
    });
    set_counters(state, self_pair_count(n));
  });
}

template <class F, class Bins>
void bench_histogram_host(benchmark::State& state, F f, Bins bins)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const& h     = host_data<float>(n);
    unsigned long long sink = 0;
    gpu_timer timer;
    timer.run_wall(state, [&](cudaStream_t s, long long it) {
      sink += twobody::histogram(twobody::self_pairs(pick(std::vector{h.view()}, it)), f, bins, s).counts[1];
    });
    benchmark::DoNotOptimize(sink);
    set_counters(state, self_pair_count(n));
  });
}

template <class Input>
void bench_kernel_sum(benchmark::State& state)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const data   = rotated<float>(n);
    auto const other  = device_data<float>(n, 100);  // the B side (sources)
    auto const k      = twobody::gaussian_kernel(kernel_h);
    device_scratch out(sizeof(float) * n);
    gpu_timer timer;
    timer.run(state, [&](cudaStream_t s, long long it) {
      twobody::sum_per_point<Input>(twobody::cross_pairs(pick(data, it), other), k, out.as<float>(), s);  // B: all n sources
    });
    set_counters(state, double(n) * double(n));
  });
}

// CPU backend (OpenMP, all cores).
void bench_cpu_count(benchmark::State& state)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const& h     = host_data<float>(n);
    for (auto _ : state) { benchmark::DoNotOptimize(twobody::cpu::count_pairs(twobody::self_pairs(h.view()), twobody::within_radius(radius))); }
    set_counters(state, self_pair_count(n));
  });
}

template <class F, class Bins>
void bench_cpu_histogram(benchmark::State& state, F f, Bins bins)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const& h     = host_data<float>(n);
    std::vector<unsigned long long> counts(bins.size() + 1);
    for (auto _ : state) {
      twobody::cpu::histogram(twobody::self_pairs(h.view()), f, bins, counts.data());
      benchmark::DoNotOptimize(counts.data());
      benchmark::ClobberMemory();
    }
    set_counters(state, self_pair_count(n));
  });
}

void bench_cpu_kernel_sum(benchmark::State& state)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const& a     = host_data<float>(n);
    auto const& b     = host_data<float>(n, 100);
    std::vector<float> out(n);
    for (auto _ : state) {
      twobody::cpu::sum_per_point(twobody::cross_pairs(a.view(), b.view()), twobody::gaussian_kernel(kernel_h), out.data());
      benchmark::DoNotOptimize(out.data());
      benchmark::ClobberMemory();
    }
    set_counters(state, double(n) * double(n));
  });
}

// ---------------------------------------------------------------------------
// Registration
// ---------------------------------------------------------------------------
struct config {
  std::vector<long long> sizes{1ll << 14, 1ll << 16, 1ll << 18, 1ll << 20};
  long long naive_max_n = 1ll << 16;
  long long cpu_n       = 1ll << 15;
  bool e2e_large        = true;
};

config cfg;

enum class kind { gpu, baseline, cpu, e2e };

/// Sizes a benchmark of this kind runs at (may be empty: baselines above --naive_max_n).
std::vector<long long> sizes_of(kind k)
{
  switch (k) {
    case kind::cpu: return {cfg.cpu_n};
    case kind::baseline: {
      std::vector<long long> s;
      for (long long n : cfg.sizes) {
        if (n <= cfg.naive_max_n) { s.push_back(n); }
      }
      return s;
    }
    case kind::e2e: {
      std::vector<long long> s = cfg.sizes;
      if (cfg.e2e_large && std::find(s.begin(), s.end(), 1ll << 22) == s.end()) { s.push_back(1ll << 22); }
      return s;
    }
    default: return cfg.sizes;
  }
}

template <class Fn>
void add(std::string const& name, kind k, Fn&& fn)
{
  // A benchmark registered without arguments would run with none and read state.range(0).
  std::vector<long long> const sizes = sizes_of(k);
  if (sizes.empty()) { return; }
  auto* b = benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn));
  b->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true);
  for (long long n : sizes) { b->Arg(n); }
  if (k == kind::cpu) {
    b->UseRealTime();
  } else {
    b->UseManualTime()->MinTime(0.2);
  }
}

using st4  = twobody::input::shared_tile<256, 4>;
using st8  = twobody::input::shared_tile<256, 8>;
using st8b4 = twobody::input::shared_tile<256, 8, 4>;  // registers capped so that 4 blocks fit per SM
using ro4  = twobody::input::readonly_tile<256, 4>;
using sh4  = twobody::input::shuffle_tile<256, 4>;
using nv   = twobody::input::naive<256>;
using wp   = twobody::output::warp_privatized;
using bp   = twobody::output::block_privatized;
using ga   = twobody::output::global_atomics;

void register_gpu()
{
  twobody::squared_euclidean const sq{};
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
  // RDF, periodic box
  rdf_problem const rdf;
  add("rdf256/shared_tile8+warp_privatized32", kind::gpu, [=](benchmark::State& s) { bench_histogram<st8>(s, rdf.f, rdf.bins, wp{32}); });
  add("rdf256/shared_tile8_minblocks4+warp_privatized32", kind::gpu, [=](benchmark::State& s) { bench_histogram<st8b4>(s, rdf.f, rdf.bins, wp{32}); });
  add("rdf256/shared_tile+warp_privatized32", kind::gpu, [=](benchmark::State& s) { bench_histogram<st4>(s, rdf.f, rdf.bins, wp{32}); });
  add("rdf256/shuffle_tile+warp_privatized32", kind::gpu, [=](benchmark::State& s) { bench_histogram<sh4>(s, rdf.f, rdf.bins, wp{32}); });
  add("rdf256/one_call", kind::gpu, [=](benchmark::State& s) { bench_histogram<void>(s, rdf.f, rdf.bins); });
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

}  // namespace

int main(int argc, char** argv)
{
  if (!parse_own_flags(argc, argv)) { return 1; }
  if (record_context()) { register_gpu(); }
  register_cpu();
  return run_registered(argc, argv);
}
