/// \file histogram.cuh (dispatch)
/// \brief The histograms' dispatch: the one-call forms check their arguments once, the cost
/// model plans once per problem (input policy, private copies, windows, shared memory) and the
/// launch acts on that whole plan. The host layer plans once for all its block pairs and hands
/// the plan in (run_planned_histogram).
#pragma once

#include <twobody/cpu/backend.cuh>
#include <twobody/detail/tile_order.cuh>
#include <twobody/dispatch/auto_policy.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/dispatch/histogram_launch.cuh>
#include <twobody/dispatch/histogram_sample.cuh>
#include <twobody/execution.cuh>
#include <twobody/model/policy.cuh>
#include <twobody/points.cuh>
#include <twobody/results.cuh>
#include <twobody/util/device_info.cuh>
#include <twobody/util/gpu_progress.cuh>
#include <twobody/util/pinned_array.cuh>
#include <twobody/util/staging.cuh>
#include <twobody/util/zeroed_scratch.cuh>

#include <cuda/std/type_traits>
#include <cuda_runtime_api.h>

#include <cstring>
#include <vector>

namespace twobody {

namespace detail {

/// Whether `stream` is being captured into a CUDA graph (no synchronous step may run then).
inline bool stream_capturing(cudaStream_t stream)
{
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  TWOBODY_CUDA_TRY(cudaStreamIsCapturing(stream, &status));
  return status != cudaStreamCaptureStatusNone;
}

/// For a histogram past shared memory (`plan` in passes or global atomics): the spilling plan
/// (one pass; the window of slots where a sample of the pairs falls most, and the outside slot,
/// in shared memory, the other slots' updates to global atomics) when the cost model predicts
/// it faster, else `plan`.
/// Samples the data: one small kernel and a synchronous copy on `stream`.
template <class Kernels, class Points, class F, class Binning>
policy_plan with_spill_considered(pair_set<Points> const& pairs, F const& f, Binning const& bins, problem const& p,
                                  policy_plan const& plan, cudaStream_t stream)
{
  bool const past_shared = (plan.output == output::warp_privatized::kind && plan.passes > 1) ||
                           plan.output == output::global_atomics::kind;
  // Shapes without data (the host layer plans a block pair's shape) have nothing to sample.
  bool const has_data = pairs.a.coords[0] != nullptr && pairs.b.coords[0] != nullptr;
  if (!past_shared || !has_data || plan.forced || pairs.count() == 0 || active_runtime_source() != nullptr ||
      stream_capturing(stream)) {
    return plan;
  }
  std::vector<input_candidate> const spill = candidates_of<Kernels::template spill>(spill_histogram_inputs<Points>{});
  device_info const& dev = device_info::get();
  std::vector<unsigned long long> sample;  // taken once, for the first candidate that needs it
  policy_plan best = plan;
  for (input_candidate const& c : spill) {
    model::layout_basis const b = model::layout_basis_of(p, dev, c);
    long long const window      = window_slots(b.counter_bytes, b.smem_left);
    if (window < 1 || window >= p.slots) { continue; }
    if (sample.empty()) { sample = sample_slot_counts(pairs, f, bins, stream); }
    spill_window const w      = densest_window(sample, static_cast<int>(window));
    policy_plan const spilling = model::choose_spill_layout(p, dev, c, w.begin, static_cast<int>(window), w.spilled_share, w.spilled_slots);
    if (spilling.predicted_seconds < best.predicted_seconds) { best = spilling; }
  }
  return best;
}

/// Whether passes over windows of the bins decide per sub-tile pair the tile pairs that lie in no
/// one window (tile_traversal.cuh): past 2 passes. In 2 passes the staging and the decisions cost
/// more than they save ((r_p, pi), 65536 bins, H100: 0.856 s per sub-tile pair, 0.81 s per tile
/// pair); past them they gain (262144 bins: 1.32 s against 1.55 s; the SDH's 262144 bins 0.43 s
/// against 0.68 s; bench_bins {sdh,rp_pi}/bins:262144/one_call).
inline bool passes_decide_sub_tile_pairs(int passes) { return passes > 2; }

/// The sub-tiles per tile that points ordered for Input's kernels with functor F in `passes`
/// passes are cut into: one per warp (the block's warps share the columns: no column groups)
/// where the forms are chosen per warp and column sub-tile (the minimum image) or passes over
/// windows of the bins decide per sub-tile pair; else none (1).
template <class Input, class F>
int ordered_sub_tiles(int passes)
{
  return column_groups_v<Input> == 1 && (has_sub_tile_forms_v<F> || passes_decide_sub_tile_pairs(passes)) ? Input::block_threads / 32
                                                                                                           : 1;
}

/// Whether input candidate c (of ordered_passes_inputs) is one the planner prices ordered passes
/// on: shared tiles of 1024 points and more (smaller ones give many more tile pairs to look at
/// per pass), without column groups.
inline bool takes_ordered_passes(input_candidate const& c)
{
  return c.input == input::shared_tile<>::kind && c.column_groups == 1 && c.tile_points() >= 1024;
}

/// The planner's sample of the slots of the tile pairs (and sub-tile pairs, which its kernels
/// decide on: ordered_sub_tiles) of `pairs` ordered for candidate c (sample_tile_pair_slots).
template <class Points, class F, class Binning>
std::vector<tile_pair_slots> ordered_passes_sample(pair_set<Points> const& pairs, F const& f, Binning const& bins,
                                                   input_candidate const& c, cudaStream_t stream)
{
  int const sub_tiles = c.column_groups == 1 ? c.block_threads / 32 : 1;
  return sample_tile_pair_slots(pairs, f, bins, static_cast<int>(c.tile_points()), stream, 1 << 13, sub_tiles);
}

/// What passes over `windows` visit of the sample's tile pairs with functor F: its sub-tile pairs
/// decided on their own where the kernels will (ordered_sub_tiles), else as their tile pairs.
template <class F>
pass_visits ordered_passes_visits(std::vector<tile_pair_slots> const& sample, pass_windows const& windows)
{
  return visits_of(sample, windows, has_sub_tile_forms_v<F> || passes_decide_sub_tile_pairs(windows.passes));
}

/// For a histogram past shared memory of points the one-call form orders into tiles (SingleF a
/// tile_formed functor and a bin map with slot bounds): passes over spread windows, which visit
/// only the tile pairs whose slots they count (model::choose_ordered_passes), when the cost model
/// predicts them faster than `plan`. Orders the data once per input's tile size (a sample of the
/// tile pairs' slots; the run orders again) with a synchronous copy on `stream`.
template <class Kernels, class Points, class F, class Binning>
policy_plan with_ordered_passes_considered(pair_set<Points> const& pairs, F const& f, Binning const& bins, problem const& p,
                                           policy_plan const& plan, cudaStream_t stream)
{
  bool const past_shared = plan.spill || plan.output == output::global_atomics::kind || plan.passes > 1 ||
                           (plan.output == output::cluster_privatized::kind);
  bool const has_data = pairs.a.coords[0] != nullptr && pairs.b.coords[0] != nullptr;
  if (!past_shared || !has_data || plan.forced || pairs.count() == 0 || active_runtime_source() != nullptr ||
      stream_capturing(stream)) {
    return plan;
  }
  device_info const& dev = device_info::get();
  policy_plan best       = plan;
  for (input_candidate const& c : candidates_of<Kernels::template passes>(ordered_passes_inputs<Points>{})) {
    if (!takes_ordered_passes(c)) { continue; }
    std::vector<tile_pair_slots> const sample = ordered_passes_sample(pairs, f, bins, c, stream);
    policy_plan const ordered =
      model::choose_ordered_passes(p, dev, c, [&](pass_windows const& w) { return ordered_passes_visits<F>(sample, w); });
    if (ordered.predicted_seconds < best.predicted_seconds) { best = ordered; }
  }
  return best;
}

/// plan_histogram with the one-pass candidates' resources read from the kernels of SingleF, and
/// the ordered passes' from those of PassesF (a tile_formed functor: considered; else not).
template <class Count, class SingleF, class PassesF = SingleF, class Points, class F, class Binning>
policy_plan plan_histogram_of(pair_set<Points> const& pairs, F const& f, Binning const& bins, cudaStream_t stream)
{
  using C = cuda::std::conditional_t<cuda::std::is_void_v<Count>, pair_count_t<Points>, Count>;
  using Counter = detail::shared_counter_t<C>;
  problem const p = detail::histogram_problem<Counter, F>(pairs, bins.size() + 1);
  using kernels               = detail::histogram_kernels<Points, F, Binning, C>;
  using single_kernels        = detail::histogram_kernels<Points, SingleF, Binning, C>;
  policy_plan const plan = detail::cached_plan<single_kernels>(p, [] {
    std::vector<input_candidate> candidates =
      detail::candidates_of<single_kernels::template single>(detail::histogram_inputs<Points>{});
    auto add = [&](std::vector<input_candidate> const& more) { candidates.insert(candidates.end(), more.begin(), more.end()); };
    if (device_info::get().cc_major >= 9) {  // thread-block clusters
      add(detail::candidates_of<kernels::template cluster>(detail::cluster_histogram_inputs<Points>{},
                                                           output::cluster_privatized::kind));
    }
    add(detail::candidates_of<kernels::template global>(detail::global_histogram_inputs<Points>{}, output::global_atomics::kind));
    return candidates;
  });
  policy_plan const chosen = detail::with_spill_considered<kernels>(pairs, f, bins, p, plan, stream);
  if constexpr (has_tile_forms_v<PassesF> && has_slot_bounds<Binning>::value) {
    using passes_kernels = detail::histogram_kernels<Points, PassesF, Binning, C>;
    return detail::with_ordered_passes_considered<passes_kernels>(pairs, f, bins, p, chosen, stream);
  } else {
    return chosen;
  }
}

/// plan_histogram over tiles (the cost model's plan).
template <class Count, class Points, class F, class Binning>
policy_plan plan_histogram_tiles(pair_set<Points> const& pairs, F const& f, Binning const& bins, cudaStream_t stream)
{
  if constexpr (detail::forms_gain_v<F, Binning>) {
    // Sets the one-pass histogram orders into tiles run the tile forms' kernels: plan with
    // their registers (the 2048-point tile's take an SM's second block).
    if (detail::tile_order_pays<F>(pairs)) { return detail::plan_histogram_of<Count, detail::tile_formed<F>>(pairs, f, bins, stream); }
  } else if constexpr (detail::passes_gain_v<F, Binning>) {
    // Bounds that gain only in passes over windows of the bins ((r_p, pi)): one pass runs F's
    // own kernels on the points as given; passes may run the tile forms' on ordered points.
    if (detail::tile_order_pays<F>(pairs)) {
      return detail::plan_histogram_of<Count, F, detail::tile_formed<F>>(pairs, f, bins, stream);
    }
  }
  return detail::plan_histogram_of<Count, F>(pairs, f, bins, stream);
}

}  // namespace detail

/// The plan the one-call histogram runs for these arguments: input policy, private copies,
/// occupancy and predicted time from the cost model (model/policy.cuh). Needs a GPU (it reads
/// the kernels' register counts); TWOBODY_POLICY forces parts of it. Histograms past shared
/// memory may take a spilling plan, chosen from a sample of the pairs' bins (one small kernel
/// and a synchronous copy on `stream`; not while `stream` is being captured).
/// Small self sets of a short-range statistic in a wide periodic box take the cells of the box
/// instead (`input cell_list`, docs/small-sets.md); a forced plan keeps the tiles.
template <class Count = void, class Points, class F, class Binning>
policy_plan plan_histogram(pair_set<Points> const& pairs, F const& f, Binning const& bins, cudaStream_t stream = 0)
{
  policy_plan plan = detail::plan_histogram_tiles<Count>(pairs, f, bins, stream);
  // Small self sets of a short-range statistic in a wide periodic box: one kernel over cells
  // that visits only the pairs of neighbouring cells (detail/cell_list_traversal.cuh).
  if (!plan.forced && detail::active_runtime_source() == nullptr && detail::cell_list_pays(pairs, f, bins)) {
    plan.cell_list = true;
    plan.output    = output::warp_privatized::kind;
    plan.copies    = 1;
    plan.passes    = 1;
    plan.window    = bins.size() + 1;
    plan.spill     = false;
    plan.cluster   = 0;
    plan.reason    = "a small self set in a periodic box of at least 3 cells of the bins' reach per axis: pairs of "
                     "neighbouring cells only (the others are outside)";
  }
  return plan;
}

namespace detail {

/// Whether `plan` runs one privatized kernel over all slots (run_planned_histogram can mirror
/// its result).
inline bool one_kernel_histogram(policy_plan const& plan)
{
  return plan.output == output::warp_privatized::kind && !plan.spill && plan.passes == 1;
}

/// The one-call histogram into device memory: `plan` (from plan_histogram, for these pairs or
/// a larger problem of the same shape) is acted on whole. Asynchronous on `stream`. With
/// `mirror` (mapped host memory for bins.size() + 1 counters, and the ticket of d_counts' zeroed
/// scratch), a one-kernel plan writes the result there instead and leaves d_counts zero; returns
/// whether it did (otherwise the result is in d_counts). The caller has checked the arguments
/// (check_histogram_args: histogram_to_device, histogram_on, the out-of-core drivers).
template <class Points, class F, class Binning, class Count>
bool run_planned_histogram(pair_set<Points> const& pairs, F const& f, Binning const& bins, Count* d_counts,
                           policy_plan const& plan, cudaStream_t stream, result_mirror<Count> mirror = {})
{
  TWOBODY_EXPECTS(plan.output == output::warp_privatized::kind || plan.output == output::cluster_privatized::kind ||
                    plan.output == output::global_atomics::kind,
                  "histogram: the plan is not a histogram's");
  TWOBODY_EXPECTS(plan.spill ? plan.window_begin >= 0 && plan.window_begin + plan.window <= bins.size() + 1
                             : plan.window * plan.passes >= bins.size() + 1,
                  "histogram: the plan is for fewer bins");
  if (pairs.count() == 0) {  // no launch: the launches below zero d_counts themselves
    TWOBODY_CUDA_TRY(cudaMemsetAsync(d_counts, 0, sizeof(Count) * (bins.size() + 1), stream));
    return false;
  }
  staged_pairs<Points> const staged(pairs, stream);
  if constexpr (cell_list_serves_v<Points, F, Binning>) {
    if (plan.cell_list) { return launch_cell_list(staged.pairs(), f, bins, d_counts, stream, mirror); }
  }
  TWOBODY_EXPECTS(!plan.cell_list, "histogram: a cell-list plan for a functor or bin map its cells do not serve");
  privatized_plan const layout{plan.copies, plan.window, plan.passes, plan.dynamic_smem, plan.cluster, plan.spill, plan.window_begin};
  if (plan.output == output::global_atomics::kind) {
    with_chosen_input(global_histogram_inputs<Points>{}, plan.input,
                      [&](auto in) { launch_global<decltype(in)>(staged.pairs(), f, bins, d_counts, stream); });
    return false;
  }
  if (plan.output == output::cluster_privatized::kind) {
    with_chosen_input(cluster_histogram_inputs<Points>{}, plan.input, [&](auto in) {
      launch_cluster<decltype(in)>(staged.pairs(), f, bins, d_counts, layout, stream);
    });
    return false;
  }
  if (plan.spill) {
    with_chosen_input(spill_histogram_inputs<Points>{}, plan.input, [&](auto in) {
      launch_spilling<decltype(in)>(staged.pairs(), f, bins, d_counts, layout, stream);
    });
    return false;
  }
  bool mirrored = false;
  // (Plans of ordered passes may take inputs of their own: ordered_passes_inputs.)
  using inputs = cuda::std::conditional_t<passes_gain_v<F, Binning>,
                                          typename concat_inputs<histogram_inputs<Points>, ordered_passes_inputs<Points>>::type,
                                          histogram_inputs<Points>>;
  with_chosen_input(inputs{}, plan.input, [&](auto in) {
    using Input = decltype(in);
    if constexpr (Input::tiled && passes_gain_v<F, Binning>) {
      // Functors with tile forms (the minimum image; the squared distance's bounds) run on
      // points ordered into compact tiles; those whose bounds gain only in passes over windows
      // of the bins ((r_p, pi)), in such passes only.
      if ((forms_gain_v<F, Binning> || plan.passes > 1) && tile_order_pays<F>(staged.pairs())) {
        tile_ordered_pairs<Points> const ordered(staged.pairs(), tile_points_v<Input>, ordered_sub_tiles<Input, F>(plan.passes), stream);
        mirrored = launch_privatized<Input>(ordered.pairs(), tile_formed<F>(f), bins, d_counts, layout, stream, mirror,
                                            ordered.boxes_a(), ordered.boxes_b(), ordered.sub_tiles());
        return;
      }
    }
    mirrored = launch_privatized<Input>(staged.pairs(), f, bins, d_counts, layout, stream, mirror);
  });
  return mirrored;
}

/// The one-call histogram into device memory (histogram.cuh): checks the arguments once,
/// plans, runs the plan. Asynchronous on `stream`.
template <class Points, class F, class Binning, class Count>
void histogram_to_device(pair_set<Points> const& pairs, F const& f, Binning const& bins, Count* d_counts,
                         cudaStream_t stream)
{
  check_histogram_args<F>(pairs, bins, d_counts);
  require_device_pointer(d_counts, "histogram: d_counts");
  run_planned_histogram(pairs, f, bins, d_counts, plan_histogram<Count>(pairs, f, bins, stream), stream);
}

/// The one-call histogram's GPU side of a host result: plan, the result buffer, run, copy back.
/// on_backend has checked the pairs, histogram_on the bins.
template <class Points, class F, class Binning>
histogram_result<pair_count_t<Points>> histogram_to_host(pair_set<Points> const& pairs, F const& f, Binning const& bins,
                                                         cudaStream_t stream)
{
  using Count             = pair_count_t<Points>;
  std::size_t const bytes = sizeof(Count) * (bins.size() + 1);
  policy_plan const plan  = plan_histogram<Count>(pairs, f, bins, stream);
  // A one-kernel plan counts into this thread's zeroed scratch, and its last block copies the
  // result into the mapped host buffer: no allocation, zeroing, grid barrier or copy back.
  auto const [host, mapped] = mapped_result_buffer(bytes);
  zeroed_scratch* const scratch = host != nullptr && one_kernel_histogram(plan) ? zeroed_scratch::of_thread(bytes) : nullptr;
  device_buffer d(scratch != nullptr ? 0 : bytes, stream);
  Count* const d_counts = scratch != nullptr ? scratch->as<Count>() : d.as<Count>();
  bool const mirrored   = run_planned_histogram(pairs, f, bins, d_counts, plan, stream,
                                                {static_cast<Count*>(mapped), scratch != nullptr ? scratch->ticket() : nullptr});
  std::vector<Count> all(bins.size() + 1);
  if (mirrored) {
    wait_for_stream(stream);
    if (scratch != nullptr) { scratch->settle(); }
    std::memcpy(all.data(), host, bytes);
  } else {  // (scratch that was not settled is zeroed again at its next use)
    copy_to_host_sync(all.data(), d_counts, all.size(), stream);
  }
  return histogram_result<Count>::from_slots(std::move(all), pairs.count());
}

/// The one-call histogram returned to the host (histogram.cuh): checks the bins; on_backend
/// checks the pairs and runs the CPU backend or histogram_to_host.
template <class Points, class F, class Binning>
histogram_result<pair_count_t<Points>> histogram_on(execution_policy const& exec, pair_set<Points> const& pairs, F const& f,
                                                    Binning const& bins)
{
  check_bins_accept<F, Binning>();
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram: need at least one bin");
  return on_backend(
    exec, "histogram", pairs, [&] { return cpu::histogram(pairs, f, bins); },
    [&](cudaStream_t stream) { return histogram_to_host(pairs, f, bins, stream); });
}

}  // namespace detail
}  // namespace twobody
