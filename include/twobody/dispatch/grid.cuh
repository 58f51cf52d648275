/// \file grid.cuh
/// \brief The dispatch of range-limited statistics: the grid traversal's neighbour lists and
/// query order, its launch for counts and histograms over a grid_index, and the choice between
/// a grid built for the call and brute force (grid_pays). grid.cuh's forms call it.
#pragma once

#include <twobody/binning.cuh>
#include <twobody/cpu/cell_list.cuh>
#include <twobody/detail/grid_index.cuh>
#include <twobody/detail/grid_kernels.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/dispatch/histogram.cuh>
#include <twobody/dispatch/histogram_launch.cuh>
#include <twobody/dispatch/reduce.cuh>
#include <twobody/execution.cuh>
#include <twobody/grid_options.cuh>
#include <twobody/input/automatic.cuh>
#include <twobody/math/bin_slot.cuh>
#include <twobody/math/periodic_box.cuh>
#include <twobody/model/privatization.cuh>
#include <twobody/model/registry.cuh>
#include <twobody/output/global_atomics.cuh>
#include <twobody/output/privatized_histogram.cuh>
#include <twobody/output/registers.cuh>
#include <twobody/points.cuh>
#include <twobody/results.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/device_info.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/gpu_progress.cuh>
#include <twobody/util/staging.cuh>
#include <twobody/util/validate.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>
#include <cuda/std/functional>

#include <algorithm>
#include <string>
#include <vector>

namespace twobody {
namespace detail {

inline constexpr int grid_block_threads = 256;

struct cell_size_fn {
  cuda::std::uint32_t const* begin;
  __host__ __device__ cuda::std::uint32_t operator()(cuda::std::uint32_t c) const { return begin[c + 1] - begin[c]; }
};

/// Each cell's list of non-empty neighbour cells (self mode), as CSR: offsets (cells + 1)
/// and the cell indices.
struct neighbour_lists {
  device_buffer offsets, list;
};

template <class T, int D>
neighbour_lists grid_neighbours(grid_view<T, D> const& g, bool half, cudaStream_t stream)
{
  std::size_t const c = static_cast<std::size_t>(g.cells);
  neighbour_lists nl;
  device_buffer counts((c + 1) * 4, stream);
  nl.offsets = device_buffer((c + 1) * 4, stream);
  int const blocks = static_cast<int>(std::min<std::size_t>((c + 255) / 256, 8u * device_info::get().sm_count));
  TWOBODY_CUDA_TRY(cudaMemsetAsync(counts.data(), 0, (c + 1) * 4, stream));
  grid_neighbour_kernel<T, D><<<blocks, 256, 0, stream>>>(g, half, counts.as<cuda::std::uint32_t>(), nullptr, nullptr);
  TWOBODY_CHECK_LAUNCH();
  std::size_t bytes = 0;
  TWOBODY_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, counts.as<cuda::std::uint32_t>(),
                                                 nl.offsets.as<cuda::std::uint32_t>(), static_cast<long long>(c + 1), stream));
  {
    device_buffer temp(bytes, stream);
    TWOBODY_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, counts.as<cuda::std::uint32_t>(),
                                                   nl.offsets.as<cuda::std::uint32_t>(), static_cast<long long>(c + 1),
                                                   stream));
  }
  cuda::std::uint32_t total = 0;
  TWOBODY_CUDA_TRY(cudaMemcpyAsync(&total, nl.offsets.as<cuda::std::uint32_t>() + c, 4, cudaMemcpyDeviceToHost, stream));
  TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
  nl.list = device_buffer(std::max<std::size_t>(total, 1) * 4, stream);
  grid_neighbour_kernel<T, D><<<blocks, 256, 0, stream>>>(g, half, nullptr, nl.offsets.as<cuda::std::uint32_t const>(),
                                                          nl.list.as<cuda::std::uint32_t>());
  TWOBODY_CHECK_LAUNCH();
  return nl;
}

