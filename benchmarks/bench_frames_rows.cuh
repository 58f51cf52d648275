// What the two files of bench_frames share (bench_frames.cu: the floor, phase, frames and large
// rows and main; bench_frames_shapes.cu: the one-call and frame tile shape rows): the RDF case,
// the wall-clock timers, the per-point sums, the frames and the registration helpers. Two files so that neither compiles
// every shape's kernels (in one, 372 s of Release sm_90a compile on one core).
#pragma once

#include "bench_common.cuh"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <vector>

namespace frames_bench {

using bench::box_side;
constexpr float rdf_cut = 12.f;  // RDF out to 12 in the 100^3 box: what an MD user asks for

struct rdf_case {
  twobody::periodic_squared_euclidean<float, 3> f = twobody::make_periodic_squared_euclidean(box_side, box_side, box_side);
  twobody::distance_bins<float> bins{rdf_cut, 128};
};

inline double seconds_since(std::chrono::steady_clock::time_point t0)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Wall clock of `body` per iteration (manual time), after one warm-up call.
template <class Body>
void wall(benchmark::State& state, Body&& body)
{
  body();
  for (auto _ : state) {
    auto const t0 = std::chrono::steady_clock::now();
    body();
    state.SetIterationTime(seconds_since(t0));
  }
}

/// Asynchronous calls: each iteration issues `batch` calls and then synchronizes once; the
/// iteration's time is divided by the batch (calls per second, queue included).
constexpr int async_batch = 64;
/// Google Benchmark reaches min_time in manual time, which these rows divide by the batch: a
/// batch's share of 0.05 s keeps a row's wall clock near 0.05 s per repetition (0.05 s made
/// each asynchronous row run 64 times that, about 20 s).
constexpr double async_min_time = 0.05 / async_batch;
/// The counter enqueue_us is the host's share: the time to issue a batch (before its
/// synchronization) per call. Near the call's time, the host is the limit; far below it, the GPU.
template <class Body>
void wall_async(benchmark::State& state, cudaStream_t stream, Body&& body)
{
  body();
  EXAMPLE_CUDA_CHECK(cudaStreamSynchronize(stream));
  double enqueue = 0.0;
  long long calls = 0;
  for (auto _ : state) {
    auto const t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < async_batch; ++k) { body(); }
    enqueue += seconds_since(t0);
    calls += async_batch;
    EXAMPLE_CUDA_CHECK(cudaStreamSynchronize(stream));
    state.SetIterationTime(seconds_since(t0) / async_batch);
  }
  if (calls > 0) { state.counters["enqueue_us"] = enqueue / static_cast<double>(calls) * 1e6; }
}

