/// \file histogram_launch.cuh
/// \brief The privatized-histogram launch shared by the one-call histogram (dispatch/), its
/// explicit forms, the grid histograms and the host layer: argument checks, counter types,
/// flush limits, and one launch that acts on a layout of copies and windows.
#pragma once

#include <twobody/detail/cell_list_traversal.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/dispatch/auto_policy.cuh>
#include <twobody/math/bin_slot.cuh>
#include <twobody/model/histogram_plan.cuh>
#include <twobody/model/policy.cuh>
#include <twobody/output/cluster_histogram.cuh>
#include <twobody/output/global_atomics.cuh>
#include <twobody/output/privatized_histogram.cuh>
#include <twobody/points.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/staging.cuh>
#include <twobody/util/validate.cuh>
#include <twobody/util/zeroed_scratch.cuh>
#include <twobody/value_traits.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <limits>

namespace twobody {
namespace detail {

template <class F, class Points, class Count, class Binning>
void check_histogram_args(pair_set<Points> const& pairs, Binning const& bins, Count const* d_counts)
{
  check_bins_accept<F, Binning>();
  static_assert(cuda::std::is_same_v<Count, unsigned long long> || cuda::std::is_same_v<Count, double>,
                "twobody::histogram: counts must be unsigned long long (or double for weighted point sets)");
  static_assert(!Points::weighted || cuda::std::is_floating_point_v<Count>,
                "twobody::histogram: a weighted point set needs double counts");
  validate(pairs);
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram: need at least one bin");
  TWOBODY_EXPECTS(bins.size() < std::numeric_limits<int>::max() - 1, "histogram: too many bins");
  TWOBODY_EXPECTS(d_counts != nullptr, "histogram: the counts pointer is null");
}

/// Shared counters: 32-bit for plain counts (flushed before they can wrap), Count otherwise.
template <class Count>
using shared_counter_t = cuda::std::conditional_t<cuda::std::is_same_v<Count, unsigned long long>, unsigned int, Count>;

template <class Counter>
constexpr unsigned long long flush_limit_for(unsigned long long max_increments_per_tile)
{
  if constexpr (cuda::std::is_same_v<Counter, unsigned int>) {
    return 0xffffffffull - max_increments_per_tile;
  } else {
    return 1ull << 50;  // floating sums: exact integers up to 2^53, far from any precision issue
  }
}

template <class Input>
constexpr unsigned long long max_increments_per_tile()
{
  if constexpr (Input::tiled) {
    unsigned long long const ts = static_cast<unsigned long long>(tile_points_v<Input>);
    return ts * ts;
  } else {
    return static_cast<unsigned long long>(Input::block_threads) * 4096ull;
  }
}

/// How a one-pass privatized kernel with params `p` (of p.window_size slots of p.counts) finds its
/// output zero: given `mirror` (mapped host memory and the ticket of p.counts' zeroed scratch), it
/// counts into that scratch and its last block copies the result out; else it zeroes the output
/// itself behind a grid barrier if `cooperative` launches may be used; else a memset comes first.
/// Sets p's fields; returns whether the kernel is launched cooperatively.
template <class Params, class Count>
bool prepare_one_pass_output(Params& p, result_mirror<Count> mirror, bool cooperative, cudaStream_t stream)
{
  if (mirror.to != nullptr && mirror.ticket != nullptr) {
    p.mirror = mirror.to;
    p.ticket = mirror.ticket;
    return false;
  }
  if (!cooperative) { TWOBODY_CUDA_TRY(cudaMemsetAsync(p.counts, 0, sizeof(Count) * p.window_size, stream)); }
  p.zero_counts = cooperative;
  return cooperative;
}

/// The privatized-histogram kernel of an input policy (one pass, windows of the bin range, or
/// one window with the other slots spilled to global atomics).
template <class Input, class Points, class F, class Binning, class Count, window_mode Mode>
using privatized_kernel =
  pair_kernel<Input, privatized_histogram_agent<Binning, Count, shared_counter_t<Count>, Input::block_threads, Mode>,
              Points, F>;

/// Launches the privatized histogram with `layout` (copies, windows, shared memory) on pairs the
/// kernels can read (at least one pair), and zeroes d_counts first: one pass over a tiled input
/// is one cooperative kernel that zeroes its own output (the small-set floor is launches),
/// otherwise a memset comes first. Given `mirror` (mapped host memory `to`, and the ticket of
/// d_counts' zeroed scratch), a one-pass kernel neither zeroes nor waits at a grid barrier: its
/// last block copies the result to mirror.to and zeroes d_counts. Returns whether it did.
///
/// `boxes_a` and `boxes_b` (tile_order.cuh, for this input's tile size and `sub_tiles`) let
/// functors with tile forms take the cheapest exact form per tile pair.
template <class Input, class Points, class F, class Binning, class Count>
bool launch_privatized(pair_set<Points> const& dev, F const& f, Binning const& bins, Count* d_counts,
                       privatized_plan const& layout, cudaStream_t stream, result_mirror<Count> mirror = {},
                       tile_box<typename Points::value_type, Points::dims> const* boxes_a = nullptr,
                       tile_box<typename Points::value_type, Points::dims> const* boxes_b = nullptr, int sub_tiles = 1)
{
  using Counter = shared_counter_t<Count>;
  int const slots = bins.size() + 1;
  unsigned long long const limit = flush_limit_for<Counter>(max_increments_per_tile<Input>());
  TWOBODY_EXPECTS(!layout.spill, "internal: a spilling layout launches with launch_spilling");
  if (layout.passes == 1) {
    using single = privatized_kernel<Input, Points, F, Binning, Count, window_mode::none>;
    launch_plan lp = single::plan(dev, layout.smem);
    typename single::params p{bins, d_counts, layout.copies, 0, slots, limit};
    // (Without a block, nothing would copy the result out: the output is zeroed instead.)
    lp.cooperative = prepare_one_pass_output(p, lp.grid > 0 ? mirror : result_mirror<Count>{},
                                             Input::tiled && cooperative_launches(), stream);
    single::launch(lp, dev, f, p, stream, boxes_a, boxes_b, sub_tiles);
    return p.mirror != nullptr;
  }
  TWOBODY_CUDA_TRY(cudaMemsetAsync(d_counts, 0, sizeof(Count) * slots, stream));
  using windowed = privatized_kernel<Input, Points, F, Binning, Count, window_mode::passes>;
  auto const lp  = windowed::plan(dev, layout.smem);
  // The windows spread over the slots (detail::pass_windows): with tile boxes a pass visits only
  // the tile pairs it counts.
  pass_windows const windows{slots, layout.window, layout.passes};
  for (int pass = 0; pass < layout.passes; ++pass) {
    typename windowed::params p{bins, d_counts, layout.copies, windows.begin(pass), layout.window, limit, false, nullptr, windows, pass};
    windowed::launch(lp, dev, f, p, stream, boxes_a, boxes_b, sub_tiles);
  }
  return false;
}

/// Launches the spilling histogram (`layout` from plan_spill: one pass, one copy of the slots
/// layout.window_begin .. + layout.window in shared memory, the other slots' updates to global
/// atomics, the outside slot in per-lane shared counters) on pairs the kernels can read (at
/// least one pair), after zeroing d_counts (the spilled updates land there during the pass).
template <class Input, class Points, class F, class Binning, class Count>
void launch_spilling(pair_set<Points> const& dev, F const& f, Binning const& bins, Count* d_counts,
                     privatized_plan const& layout, cudaStream_t stream)
{
  using Counter   = shared_counter_t<Count>;
  using spilling  = privatized_kernel<Input, Points, F, Binning, Count, window_mode::spill>;
  int const slots = bins.size() + 1;
  TWOBODY_EXPECTS(layout.spill && layout.copies == 1 && layout.window_begin >= 0 && layout.window >= 1 &&
                    layout.window_begin + layout.window <= slots,
                  "histogram: the spill window is not inside the slots");
  TWOBODY_CUDA_TRY(cudaMemsetAsync(d_counts, 0, sizeof(Count) * slots, stream));
  typename spilling::params p{bins, d_counts, 1, layout.window_begin, layout.window,
                              flush_limit_for<Counter>(max_increments_per_tile<Input>())};
  spilling::launch(spilling::plan(dev, layout.smem), dev, f, p, stream);
}

/// The one-pass histogram over the cells of a periodic box (cell_list_traversal.cuh), one copy.
template <class Points, class F, class Binning, class Count>
struct cell_list_kernel {
  using traversal = cell_list_traversal<Points>;
  using agent =
    privatized_histogram_agent<Binning, Count, shared_counter_t<Count>, traversal::block_threads, window_mode::none>;
  using visitor   = statistic_visitor<agent, F>;
  static constexpr auto kernel = &pair_engine_kernel<traversal, visitor, static_units>;
};

/// The cells of f's box where they serve `pairs` (cell_list_traversal.cuh): a self set of 2 to
/// cell_list_max_points points, a statistic whose reach leaves at least 3 cells per axis, and
/// one copy of the slots beside the cells' own shared memory; else a grid that is not usable().
template <class Points, class F, class Binning>
cell_grid<Points::dims> cell_list_grid(pair_set<Points> const& pairs, F const& f, Binning const& bins)
{
  if constexpr (cell_list_serves_v<Points, F, Binning>) {
    bool const served = pairs.mode == pair_mode::self && pairs.a.size >= 2 && pairs.a.size <= cell_list_max_points &&
                        bins.size() < (1 << 14);
    return served ? cell_grid_of(f, bins) : cell_grid<Points::dims>{};
  } else {
    return {};
  }
}

/// Whether the cells of f's box serve `pairs` (cell_list_grid).
template <class Points, class F, class Binning>
bool cell_list_serves(pair_set<Points> const& pairs, F const& f, Binning const& bins)
{
  return cell_list_grid(pairs, f, bins).usable();
}

/// Whether the one-call histogram of `pairs` takes the cells of f's box: where they serve it,
/// from cell_list_min_points points, and with at most cell_list_max_share of all pairs to visit.
template <class Points, class F, class Binning>
bool cell_list_pays(pair_set<Points> const& pairs, F const& f, Binning const& bins)
{
  auto const g = cell_list_grid(pairs, f, bins);
  return g.usable() && pairs.a.size >= cell_list_min_points && g.visited_share() <= cell_list_max_share;
}

/// Launches the histogram over the cells of f's box (pairs they serve), zeroing
/// d_counts first as launch_privatized does (in the kernel where launches are cooperative); with
/// `mirror`, its last block copies the result there instead. Returns whether it did.
template <class Points, class F, class Binning, class Count>
bool launch_cell_list(pair_set<Points> const& dev, F const& f, Binning const& bins, Count* d_counts, cudaStream_t stream,
                      result_mirror<Count> mirror = {})
{
  using K       = cell_list_kernel<Points, F, Binning, Count>;
  using Counter = shared_counter_t<Count>;
  typename K::traversal::params const walk{dev.a, cell_list_grid(dev, f, bins)};
  TWOBODY_EXPECTS(walk.grid.usable(), "histogram: a cell-list plan for pairs its cells do not serve");
  int const slots         = bins.size() + 1;
  std::size_t const smem  = launch_smem<typename K::traversal, K::kernel>(sizeof(Counter) * static_cast<std::size_t>(slots));
  auto const n            = static_cast<unsigned long long>(dev.a.size);
  unsigned long long const units = (n + K::traversal::owned - 1) / K::traversal::owned;
  int const grid          = persistent_grid(K::kernel, K::traversal::block_threads, smem, units);
  typename K::agent::params p{bins, d_counts, 1, 0, slots, flush_limit_for<Counter>(K::traversal::owned * n)};
  bool const cooperative = prepare_one_pass_output(p, mirror, cooperative_launches(), stream);
  cudaLaunchAttribute attrs[2]{};
  cudaLaunchConfig_t const cfg = launch_config(grid, K::traversal::block_threads, smem, 0, cooperative, stream, attrs);
  TWOBODY_CUDA_TRY(cudaLaunchKernelEx(&cfg, K::kernel, walk, typename K::visitor::params{p, f}, static_units::params{units}));
  return p.mirror != nullptr;
}

/// The cluster-shared histogram kernel of an input policy (output/cluster_histogram.cuh).
template <class Input, class Points, class F, class Binning, class Count>
using cluster_kernel =
  pair_kernel<Input, cluster_histogram_agent<Binning, Count, shared_counter_t<Count>, Input::block_threads>, Points, F>;

/// Launches the cluster-shared histogram with `layout` (layout.cluster >= 1) on pairs the
/// kernels can read (at least one pair), after zeroing d_counts. The flush schedule is fixed per launch so
/// that every block of a cluster meets the same barriers (see cluster_histogram_agent).
///
/// `flush_every_max` shortens the flush period (tests exercise the flushes with it).
template <class Input, class Points, class F, class Binning, class Count>
void launch_cluster(pair_set<Points> const& dev, F const& f, Binning const& bins, Count* d_counts,
                    privatized_plan const& layout, cudaStream_t stream, unsigned long long flush_every_max = ~0ull)
{
  static_assert(Input::tiled, "cluster histograms need a tiled input policy");
  using Counter = shared_counter_t<Count>;
  using kernel  = cluster_kernel<Input, Points, F, Binning, Count>;
  TWOBODY_EXPECTS(layout.cluster >= 1 && layout.cluster <= max_cluster_blocks, "cluster_privatized: bad cluster size");
  TWOBODY_CUDA_TRY(cudaMemsetAsync(d_counts, 0, sizeof(Count) * (bins.size() + 1), stream));
  auto const lp = kernel::plan(dev, layout.smem, layout.cluster);
  if (lp.grid == 0) { return; }
  // Every counter takes updates from all blocks of the cluster: flush before
  // cluster x units x (increments per unit) can reach the counter's limit.
  unsigned long long const per_period = static_cast<unsigned long long>(layout.cluster) * max_increments_per_tile<Input>();
  unsigned long long const flush_every = std::min(flush_limit_for<Counter>(0) / per_period, flush_every_max);
  TWOBODY_EXPECTS(flush_every >= 1, "cluster_privatized: tiles too large for 32-bit shared counters");
  unsigned long long const units_min = static_cast<unsigned long long>(kernel::schedule(dev).total) / lp.grid;
  int const slots = bins.size() + 1;
  for (int pass = 0; pass < layout.passes; ++pass) {
    int const begin = pass * layout.window;
    int const size  = slots - begin < layout.window ? slots - begin : layout.window;
    typename kernel::params p{bins,  d_counts, layout.cluster, cluster_rank_divisor(layout.cluster), layout.copies,
                              begin, size,     flush_every,    units_min / flush_every};
    kernel::launch(lp, dev, f, p, stream);
  }
}

/// The global-atomics histogram kernel of an input policy (output/global_atomics.cuh).
template <class Input, class Points, class F, class Binning, class Count>
using global_kernel = pair_kernel<Input, global_histogram_agent<Binning, Count, Input::block_threads>, Points, F>;

/// One global atomic per pair, on pairs the kernels can read (at least one pair), after
/// zeroing d_counts.
template <class Input, class Points, class F, class Binning, class Count>
void launch_global(pair_set<Points> const& dev, F const& f, Binning const& bins, Count* d_counts, cudaStream_t stream)
{
  using kernel = global_kernel<Input, Points, F, Binning, Count>;
  TWOBODY_CUDA_TRY(cudaMemsetAsync(d_counts, 0, sizeof(Count) * (bins.size() + 1), stream));
  kernel::launch(kernel::plan(dev, 0), dev, f, typename kernel::params{bins, d_counts}, stream);
}

/// The kernels the one-call histogram compiles for each input (the planner reads their resources).
template <class Points, class F, class Binning, class Count>
struct histogram_kernels {
  template <class Input>
  using global = global_kernel<Input, Points, F, Binning, Count>;
  template <class Input>
  using single = privatized_kernel<Input, Points, F, Binning, Count, window_mode::none>;
  template <class Input>
  using passes = privatized_kernel<Input, Points, F, Binning, Count, window_mode::passes>;
  template <class Input>
  using spill = privatized_kernel<Input, Points, F, Binning, Count, window_mode::spill>;
  template <class Input>
  using cluster = cluster_kernel<Input, Points, F, Binning, Count>;
};

/// The explicit forms: `copies` asked for, fewer (or windows) where shared memory is short.
template <class Input, class Points, class F, class Binning, class Count>
void privatized_histogram(pair_set<Points> const& pairs, F const& f, Binning const& bins, Count* d_counts,
                          int copies, cudaStream_t stream)
{
  check_histogram_args<F>(pairs, bins, d_counts);
  TWOBODY_EXPECTS(copies >= 1 && copies <= 32, "warp_privatized: copies must be in [1, 32]");
  require_device_pointer(d_counts, "histogram: d_counts");
  int const slots = bins.size() + 1;
  if (pairs.count() == 0) {
    TWOBODY_CUDA_TRY(cudaMemsetAsync(d_counts, 0, sizeof(Count) * slots, stream));
    return;
  }
  staged_pairs<Points> const staged(pairs, stream);
  using single = privatized_kernel<Input, Points, F, Binning, Count, window_mode::none>;
  privatized_plan const layout =
    plan_privatized(slots, copies, sizeof(shared_counter_t<Count>), single::dynamic_smem_limit());
  launch_privatized<Input>(staged.pairs(), f, bins, d_counts, layout, stream);
}

/// The explicit cluster form: `cluster` blocks per cluster and `copies` per share, or the cost
/// model's choice for whichever is 0.
template <class Input, class Points, class F, class Binning, class Count>
void cluster_histogram(pair_set<Points> const& pairs, F const& f, Binning const& bins, Count* d_counts, int cluster,
                       int copies, cudaStream_t stream)
{
  using Counter = shared_counter_t<Count>;
  using kernel  = cluster_kernel<Input, Points, F, Binning, Count>;
  check_histogram_args<F>(pairs, bins, d_counts);
  require_device_pointer(d_counts, "histogram: d_counts");
  TWOBODY_EXPECTS(cluster >= 0 && cluster <= max_cluster_blocks,
                  "cluster_privatized: cluster_blocks must be in [1, 16] (0: chosen by the cost model)");
  TWOBODY_EXPECTS(copies >= 0 && copies <= 32, "cluster_privatized: copies must be in [1, 32] (0: chosen by the cost model)");
  require_thread_block_clusters();
  int const slots = bins.size() + 1;
  if (pairs.count() == 0) {
    TWOBODY_CUDA_TRY(cudaMemsetAsync(d_counts, 0, sizeof(Count) * slots, stream));
    return;
  }
  privatized_plan layout;
  if (cluster != 0 && copies != 0) {
    layout = plan_cluster(slots, cluster, copies, sizeof(Counter), kernel::dynamic_smem_limit());
  } else {
    input_candidate const c  = candidate_of<Input, kernel>(output::cluster_privatized::kind);
    policy_plan const chosen = model::choose_cluster_layout(histogram_problem<Counter, F>(pairs, slots), device_info::get(), c,
                                                            cluster, copies);
    layout = {chosen.copies, chosen.window, chosen.passes, chosen.dynamic_smem, chosen.cluster};
  }
  staged_pairs<Points> const staged(pairs, stream);
  launch_cluster<Input>(staged.pairs(), f, bins, d_counts, layout, stream);
}

/// The explicit global-atomics form: one global atomic per pair.
template <class Input, class Points, class F, class Binning, class Count>
void global_histogram(pair_set<Points> const& pairs, F const& f, Binning const& bins, Count* d_counts, cudaStream_t stream)
{
  check_histogram_args<F>(pairs, bins, d_counts);
  require_device_pointer(d_counts, "histogram: d_counts");
  if (pairs.count() == 0) {
    TWOBODY_CUDA_TRY(cudaMemsetAsync(d_counts, 0, sizeof(Count) * (bins.size() + 1), stream));
    return;
  }
  staged_pairs<Points> const staged(pairs, stream);
  launch_global<Input>(staged.pairs(), f, bins, d_counts, stream);
}

}  // namespace detail

}  // namespace twobody
