// Small sets and many frames (issue 24):
//  - floor/...  the one-call floor at small N: a host-synchronous call (wall clock around the
//               call, result on the host) and an asynchronous call (device output, no host
//               sync: wall clock over a batch of calls divided by the calls), for a periodic
//               RDF (128 bins) and a pair count within r, device data;
//  - phase/...  where a call's time goes: planning, pointer checks, scratch allocation, the
//               launch, the copy back and the synchronization, each timed alone.
//
//   bench_frames [--sizes=256,1024,4096,16384] [google benchmark flags]
#include "bench_common.cuh"

#include <twobody/detail/staging.cuh>

#include <algorithm>
#include <chrono>

namespace {

using bench::box_side;
constexpr float rdf_cut = 12.f;  // RDF out to 12 in the 100^3 box: what an MD user asks for

struct rdf_case {
  twobody::periodic_squared_euclidean<float, 3> f = twobody::make_periodic_squared_euclidean(box_side, box_side, box_side);
  twobody::distance_bins<float> bins{rdf_cut, 128};
};

double seconds_since(std::chrono::steady_clock::time_point t0)
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
template <class Body>
void wall_async(benchmark::State& state, cudaStream_t stream, Body&& body)
{
  body();
  EXAMPLE_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (auto _ : state) {
    auto const t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < async_batch; ++k) { body(); }
    EXAMPLE_CUDA_CHECK(cudaStreamSynchronize(stream));
    state.SetIterationTime(seconds_since(t0) / async_batch);
  }
}

