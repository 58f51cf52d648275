// Small sets and many frames (issue 24):
//  - floor/...  the one-call floor at small N: a host-synchronous call (wall clock around the
//               call, result on the host) and an asynchronous call (device output, no host
//               sync: wall clock over a batch of calls divided by the calls, and enqueue_us,
//               the host's share: the time to issue them), for a periodic RDF (128 bins), a pair
//               count within r and Gaussian kernel sums per point (ordered pairs), device data;
//               and the asynchronous RDF with its bins out to 1, 3, 6, 12 and 40 (rdf128_reach:
//               up to 12 the cells of the box, at 40 the tiles over every pair) and with its output
//               moved by 0 to 30 lines of 128 bytes (rdf128_offset: does placement in L2 matter);
//  - shape/...  the one-call RDF, count and per-point sums at 1024 and 4096 points with each
//               small tile shape (column groups, private copies) named explicitly: what the
//               planner's small-set choice rests on;
//  - phase/...  where a call's time goes: planning, pointer checks, scratch allocation, the
//               launch, the copy back and the synchronization, each timed alone, an empty
//               kernel launched asynchronously (this host's launch rate: the floor), and wide
//               empty kernels plain and cooperative with a grid barrier (132, 528, 2112 blocks);
//  - frames/... F frames of N atoms (a periodic box per frame, uniform atoms at a liquid-like
//               number density, RDF out to 12 in 128 bins): one batched call (summed and per
//               frame; and from host arrays in one run or in overlapped runs of 2^18 points;
//               and with each frame tile shape named; gpu_us is the stream time of the call),
//               the loop of one-call forms over the frames, the CPU backend (fewer
//               frames), and the same RDF at N = 2^20 in one call for the large-N rate. Wall
//               clock around the whole call including its host work and final synchronization.
//
//   bench_frames [--sizes=256,1024,4096,16384] [--frames=1000] [google benchmark flags]
#include "bench_frames_rows.cuh"

#include <twobody/util/staging.cuh>

#include <cooperative_groups.h>

#include <algorithm>
#include <chrono>