/// Self-mode query order: the points of the cells in decreasing order of their work.
template <class T, int D>
device_buffer grid_query_order(grid_view<T, D> const& g, bool half, neighbour_lists const& nl, cudaStream_t stream)
{
  std::size_t const c = static_cast<std::size_t>(g.cells);
  std::size_t const n = static_cast<std::size_t>(g.sorted.size);
  device_buffer work(c * 8, stream), work_sorted(c * 8, stream), index(c * 4, stream), order(c * 4, stream);
  device_buffer rank(c * 4, stream), begin(c * 4, stream), queries(n * 4, stream);
  int const blocks = static_cast<int>(std::min<std::size_t>((std::max(c, n) + 255) / 256, 8u * device_info::get().sm_count));
  grid_cell_work_kernel<T, D><<<blocks, 256, 0, stream>>>(g, half, nl.offsets.as<cuda::std::uint32_t const>(),
                                                          nl.list.as<cuda::std::uint32_t const>(),
                                                          work.as<unsigned long long>(), index.as<cuda::std::uint32_t>());
  TWOBODY_CHECK_LAUNCH();
  std::size_t bytes = 0, scan = 0;
  TWOBODY_CUDA_TRY(cub::DeviceRadixSort::SortPairsDescending(nullptr, bytes, work.as<unsigned long long>(),
                                                             work_sorted.as<unsigned long long>(),
                                                             index.as<cuda::std::uint32_t>(), order.as<cuda::std::uint32_t>(),
                                                             static_cast<long long>(c), 0, 64, stream));
  auto sizes = thrust::make_transform_iterator(order.as<cuda::std::uint32_t const>(), cell_size_fn{g.cell_begin});
  TWOBODY_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan, sizes, begin.as<cuda::std::uint32_t>(),
                                                 static_cast<long long>(c), stream));
  device_buffer temp(std::max(bytes, scan), stream);
  TWOBODY_CUDA_TRY(cub::DeviceRadixSort::SortPairsDescending(temp.data(), bytes, work.as<unsigned long long>(),
                                                             work_sorted.as<unsigned long long>(),
                                                             index.as<cuda::std::uint32_t>(), order.as<cuda::std::uint32_t>(),
                                                             static_cast<long long>(c), 0, 64, stream));
  TWOBODY_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp.data(), scan, sizes, begin.as<cuda::std::uint32_t>(),
                                                 static_cast<long long>(c), stream));
  grid_rank_kernel<<<blocks, 256, 0, stream>>>(order.as<cuda::std::uint32_t const>(), g.cells, rank.as<cuda::std::uint32_t>());
  TWOBODY_CHECK_LAUNCH();
  grid_query_order_kernel<T, D><<<blocks, 256, 0, stream>>>(g, rank.as<cuda::std::uint32_t const>(),
                                                            begin.as<cuda::std::uint32_t const>(),
                                                            queries.as<cuda::std::uint32_t>());
  TWOBODY_CHECK_LAUNCH();
  return queries;
}

/// The engine kernel over a grid index's query batches, with a visitor.
template <int K, class Visitor, class T, int D>
auto grid_kernel()
{
  return pair_engine_kernel<grid_batch_traversal<grid_block_threads, K, T, D>, Visitor, dynamic_units>;
}

/// The persistent grid of the grid kernel, after allowing it `dynamic_smem` (past 48 KiB the
/// attribute must be raised before the occupancy query, or the kernel counts as not fitting).
template <int K, class Visitor, class T, int D>
int grid_blocks(std::size_t dynamic_smem)
{
  auto const kernel = grid_kernel<K, Visitor, T, D>();
  if (dynamic_smem > 48 * 1024) {
    TWOBODY_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic_smem)));
  }
  return persistent_grid(kernel, grid_block_threads, dynamic_smem, ~0ull);
}

/// Calls go(integral_constant<int, K>) for the threads per query asked for.
template <class Go>
void with_threads_per_query(int k, Go&& go)
{
  switch (k) {
    case 1: go(cuda::std::integral_constant<int, 1>{}); break;
    case 4: go(cuda::std::integral_constant<int, 4>{}); break;
    case 8: go(cuda::std::integral_constant<int, 8>{}); break;
    case 32: go(cuda::std::integral_constant<int, 32>{}); break;
    default: TWOBODY_EXPECTS(false, "grid_options::threads_per_query must be 1, 4, 8 or 32");
  }
}

/// Registers and static shared memory of the grid kernel with `Visitor` and the threads per
/// query asked for (what the copies plan needs besides the device).
template <class Visitor, class T, int D>
kernel_resources grid_kernel_resources(int threads_per_query)
{
  kernel_resources r;
  with_threads_per_query(threads_per_query, [&](auto k) {
    cudaFuncAttributes fa{};
    TWOBODY_CUDA_TRY(cudaFuncGetAttributes(&fa, grid_kernel<decltype(k)::value, Visitor, T, D>()));
    r = kernel_resources{grid_block_threads, fa.numRegs, fa.sharedSizeBytes, 0};
  });
  return r;
}