struct stream_holder {
  cudaStream_t s{};
  stream_holder() { EXAMPLE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~stream_holder() { (void)cudaStreamDestroy(s); }
};

void floor_rdf_sync(benchmark::State& state)
{
  long long const n = state.range(0);
  auto const pairs  = twobody::self_pairs(bench::device_data<float>(n, 0));
  rdf_case const c;
  stream_holder st;
  bench::guarded(state, [&] {
    wall(state, [&] { benchmark::DoNotOptimize(twobody::histogram(twobody::exec::gpu.on(st.s), pairs, c.f, c.bins)); });
    bench::set_counters(state, bench::self_pair_count(n));
  });
}

void floor_rdf_async(benchmark::State& state)
{
  long long const n = state.range(0);
  auto const pairs  = twobody::self_pairs(bench::device_data<float>(n, 0));
  rdf_case const c;
  stream_holder st;
  bench::device_scratch d(sizeof(unsigned long long) * (c.bins.size() + 1));
  bench::guarded(state, [&] {
    wall_async(state, st.s, [&] { twobody::histogram(pairs, c.f, c.bins, d.as<unsigned long long>(), st.s); });
    bench::set_counters(state, bench::self_pair_count(n));
  });
}

void floor_count_sync(benchmark::State& state)
{
  long long const n = state.range(0);
  auto const pairs  = twobody::self_pairs(bench::device_data<float>(n, 0));
  stream_holder st;
  bench::guarded(state, [&] {
    wall(state, [&] { benchmark::DoNotOptimize(twobody::count_pairs(twobody::exec::gpu.on(st.s), pairs, twobody::within_radius(bench::radius))); });
    bench::set_counters(state, bench::self_pair_count(n));
  });
}

void floor_count_async(benchmark::State& state)
{
  long long const n = state.range(0);
  auto const pairs  = twobody::self_pairs(bench::device_data<float>(n, 0));
  stream_holder st;
  bench::device_scratch d(sizeof(unsigned long long));
  bench::guarded(state, [&] {
    wall_async(state, st.s, [&] { twobody::count_pairs(pairs, twobody::within_radius(bench::radius), d.as<unsigned long long>(), st.s); });
    bench::set_counters(state, bench::self_pair_count(n));
  });
}

// --- phases of one call ------------------------------------------------------------------

void phase_plan_histogram(benchmark::State& state)
{
  auto const pairs = twobody::self_pairs(bench::device_data<float>(state.range(0), 0));
  rdf_case const c;
  bench::guarded(state, [&] { wall(state, [&] { benchmark::DoNotOptimize(twobody::plan_histogram(pairs, c.f, c.bins)); }); });
}

void phase_pointer_check(benchmark::State& state)
{
  auto const p = bench::device_data<float>(state.range(0), 0);
  bench::guarded(state, [&] { wall(state, [&] { benchmark::DoNotOptimize(twobody::detail::device_accessible(p.coords[0])); }); });
}

void phase_scratch(benchmark::State& state)
{
  stream_holder st;
  bench::guarded(state, [&] { wall(state, [&] { twobody::detail::device_buffer b(1024, st.s); benchmark::DoNotOptimize(b.data()); }); });
}

void phase_planned_launch(benchmark::State& state)  // memset + launch, host side only
{
  long long const n = state.range(0);
  auto const pairs  = twobody::self_pairs(bench::device_data<float>(n, 0));
  rdf_case const c;
  stream_holder st;
  bench::device_scratch d(sizeof(unsigned long long) * (c.bins.size() + 1));
  bench::guarded(state, [&] {
    twobody::policy_plan const plan = twobody::plan_histogram(pairs, c.f, c.bins);
    wall_async(state, st.s, [&] {
      twobody::detail::run_planned_histogram(pairs, c.f, c.bins, d.as<unsigned long long>(), plan, st.s);
    });
  });
}

void phase_copy_back_sync(benchmark::State& state)
{
  stream_holder st;
  bench::device_scratch d(sizeof(unsigned long long) * 129);
  std::vector<unsigned long long> h(129);
  bench::guarded(state, [&] {
    wall(state, [&] {
      EXAMPLE_CUDA_CHECK(cudaMemcpyAsync(h.data(), d.ptr, sizeof(unsigned long long) * h.size(), cudaMemcpyDeviceToHost, st.s));
      EXAMPLE_CUDA_CHECK(cudaStreamSynchronize(st.s));
    });
  });
}

void phase_empty_kernel_sync(benchmark::State& state)
{
  stream_holder st;
  bench::device_scratch d(1024);
  bench::guarded(state, [&] {
    wall(state, [&] {
      EXAMPLE_CUDA_CHECK(cudaMemsetAsync(d.ptr, 0, 1024, st.s));
      EXAMPLE_CUDA_CHECK(cudaStreamSynchronize(st.s));
    });
  });
}

}  // namespace

int main(int argc, char** argv)
{
  std::vector<long long> sizes{256, 1024, 4096, 16384};
  if (!bench::take_sizes_flag(argc, argv, sizes)) { return 1; }
  if (bench::record_context()) {
    auto reg = [&](char const* name, void (*fn)(benchmark::State&), std::vector<long long> const& ns) {
      auto* b = benchmark::RegisterBenchmark(name, fn)->UseManualTime()->Unit(benchmark::kMicrosecond)->Repetitions(5)
                  ->ReportAggregatesOnly(true)->MinTime(0.05);
      for (long long n : ns) { b->Arg(n); }
    };
    reg("floor/rdf128/sync", floor_rdf_sync, sizes);
    reg("floor/rdf128/async", floor_rdf_async, sizes);
    reg("floor/count/sync", floor_count_sync, sizes);
    reg("floor/count/async", floor_count_async, sizes);
    reg("phase/plan_histogram", phase_plan_histogram, {4096});
    reg("phase/pointer_check", phase_pointer_check, {4096});
    reg("phase/scratch_alloc", phase_scratch, {0});
    reg("phase/memset_and_launch", phase_planned_launch, {256, 4096});
    reg("phase/copy_back_sync", phase_copy_back_sync, {0});
    reg("phase/memset_sync", phase_empty_kernel_sync, {0});
  }
  return bench::run_registered(argc, argv);
}
