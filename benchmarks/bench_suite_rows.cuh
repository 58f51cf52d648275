// What the three files of bench_suite share (bench_suite.cu: the counts, kernel sums, CPU rows
// and main; bench_suite_histograms.cu: the SDH rows; bench_suite_rdf.cu: the RDF rows): the
// problems, the timed bodies of each statistic, the configuration the flags set and the
// registration helper. Three files so that no one file compiles every composition's kernels (in
// one, 318 s of Release sm_90a compile on one core).
#pragma once

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

namespace suite {
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

inline void bench_count_host(benchmark::State& state)
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
inline void bench_cpu_count(benchmark::State& state)
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

inline void bench_cpu_kernel_sum(benchmark::State& state)
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

inline config cfg;  // one for both files: main sets it from the flags

enum class kind { gpu, baseline, cpu, e2e };

/// Sizes a benchmark of this kind runs at (may be empty: baselines above --naive_max_n).
inline std::vector<long long> sizes_of(kind k)
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

/// The SDH rows (bench_suite_histograms.cu) and the RDF rows (bench_suite_rdf.cu), in this order
/// between the counts' and the kernel sums'.
void register_gpu_sdh();
void register_gpu_rdf();

}  // namespace suite