/// What every traversal of an index needs besides its consumer: the queries on the device
/// (the sorted points in self mode), the neighbour lists and query order (self mode), and
/// the distance-call counter.
template <class T, int D>
struct grid_traversal {
  grid_view<T, D> g;
  bool self;
  grid_options opt;
  staged_points<points<T, D>> staged;
  points<T, D> queries;
  device_buffer calls;
  device_buffer order;
  neighbour_lists nl;

  grid_traversal(grid_index<T, D> const& index, points<T, D> const* cross, grid_options const& opt_, cudaStream_t stream)
    : g(index.view()), self(cross == nullptr), opt(opt_),
      staged(checked_queries(cross, g.sorted), stream),
      queries(staged.view()), calls(sizeof(unsigned long long), stream)
  {
    TWOBODY_CUDA_TRY(cudaMemsetAsync(calls.data(), 0, sizeof(unsigned long long), stream));
    if (self && g.cells > 0) {
      nl = grid_neighbours(g, opt.half_stencil, stream);
      if (opt.order_by_workload) { order = grid_query_order(g, opt.half_stencil, nl, stream); }
    }
  }
  /// The queries: the indexed points, or the cross queries after the checks every launch makes.
  static points<T, D> const& checked_queries(points<T, D> const* cross, points<T, D> const& sorted)
  {
    if (cross == nullptr) { return sorted; }
    validate(cross_pairs(*cross, sorted));
    return *cross;
  }
  /// Nothing to visit: no queries or an empty index.
  bool empty() const { return queries.size == 0 || g.cells == 0; }

  /// Query batches of B / K queries: the traversal's work units.
  template <int K>
  unsigned long long batches() const
  {
    constexpr unsigned long long per_batch = grid_block_threads / K;
    return (static_cast<unsigned long long>(queries.size) + per_batch - 1) / per_batch;
  }

  /// One launch; count_calls false leaves the distance calls out of opt.stats (estimates).
  template <int K, class Visitor>
  void launch(typename Visitor::params const& params, dynamic_units::params const& units, std::size_t dynamic_smem,
              int blocks, cudaStream_t stream, bool count_calls = true) const
  {
    typename grid_batch_traversal<grid_block_threads, K, T, D>::params const walk{
      g, queries, self, opt.half_stencil, order.as<cuda::std::uint32_t const>(), queries.size,
      nl.offsets.as<cuda::std::uint32_t const>(), nl.list.as<cuda::std::uint32_t const>(),
      count_calls ? calls.as<unsigned long long>() : nullptr};
    grid_kernel<K, Visitor, T, D>()<<<blocks, grid_block_threads, dynamic_smem, stream>>>(walk, params, units);
    TWOBODY_CHECK_LAUNCH();
  }

  /// Fills opt.stats, when asked for (synchronizes).
  void report(cudaStream_t stream) const
  {
    if (opt.stats == nullptr) { return; }
    unsigned long long n = 0;
    TWOBODY_CUDA_TRY(cudaMemcpyAsync(&n, calls.as<unsigned long long>(), sizeof(n), cudaMemcpyDeviceToHost, stream));
    TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
    opt.stats->distance_calls = n;
    opt.stats->cells          = g.cells;
  }
};

/// Runs the grid kernel with a statistic `Agent` and the K asked for; make_params(blocks) gets
/// the grid size before the launch (agents with per-block partial outputs size them by it).
template <class Agent, class T, int D, class F, class MakeParams>
void run_grid(grid_index<T, D> const& index, points<T, D> const* cross_queries, F const& f, grid_options const& opt,
              std::size_t dynamic_smem, MakeParams&& make_params, cudaStream_t stream)
{
  using visitor = statistic_visitor<Agent, F>;
  grid_traversal<T, D> const tr(index, cross_queries, opt, stream);
  device_buffer state(sizeof(work_state), stream);
  TWOBODY_CUDA_TRY(cudaMemsetAsync(state.data(), 0, sizeof(work_state), stream));
  with_threads_per_query(opt.threads_per_query, [&](auto k) {
    constexpr int K  = decltype(k)::value;
    int const blocks = grid_blocks<K, visitor, T, D>(dynamic_smem);
    auto const agent = make_params(blocks);
    if (!tr.empty()) {
      // Batches from a counter (uneven work); a statistic never fails, so none is handed back.
      auto const batches = tr.template batches<K>();
      dynamic_units::params const units{{nullptr, 0, 0, batches}, state.as<work_state>(), nullptr,
                                        current_launch_control(batches)};
      tr.template launch<K, visitor>({agent, f}, units, dynamic_smem, blocks, stream);
    }
  });
  tr.report(stream);
}