struct stream_holder {
  cudaStream_t s{};
  stream_holder() { EXAMPLE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~stream_holder() { (void)cudaStreamDestroy(s); }
};

/// Gaussian sums that do not declare themselves symmetric: per-point sums then visit both
/// orders of every pair, rows only (no column sums).
struct one_sided_gaussian {
  twobody::gaussian_kernel_fn<float> k;
  template <int D>
  __host__ __device__ float operator()(twobody::point<float, D> const& a, twobody::point<float, D> const& b) const
  {
    return k(a, b);
  }
};

/// Which per-point sums: Gaussian sums over ordered pairs (symmetric: column sums), of a cross set
/// (each point of A over all of B, n points each, B another draw), or over ordered pairs through a
/// functor that is not declared symmetric.
enum class per_point_kind { symmetric, cross, one_sided };

/// Asynchronous per-point sums of `Kind`: `sum(pairs, functor, d_out, stream)` is the call
/// (planned, or with a named input policy).
template <per_point_kind Kind = per_point_kind::symmetric, class Sum>
void per_point_async(benchmark::State& state, Sum&& sum)
{
  long long const n = state.range(0);
  auto const a      = bench::device_data<float>(n, 0);
  stream_holder st;
  bench::device_scratch d(sizeof(float) * n);
  bench::guarded(state, [&] {
    auto const k = twobody::gaussian_kernel(bench::radius);
    if constexpr (Kind == per_point_kind::cross) {
      auto const pairs = twobody::cross_pairs(a, bench::device_data<float>(n, 1));
      wall_async(state, st.s, [&] { sum(pairs, k, d.as<float>(), st.s); });
      bench::set_counters(state, static_cast<double>(n) * static_cast<double>(n));
    } else {
      // (The pair set is made outside the timed loop, as for the cross set.)
      auto const pairs = twobody::ordered_pairs(a);
      if constexpr (Kind == per_point_kind::one_sided) {
        wall_async(state, st.s, [&] { sum(pairs, one_sided_gaussian{k}, d.as<float>(), st.s); });
      } else {
        wall_async(state, st.s, [&] { sum(pairs, k, d.as<float>(), st.s); });
      }
      bench::set_counters(state, 2.0 * bench::self_pair_count(n));
    }
  });
}

/// A row of one argument (n), five repetitions, manual time in microseconds.
inline void add(char const* name, void (*fn)(benchmark::State&), std::vector<long long> const& ns, double min_time = 0.05)
{
  auto* b = benchmark::RegisterBenchmark(name, fn)->UseManualTime()->Unit(benchmark::kMicrosecond)->Repetitions(5)
              ->ReportAggregatesOnly(true)->MinTime(min_time);
  for (long long n : ns) { b->Arg(n); }
}

/// An asynchronous row of two arguments: n, then `second` (private copies unless named).
inline void add2(char const* name, void (*fn)(benchmark::State&), std::vector<long long> const& ns, std::vector<long long> const& values,
                 char const* second = "copies")
{
  auto* b = benchmark::RegisterBenchmark(name, fn)->UseManualTime()->Unit(benchmark::kMicrosecond)->Repetitions(5)
              ->ReportAggregatesOnly(true)->MinTime(async_min_time)->ArgNames({"n", second});
  for (long long n : ns) {
    for (long long v : values) { b->Args({n, v}); }
  }
}

/// The sizes the shape rows and the reach rows run at.
inline std::vector<long long> const shape_sizes{1024, 4096};

// --- frames --------------------------------------------------------------------------------

inline long long frame_count = 1000;  ///< --frames

/// F frames of N atoms, uniform in a cube whose side keeps about 0.0185 atoms per unit volume
/// (24 for 256 atoms: twice the RDF's reach), frame after frame, on the device.
struct frame_data {
  float side = 0;
  std::vector<twobody::size_type> offsets;
  std::vector<float> boxes;
  std::vector<float> hx, hy, hz;
  bench::device_scratch x, y, z, d_offsets, d_boxes;
  frame_data(long long n, long long frames)
    : side(24.f * std::cbrt(static_cast<float>(n) / 256.f)),
      x(sizeof(float) * n * frames), y(sizeof(float) * n * frames), z(sizeof(float) * n * frames),
      d_offsets(sizeof(twobody::size_type) * (frames + 1)), d_boxes(sizeof(float) * 3 * frames)
  {
    std::mt19937 rng(4242);
    std::uniform_real_distribution<float> u(0.f, side);
    for (auto* v : {&hx, &hy, &hz}) {
      v->resize(static_cast<std::size_t>(n * frames));
      for (auto& c : *v) { c = u(rng); }
    }
    for (long long f = 0; f <= frames; ++f) { offsets.push_back(f * n); }
    boxes.assign(static_cast<std::size_t>(3 * frames), side);
    EXAMPLE_CUDA_CHECK(cudaMemcpy(x.ptr, hx.data(), sizeof(float) * hx.size(), cudaMemcpyHostToDevice));
    EXAMPLE_CUDA_CHECK(cudaMemcpy(y.ptr, hy.data(), sizeof(float) * hy.size(), cudaMemcpyHostToDevice));
    EXAMPLE_CUDA_CHECK(cudaMemcpy(z.ptr, hz.data(), sizeof(float) * hz.size(), cudaMemcpyHostToDevice));
    EXAMPLE_CUDA_CHECK(cudaMemcpy(d_offsets.ptr, offsets.data(), sizeof(twobody::size_type) * offsets.size(), cudaMemcpyHostToDevice));
    EXAMPLE_CUDA_CHECK(cudaMemcpy(d_boxes.ptr, boxes.data(), sizeof(float) * boxes.size(), cudaMemcpyHostToDevice));
  }
  twobody::points<float, 3> device_points() const
  {
    return twobody::make_points(offsets.back(), x.as<float>(), y.as<float>(), z.as<float>());
  }
  twobody::frame_set<twobody::points<float, 3>> device_frames() const
  {
    return twobody::make_frames(device_points(), offsets.data(), static_cast<twobody::size_type>(offsets.size()) - 1)
      .with_boxes(boxes.data());
  }
  twobody::frame_set<twobody::points<float, 3>> host_frames(long long frames) const
  {
    auto p = twobody::make_points(offsets[frames], hx.data(), hy.data(), hz.data());
    return twobody::make_frames(p, offsets.data(), frames).with_boxes(boxes.data());
  }
};

inline frame_data const& frames_of(long long n)
{
  static std::map<long long, std::unique_ptr<frame_data>> cache;
  auto& slot = cache[n];
  if (!slot) { slot = std::make_unique<frame_data>(n, frame_count); }
  return *slot;
}

inline rdf_case rdf_in(float side)
{
  rdf_case c;
  c.f = twobody::make_periodic_squared_euclidean(side, side, side);
  return c;
}

/// Registers the shape/... rows and the frames/rdf128/tile:... rows at `frame_sizes` atoms
/// (bench_frames_shapes.cu), in their place in the order of main.
void register_shapes(std::vector<long long> const& frame_sizes);

}  // namespace frames_bench