namespace {

using namespace frames_bench;

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

/// The asynchronous RDF of state.range(0) points with c's bins, its output `lines` lines of 128
/// bytes past the start of an allocation of the counters and `spare` bytes more.
void rdf_async(benchmark::State& state, rdf_case const& c, std::size_t spare = 0, long long lines = 0)
{
  long long const n = state.range(0);
  auto const pairs  = twobody::self_pairs(bench::device_data<float>(n, 0));
  stream_holder st;
  bench::device_scratch d(sizeof(unsigned long long) * (c.bins.size() + 1) + spare);
  auto* const out = d.as<unsigned long long>() + 16 * lines;
  bench::guarded(state, [&] {
    wall_async(state, st.s, [&] { twobody::histogram(pairs, c.f, c.bins, out, st.s); });
    bench::set_counters(state, bench::self_pair_count(n));
  });
}

void floor_rdf_async(benchmark::State& state) { rdf_async(state, rdf_case{}); }

/// The asynchronous RDF with 128 bins out to r_max = state.range(1) in the 100^3 box. Up to
/// r_max = 12 the one-call histogram visits the pairs of neighbouring cells of the box (at most
/// 4096 points: detail/cell_list_traversal.cuh), more of them the longer the reach; at 40 the
/// cells would visit every pair, and the tiles do (every pair, 27% of them in the bins).
void floor_rdf_reach(benchmark::State& state)
{
  rdf_case c;
  c.bins = twobody::distance_bins<float>(static_cast<float>(state.range(1)), 128);
  rdf_async(state, c);
}

/// The asynchronous RDF of floor/rdf128 with its output state.range(1) lines of 128 bytes (0 to
/// 31) into an allocation: whether where the counters lie in L2 decides what the last flush's
/// global atomics cost (floor/rdf128_reach).
void floor_rdf_offset(benchmark::State& state) { rdf_async(state, rdf_case{}, 128 * 32, state.range(1)); }

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

/// Gaussian kernel sums per point (ordered pairs: every j != i), the third statistic of the floor.
void floor_per_point_sync(benchmark::State& state)
{
  long long const n = state.range(0);
  auto const pairs  = twobody::ordered_pairs(bench::device_data<float>(n, 0));
  stream_holder st;
  bench::guarded(state, [&] {
    wall(state, [&] { benchmark::DoNotOptimize(twobody::sum_per_point(twobody::exec::gpu.on(st.s), pairs, twobody::gaussian_kernel(bench::radius))); });
    bench::set_counters(state, 2.0 * bench::self_pair_count(n));
  });
}

void floor_per_point_async(benchmark::State& state)
{
  per_point_async(state, [](auto const& pairs, auto f, float* d, cudaStream_t s) { twobody::sum_per_point(pairs, f, d, s); });
}

/// The asynchronous histogram captured once in a CUDA graph, then replayed (device output).
void floor_rdf_graph(benchmark::State& state)
{
  long long const n = state.range(0);
  auto const pairs  = twobody::self_pairs(bench::device_data<float>(n, 0));
  rdf_case const c;
  stream_holder st;
  bench::device_scratch d(sizeof(unsigned long long) * (c.bins.size() + 1));
  bench::guarded(state, [&] {
    twobody::histogram(pairs, c.f, c.bins, d.as<unsigned long long>(), st.s);  // plans outside the capture
    cudaGraph_t graph{};
    cudaGraphExec_t exec{};
    EXAMPLE_CUDA_CHECK(cudaStreamBeginCapture(st.s, cudaStreamCaptureModeGlobal));
    twobody::histogram(pairs, c.f, c.bins, d.as<unsigned long long>(), st.s);
    EXAMPLE_CUDA_CHECK(cudaStreamEndCapture(st.s, &graph));
    EXAMPLE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    wall_async(state, st.s, [&] { EXAMPLE_CUDA_CHECK(cudaGraphLaunch(exec, st.s)); });
    bench::set_counters(state, bench::self_pair_count(n));
    (void)cudaGraphExecDestroy(exec);
    (void)cudaGraphDestroy(graph);
  });
}

/// The same statistic and data as bench_suite's sdh256/one_call (2^20 points, 256 distance
/// bins over the box's diagonal, rotated copies, CUDA events): the large-N rate, and a check
/// that the tile loops shared with the frames kept their speed.
void large_sdh(benchmark::State& state)
{
  auto const copies = bench::rotated<float>(state.range(0));
  auto const bins   = bench::sdh_bins(256);
  bench::device_scratch out(sizeof(unsigned long long) * (bins.size() + 1));
  bench::gpu_timer timer;
  bench::guarded(state, [&] {
    timer.run(state, [&](cudaStream_t s, long long it) {
      twobody::histogram(twobody::self_pairs(bench::pick(copies, it)), twobody::squared_euclidean{}, bins,
                         out.as<unsigned long long>(), s);
    });
    bench::set_counters(state, bench::self_pair_count(state.range(0)));
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

void phase_planned_launch(benchmark::State& state)  // the planned launch alone (one kernel where it can), asynchronous
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

__global__ void empty_kernel(int* p)
{
  if (p != nullptr && threadIdx.x == 1u << 30) { *p = 1; }
}

/// The machine's own floor: an empty kernel launched asynchronously (launches per second of
/// this host and driver), the least any one-kernel call can take.
void phase_empty_kernel_async(benchmark::State& state)
{
  stream_holder st;
  bench::device_scratch d(1024);
  bench::guarded(state, [&] {
    wall_async(state, st.s, [&] {
      empty_kernel<<<1, 64, 0, st.s>>>(d.as<int>());
      EXAMPLE_CUDA_CHECK(cudaGetLastError());
    });
  });
}

/// Blocks that all run at once and then meet at a grid barrier, launched cooperatively: the
/// floor of a one-kernel call that folds its own partials (state.range(0) blocks of 128 threads;
/// 528 is the count's grid at 4096 points).
__global__ void grid_barrier_kernel(int* p)
{
  cooperative_groups::this_grid().sync();
  if (p != nullptr && blockIdx.x == 0 && threadIdx.x == 0) { *p = 1; }
}

void phase_grid_barrier_async(benchmark::State& state)
{
  stream_holder st;
  bench::device_scratch d(1024);
  int* ptr = d.as<int>();
  bench::guarded(state, [&] {
    wall_async(state, st.s, [&] {
      void* args[] = {&ptr};
      EXAMPLE_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void const*>(grid_barrier_kernel),
                                                     dim3(static_cast<unsigned>(state.range(0))), dim3(128), args, 0, st.s));
    });
  });
}

void phase_wide_kernel_async(benchmark::State& state)
{
  stream_holder st;
  bench::device_scratch d(1024);
  bench::guarded(state, [&] {
    wall_async(state, st.s, [&] {
      empty_kernel<<<static_cast<unsigned>(state.range(0)), 128, 0, st.s>>>(d.as<int>());
      EXAMPLE_CUDA_CHECK(cudaGetLastError());
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

// --- frames --------------------------------------------------------------------------------


void frames_batched(benchmark::State& state, bool per_frame)
{
  long long const n = state.range(0);
  frame_data const& d = frames_of(n);
  rdf_case const c    = rdf_in(d.side);
  stream_holder st;
  std::size_t const slots = static_cast<std::size_t>(c.bins.size()) + 1;
  bench::device_scratch out(sizeof(unsigned long long) * slots * (per_frame ? frame_count : 1));
  auto const pairs = twobody::self_frame_pairs(d.device_frames());
  // GPU time of the call's stream work (copies of the layout, memset, kernel), beside the wall
  // clock: their difference is the host's share.
  cudaEvent_t e0{}, e1{};
  EXAMPLE_CUDA_CHECK(cudaEventCreate(&e0));
  EXAMPLE_CUDA_CHECK(cudaEventCreate(&e1));
  double gpu_ms = 0;
  long long calls = 0;
  bench::guarded(state, [&] {
    wall(state, [&] {
      EXAMPLE_CUDA_CHECK(cudaEventRecord(e0, st.s));
      if (per_frame) {
        twobody::histogram_per_frame(pairs, c.f, c.bins, out.as<unsigned long long>(), st.s);
      } else {
        twobody::histogram_frames(pairs, c.f, c.bins, out.as<unsigned long long>(), st.s);
      }
      EXAMPLE_CUDA_CHECK(cudaEventRecord(e1, st.s));
      EXAMPLE_CUDA_CHECK(cudaStreamSynchronize(st.s));
      float ms = 0;
      EXAMPLE_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
      gpu_ms += ms;
      ++calls;
    });
    bench::set_counters(state, bench::self_pair_count(n) * double(frame_count));
    state.counters["gpu_us"] = calls > 0 ? 1e3 * gpu_ms / static_cast<double>(calls) : 0.0;
  });
  (void)cudaEventDestroy(e0);
  (void)cudaEventDestroy(e1);
}


/// Host coordinate arrays (the host-result form): in one run, where the copy cannot overlap
/// the kernels, and in runs of 2^18 points, each copied while the one before computes (256
/// atoms x 1000 frames are one run either way).
void frames_host_arrays(benchmark::State& state, twobody::size_type chunk_points)
{
  long long const n = state.range(0);
  frame_data const& d = frames_of(n);
  rdf_case const c    = rdf_in(d.side);
  stream_holder st;
  auto const pairs = twobody::self_frame_pairs(d.host_frames(frame_count));
  twobody::frames_options opt;
  opt.chunk_points = chunk_points;
  bench::guarded(state, [&] {
    wall(state, [&] { benchmark::DoNotOptimize(twobody::histogram_frames(twobody::exec::gpu.on(st.s), pairs, c.f, c.bins, opt)); });
    bench::set_counters(state, bench::self_pair_count(n) * double(frame_count));
  });
}

void frames_loop(benchmark::State& state)  // one asynchronous one-call histogram per frame
{
  long long const n = state.range(0);
  frame_data const& d = frames_of(n);
  rdf_case const c    = rdf_in(d.side);
  stream_holder st;
  std::size_t const slots = static_cast<std::size_t>(c.bins.size()) + 1;
  bench::device_scratch out(sizeof(unsigned long long) * slots * frame_count);
  auto const all = d.device_points();
  bench::guarded(state, [&] {
    wall(state, [&] {
      for (long long f = 0; f < frame_count; ++f) {
        auto p = all;
        for (auto& q : p.coords) { q += f * n; }
        p.size = n;
        twobody::histogram(twobody::self_pairs(p), c.f, c.bins, out.as<unsigned long long>() + f * slots, st.s);
      }
      EXAMPLE_CUDA_CHECK(cudaStreamSynchronize(st.s));
    });
    bench::set_counters(state, bench::self_pair_count(n) * double(frame_count));
  });
}

void frames_count(benchmark::State& state)
{
  long long const n = state.range(0);
  frame_data const& d = frames_of(n);
  stream_holder st;
  bench::device_scratch out(sizeof(unsigned long long) * frame_count);
  auto const pairs = twobody::self_frame_pairs(d.device_frames());
  twobody::within<twobody::periodic_squared_euclidean<float, 3>, float> const close{
    twobody::make_periodic_squared_euclidean(d.side, d.side, d.side), bench::radius * bench::radius};
  bench::guarded(state, [&] {
    wall(state, [&] {
      twobody::count_per_frame(pairs, close, out.as<unsigned long long>(), st.s);
      EXAMPLE_CUDA_CHECK(cudaStreamSynchronize(st.s));
    });
    bench::set_counters(state, bench::self_pair_count(n) * double(frame_count));
  });
}

void frames_cpu(benchmark::State& state)
{
  long long const n = state.range(0), frames = std::max(1LL, frame_count / 10);
  frame_data const& d = frames_of(n);
  rdf_case const c    = rdf_in(d.side);
  auto const pairs    = twobody::self_frame_pairs(d.host_frames(frames));
  wall(state, [&] { benchmark::DoNotOptimize(twobody::histogram_frames(twobody::exec::cpu, pairs, c.f, c.bins)); });
  bench::set_counters(state, bench::self_pair_count(n) * double(frames));
}

void large_rdf(benchmark::State& state)  // the same statistic at large N, one call, device data
{
  long long const n = state.range(0);
  auto const pairs  = twobody::self_pairs(bench::device_data<float>(n, 0));
  rdf_case const c  = rdf_in(bench::box_side);
  stream_holder st;
  bench::device_scratch out(sizeof(unsigned long long) * (c.bins.size() + 1));
  bench::guarded(state, [&] {
    wall(state, [&] {
      twobody::histogram(pairs, c.f, c.bins, out.as<unsigned long long>(), st.s);
      EXAMPLE_CUDA_CHECK(cudaStreamSynchronize(st.s));
    });
    bench::set_counters(state, bench::self_pair_count(n));
  });
}

}  // namespace

int main(int argc, char** argv)
{
  std::vector<long long> sizes{256, 1024, 4096, 16384};
  std::vector<long long> frame_sizes{256, 1024, 4096}, frames_flag{1000};
  if (!bench::take_sizes_flag(argc, argv, sizes) || !bench::take_sizes_flag(argc, argv, frame_sizes, "--frame_sizes") ||
      !bench::take_sizes_flag(argc, argv, frames_flag, "--frames")) {
    return 1;
  }
  frame_count = frames_flag.front();
  if (bench::record_context()) {
    using frames_bench::add;
    using frames_bench::add2;
    add("floor/rdf128/sync", floor_rdf_sync, sizes);
    add("floor/rdf128/async", floor_rdf_async, sizes, async_min_time);
    add("floor/rdf128/graph_replay", floor_rdf_graph, sizes, async_min_time);
    add("floor/count/sync", floor_count_sync, sizes);
    add("floor/count/async", floor_count_async, sizes, async_min_time);
    add("floor/per_point/sync", floor_per_point_sync, sizes);
    add("floor/per_point/async", floor_per_point_async, sizes, async_min_time);
    add2("floor/rdf128_reach/async", floor_rdf_reach, shape_sizes, {1, 3, 6, 12, 40}, "r_max");
    add2("floor/rdf128_offset/async", floor_rdf_offset, {4096}, {0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30}, "lines");
    frames_bench::register_shapes(frame_sizes);
    add("phase/plan_histogram", phase_plan_histogram, {4096});
    add("phase/pointer_check", phase_pointer_check, {4096});
    add("phase/scratch_alloc", phase_scratch, {0});
    add("phase/planned_launch", phase_planned_launch, {256, 4096}, async_min_time);
    add("phase/empty_kernel_async", phase_empty_kernel_async, {0}, async_min_time);
    add("phase/grid_barrier_async", phase_grid_barrier_async, {132, 528, 2112}, async_min_time);
    add("phase/wide_kernel_async", phase_wide_kernel_async, {132, 528, 2112}, async_min_time);
    add("phase/copy_back_sync", phase_copy_back_sync, {0});
    add("phase/memset_sync", phase_empty_kernel_sync, {0});
    add("frames/rdf128/batched_sum", [](benchmark::State& s) { frames_batched(s, false); }, frame_sizes);
    add("frames/rdf128/batched_per_frame", [](benchmark::State& s) { frames_batched(s, true); }, frame_sizes);
    add("frames/rdf128/host_arrays_one_run", [](benchmark::State& s) { frames_host_arrays(s, twobody::size_type(1) << 40); }, frame_sizes);
    add("frames/rdf128/host_arrays_runs_of_256k", [](benchmark::State& s) { frames_host_arrays(s, twobody::size_type(1) << 18); }, frame_sizes);
    add("frames/rdf128/loop_of_one_call", frames_loop, frame_sizes);
    add("frames/rdf128/cpu_openmp_tenth_of_frames", frames_cpu, frame_sizes);
    add("frames/count/batched_per_frame", frames_count, frame_sizes);
    add("large/rdf128/one_call", large_rdf, {1 << 20});
    add("large/sdh256/one_call", large_sdh, {1 << 20});
  }
  return bench::run_registered(argc, argv);
}