template <class T, int D, class Pred>
unsigned long long grid_count(grid_index<T, D> const& index, points<T, D> const* cross, Pred const& pred,
                              grid_options const& opt, cudaStream_t stream)
{
  using C = unsigned long long;
  using op = cuda::std::plus<C>;
  device_buffer partials;
  device_buffer result(sizeof(C), stream);
  TWOBODY_CUDA_TRY(cudaMemsetAsync(result.data(), 0, sizeof(C), stream));
  int grid_size = 0;
  run_grid<reduction_agent<C, op, unsigned int, grid_block_threads>>(
    index, cross, pred, opt, 0,
    [&](int blocks) {
      grid_size = blocks;
      partials  = device_buffer(sizeof(C) * static_cast<std::size_t>(blocks), stream);
      TWOBODY_CUDA_TRY(cudaMemsetAsync(partials.data(), 0, sizeof(C) * static_cast<std::size_t>(blocks), stream));
      return typename reduction_agent<C, op, unsigned int, grid_block_threads>::params{partials.as<C>(), op{}, C{}};
    },
    stream);
  std::size_t bytes = 0;
  TWOBODY_CUDA_TRY(cub::DeviceReduce::Sum(nullptr, bytes, partials.as<C>(), result.as<C>(), grid_size, stream));
  device_buffer temp(bytes, stream);
  TWOBODY_CUDA_TRY(cub::DeviceReduce::Sum(temp.data(), bytes, partials.as<C>(), result.as<C>(), grid_size, stream));
  return copy_to_host(result.as<C>(), stream);
}

template <class T, int D, class F, class Binning>
histogram_result<unsigned long long> grid_histogram(grid_index<T, D> const& index, points<T, D> const* cross, F const& f,
                                                    Binning const& bins, grid_options const& opt, cudaStream_t stream)
{
  using Count = unsigned long long;
  check_bins_accept<F, Binning>();
  TWOBODY_EXPECTS(bins.size() >= 1 && bins.size() < (1 << 30), "histogram: need between 1 and 2^30 bins");
  int const slots = bins.size() + 1;
  device_buffer counts(sizeof(Count) * static_cast<std::size_t>(slots), stream);
  TWOBODY_CUDA_TRY(cudaMemsetAsync(counts.data(), 0, sizeof(Count) * static_cast<std::size_t>(slots), stream));
  // Shared 32-bit copies, flushed before a batch could wrap one, as many as the latency model
  // finds best next to this kernel's own shared memory; global atomics past shared memory.
  using privatized = privatized_histogram_agent<Binning, Count, unsigned int, grid_block_threads, window_mode::none>;
  privatized_plan const plan = model::choose_copies(slots, sizeof(unsigned int),
                                                    grid_kernel_resources<statistic_visitor<privatized, F>, T, D>(opt.threads_per_query),
                                                    device_info::get(), model::grid_histogram_h100);
  unsigned long long const batch_bound =
    static_cast<unsigned long long>(grid_block_threads) * static_cast<unsigned long long>(index.size() + 1);
  if (plan.passes == 1 && batch_bound < (1ull << 31)) {
    run_grid<privatized>(
      index, cross, f, opt, plan.smem,
      [&](int) {
        return typename privatized::params{bins, counts.as<Count>(), plan.copies, 0, slots,
                                           flush_limit_for<unsigned int>(batch_bound)};
      },
      stream);
  } else {
    run_grid<global_histogram_agent<Binning, Count, grid_block_threads>>(
      index, cross, f, opt, 0,
      [&](int) { return typename global_histogram_agent<Binning, Count, grid_block_threads>::params{bins, counts.as<Count>()}; },
      stream);
  }
  std::vector<Count> all(static_cast<std::size_t>(slots));
  TWOBODY_CUDA_TRY(cudaMemcpyAsync(all.data(), counts.data(), all.size() * sizeof(Count), cudaMemcpyDeviceToHost, stream));
  wait_for_stream(stream);
  unsigned long long visited = 0;
  for (Count c : all) { visited += c; }
  return histogram_result<Count>::from_slots(std::move(all), visited);
}


/// Share of the data one query's stencil covers on a grid, assuming uniform density: the
/// product over dimensions of min(1, 3 / cells). The grid evaluates about that share of the
/// brute force's pairs at about 2.3x the cost per pair (measured on the H100: 20 bins up to
/// r = 20 at 2^20, bench_grid), so it pays below ~0.43; the rule takes 0.35, and brute force
/// for fewer than 2^24 pairs, where the build and its synchronizations dominate.
template <int D>
bool grid_pays(grid_geometry<D> const& geo, double pairs, double min_pairs = double(1 << 24))
{
  if (pairs < min_pairs) { return false; }
  double share = 1;
  for (int d = 0; d < D; ++d) { share *= std::min(1.0, 3.0 / static_cast<double>(geo.cells[d])); }
  return share < 0.35;
}

/// The grid of a range-limited statistic of f: periodic in f's box when f has one (a
/// minimum-image functor), else over the points' bounding box.
template <class T, int D, class F>
grid_index<T, D> grid_for(points<T, D> const& indexed, T cutoff, F const& f, cudaStream_t stream)
{
  if constexpr (has_periodic_box<F>) {
    return grid_index<T, D>(indexed, cutoff, box_of<D, T>(f), stream);
  } else {
    return grid_index<T, D>(indexed, cutoff, stream);
  }
}

/// Whether every finite coordinate of pts lies in the periodic box [0, box_d) (a periodic
/// cell list needs it; brute force takes the minimum image of any coordinates).
template <class T, int D, class Box>
bool inside_box(points<T, D> const& pts, Box const& box)
{
  for (std::int64_t i = 0; i < pts.size; ++i) {
    auto const p = pts[i];
    for (int d = 0; d < D; ++d) {
      if (std::isfinite(static_cast<double>(p[d])) && !(p[d] >= T(0) && p[d] < box[d])) { return false; }
    }
  }
  return true;
}

/// Pairs from which the CPU backend's cells may pay (the GPU's grid: 2^24): building them is a
/// sort of the points on the host, cheap beside the pairs.
inline constexpr double cpu_cells_min_pairs = double(1 << 16);

/// The CPU backend's range-limited statistic: on_cells(cell list, cross queries or null) where
/// the cells pay (or rg asks for them), else brute(exec::cpu), its one-call dispatch. The
/// cells pay by the GPU grid's rule (grid_pays) from cpu_cells_min_pairs on.
template <class T, int D, class F, class Cells, class Brute>
auto range_limited_on_cpu(execution_policy const& exec, pair_set<points<T, D>> const& pairs, within_cutoff<T> const& rg,
                          F const& f, Cells&& on_cells, Brute&& brute)
{
  auto const cpu = twobody::exec::cpu.with_progress(exec.progress);
  pair_search use = rg.search;
  if (use == pair_search::automatic && static_cast<double>(pairs.count()) < cpu_cells_min_pairs) { use = pair_search::brute_force; }
  if (use != pair_search::brute_force) {
    validate(pairs);
    check_host_readable(pairs);
    points<T, D> const& indexed = pairs.mode == pair_mode::cross ? pairs.b : pairs.a;
    bool periodic_ok = true;
    if constexpr (has_periodic_box<F>) {
      auto const box = box_of<D, T>(f);
      periodic_ok    = inside_box(pairs.a, box) && (pairs.mode != pair_mode::cross || inside_box(pairs.b, box));
      TWOBODY_EXPECTS(periodic_ok || use != pair_search::grid,
                      "cells of a periodic box need every coordinate in [0, box): use brute force for others");
    }
    if (periodic_ok) {
      auto const cells = [&] {
        if constexpr (has_periodic_box<F>) {
          return cpu::cell_list<T, D>(indexed, static_cast<double>(rg.cutoff), box_of<D, T>(f));
        } else {
          return cpu::cell_list<T, D>(indexed, static_cast<double>(rg.cutoff));
        }
      }();
      if (use == pair_search::grid || grid_pays(cells.geometry(), static_cast<double>(pairs.count()), cpu_cells_min_pairs)) {
        if (rg.chosen != nullptr) { *rg.chosen = pair_search::grid; }
        return on_cpu_backend(cpu, [&] { return on_cells(cells, pairs.mode == pair_mode::cross ? &pairs.a : nullptr); });
      }
    }
  }
  if (rg.chosen != nullptr) { *rg.chosen = pair_search::brute_force; }
  return brute(cpu);
}

/// Runs a range-limited statistic of f: on the CPU backend through range_limited_on_cpu; on
/// the GPU brute(policy) for brute force (a statistic's one-call dispatch, which checks the
/// pairs), on_grid(index, cross queries or null) when a grid is used (the pairs checked here,
/// before the grid is built).
template <class T, int D, class F, class Run, class Cells, class Brute>
auto range_limited(execution_policy const& exec, pair_set<points<T, D>> const& pairs, within_cutoff<T> const& rg, F const& f,
                   char const* what, Run&& on_grid, Cells&& on_cells, Brute&& brute)
{
  TWOBODY_EXPECTS(pairs.mode != pair_mode::ordered, "range-limited statistics take self or cross pairs");
  pair_search use = rg.search;
  if (!runs_on_gpu(exec, what)) { return range_limited_on_cpu(exec, pairs, rg, f, on_cells, brute); }
  cudaStream_t const stream = exec.stream;
  execution_policy const gpu = twobody::exec::gpu.on(stream).with_progress(exec.progress);
  points<T, D> const& indexed = pairs.mode == pair_mode::cross ? pairs.b : pairs.a;
  if (use == pair_search::automatic && static_cast<double>(pairs.count()) < double(1 << 24)) {
    use = pair_search::brute_force;  // too small for a grid to pay: skip the build
  }
  if (use == pair_search::brute_force) {
    if (rg.chosen != nullptr) { *rg.chosen = use; }
    return brute(gpu);
  }
  validate(pairs);
  grid_index<T, D> const index = grid_for(indexed, rg.cutoff, f, stream);
  if (use == pair_search::automatic) {
    use = grid_pays(index.geometry(), static_cast<double>(pairs.count())) ? pair_search::grid : pair_search::brute_force;
  }
  if (rg.chosen != nullptr) { *rg.chosen = use; }
  if (use == pair_search::brute_force) { return brute(gpu); }
  return with_gpu_progress(exec.progress, pairs.count(), stream,
                           [&] { return on_grid(index, pairs.mode == pair_mode::cross ? &pairs.a : nullptr); });
}

/// count_pairs with a cutoff (grid.cuh): through the grid or the one-call count.
template <class T, int D, class Pred>
unsigned long long grid_count_on(execution_policy const& exec, pair_set<points<T, D>> const& pairs, Pred const& pred,
                                 within_cutoff<T> const& rg)
{
  using C = unsigned long long;
  return range_limited(
    exec, pairs, rg, pred, "count_pairs",
    [&](grid_index<T, D> const& index, points<T, D> const* cross) { return grid_count(index, cross, pred, rg.grid, exec.stream); },
    [&](cpu::cell_list<T, D> const& cells, points<T, D> const* cross) { return cpu::count_pairs(cells, cross, pred, rg.grid.stats); },
    [&](execution_policy const& e) {
      return reduce_on<input::automatic, points<T, D>, Pred, cuda::std::plus<C>, C, count_inner_t<points<T, D>>>(
        e, "count_pairs", pairs, pred, cuda::std::plus<C>{}, C{});
    });
}

/// histogram with a cutoff (grid.cuh): through the grid or the one-call histogram.
template <class T, int D, class F, class Binning>
histogram_result<unsigned long long> grid_histogram_on(execution_policy const& exec, pair_set<points<T, D>> const& pairs,
                                                       F const& f, Binning const& bins, within_cutoff<T> const& rg)
{
  check_bins_accept<F, Binning>();
  return range_limited(
    exec, pairs, rg, f, "histogram",
    [&](grid_index<T, D> const& index, points<T, D> const* cross) {
      return grid_histogram(index, cross, f, bins, rg.grid, exec.stream);
    },
    [&](cpu::cell_list<T, D> const& cells, points<T, D> const* cross) { return cpu::histogram(cells, cross, f, bins, rg.grid.stats); },
    [&](execution_policy const& e) { return histogram_on(e, pairs, f, bins); });
}

}  // namespace detail

}  // namespace twobody
