/// \file grid_join.cuh
/// \brief Joins over a grid_index: eps-joins and any predicate that is false beyond the
/// index's cutoff, visiting only pairs in adjacent cells, through the direct output buffer
/// (rounds with rollback and resume, host streaming) as the brute-force joins of join.cuh.
///
///     twobody::grid_index<float, 3> grid(pts, 0.5f);
///     auto near  = twobody::pairs_within(grid, 0.5f);            // self: index pairs, i < j
///     auto near2 = twobody::pairs_within(grid, 0.25f);           // any eps <= the cutoff, same index
///     auto ab    = twobody::pairs_within(queries, grid, 0.5f);   // cross: (query i, indexed j)
///     auto any   = twobody::join(grid, my_emitter);              // false beyond the cutoff
///     auto auto_ = twobody::pairs_within(twobody::self_pairs(pts), 0.5f,
///                                        twobody::within_cutoff<float>{0.5f}); // grid if it pays
///
/// Records carry input indices (the permutation of the index is undone); self mode gives each
/// unordered pair once with i < j and calls the emitter as (a_i, a_j, i, j), exactly as the
/// brute-force self-join does, so sorted results are identical. A periodic index makes
/// pairs_within use the minimum-image distance. The record order is unspecified.
#pragma once

#include <twobody/dispatch/as_emitter.cuh>
#include <twobody/dispatch/grid_join.cuh>
#include <twobody/emitters.cuh>
#include <twobody/functors.cuh>
#include <twobody/grid.cuh>
#include <twobody/grid_index.cuh>
#include <twobody/join.cuh>
#include <twobody/join_result.cuh>
#include <twobody/output/direct_output_buffer.cuh>

#include <cuda/std/type_traits>

#include <cmath>
#include <string>
#include <vector>

namespace twobody {

/// The default grid-join output: per-thread pages of 16 records (the grid traversal diverges
/// within a warp, so pages are owned per thread).
using default_grid_join_output = output::direct_output_buffer<16, output::page_owner::thread>;

// ---------------------------------------------------------------------------------------------
// Joins over an index (the explicit form: build once, join with several eps or predicates)

/// Self-join over the indexed points: every pair that `x` (an emitter, or a predicate for
/// index pairs) keeps; `x` must keep no pair farther apart than the index's cutoff (those are
/// never visited). Result in device (default) or host memory (jopt.location).
template <class Output = default_grid_join_output, class T, int D, class X>
join_result<join_record_t<X>> join(grid_index<T, D> const& index, X const& x,
                                                            join_options const& jopt = {},
                                                            grid_options const& gopt = {}, cudaStream_t stream = 0)
{
  auto const e = detail::as_emitter(x);
  using Record = typename decltype(e)::record_type;
  return detail::collect_join<Record>(jopt, [&](auto& sink) {
    return detail::run_grid_join<Output>(index, static_cast<points<T, D> const*>(nullptr), e, sink, jopt, gopt, stream);
  });
}

/// Cross join of `queries` (host or device memory) with the indexed points: records (i, j) with
/// i a query index and j an index of the indexed set.
template <class Output = default_grid_join_output, class T, int D, class X>
join_result<join_record_t<X>> join(points<T, D> const& queries, grid_index<T, D> const& index,
                                                            X const& x, join_options const& jopt = {},
                                                            grid_options const& gopt = {}, cudaStream_t stream = 0)
{
  auto const e = detail::as_emitter(x);
  using Record = typename decltype(e)::record_type;
  return detail::collect_join<Record>(
    jopt, [&](auto& sink) { return detail::run_grid_join<Output>(index, &queries, e, sink, jopt, gopt, stream); });
}

/// Streams a self-join over the index to consume(records, n) round by round (see join_each of
/// join.cuh): results larger than GPU memory within jopt.device_memory_budget.
template <class Output = default_grid_join_output, class T, int D, class X, class Consume>
join_stats join_each(grid_index<T, D> const& index, X const& x, Consume&& consume, join_options const& jopt = {},
                     grid_options const& gopt = {}, cudaStream_t stream = 0)
{
  auto const e = detail::as_emitter(x);
  using Record = typename decltype(e)::record_type;
  detail::host_sink<Record, cuda::std::remove_reference_t<Consume>> sink(consume);
  return detail::run_grid_join<Output>(index, static_cast<points<T, D> const*>(nullptr), e, sink, jopt, gopt, stream);
}

/// Streams a cross join of `queries` with the index to consume(records, n).
template <class Output = default_grid_join_output, class T, int D, class X, class Consume>
join_stats join_each(points<T, D> const& queries, grid_index<T, D> const& index, X const& x, Consume&& consume,
                     join_options const& jopt = {}, grid_options const& gopt = {}, cudaStream_t stream = 0)
{
  auto const e = detail::as_emitter(x);
  using Record = typename decltype(e)::record_type;
  detail::host_sink<Record, cuda::std::remove_reference_t<Consume>> sink(consume);
  return detail::run_grid_join<Output>(index, &queries, e, sink, jopt, gopt, stream);
}

/// Similarity self-join over the index: the pairs within distance eps (<= the index's cutoff;
/// minimum image in a periodic index), as index pairs with i < j.
template <class Output = default_grid_join_output, class T, int D>
join_result<index_pair> pairs_within(grid_index<T, D> const& index, cuda::std::type_identity_t<T> eps, join_options const& jopt = {},
                                     grid_options const& gopt = {}, cudaStream_t stream = 0)
{
  return detail::collect_join<index_pair>(jopt, [&](auto& sink) {
    return detail::grid_pairs_within<Output>(index, static_cast<points<T, D> const*>(nullptr), eps, sink, jopt, gopt,
                                             stream);
  });
}

/// Similarity join of `queries` with the indexed points: (query i, indexed j) within eps.
template <class Output = default_grid_join_output, class T, int D>
join_result<index_pair> pairs_within(points<T, D> const& queries, grid_index<T, D> const& index,
                                     cuda::std::type_identity_t<T> eps,
                                     join_options const& jopt = {}, grid_options const& gopt = {},
                                     cudaStream_t stream = 0)
{
  return detail::collect_join<index_pair>(jopt, [&](auto& sink) {
    return detail::grid_pairs_within<Output>(index, &queries, eps, sink, jopt, gopt, stream);
  });
}

// ---------------------------------------------------------------------------------------------
// One-call forms with a cutoff: grid or brute force, whichever pays (as count_pairs in grid.cuh)

/// Join of `pairs` (self or cross) where `x` keeps no pair farther apart than rg.cutoff:
/// through a grid index of the B side when it pays (or as rg.search says), else the tiled
/// brute-force join, on the backend `exec` names (the CPU backend: its cell list). Same records
/// either way (order unspecified). A minimum-image predicate gets a periodic grid in its box.
template <class T, int D, class X>
join_result<join_record_t<X>> join(execution_policy const& exec,
                                                            pair_set<points<T, D>> const& pairs, X const& x,
                                                            within_cutoff<T> const& rg, join_options const& jopt = {})
{
  return detail::grid_join_on<default_input, default_join_output, default_grid_join_output>(exec, pairs, x, rg, jopt);
}

/// join with a cutoff under exec::automatic on `stream`.
template <class T, int D, class X>
join_result<join_record_t<X>> join(pair_set<points<T, D>> const& pairs, X const& x,
                                                            within_cutoff<T> const& rg, join_options const& jopt = {},
                                                            cudaStream_t stream = 0)
{
  return join(exec::automatic.on(stream), pairs, x, rg, jopt);
}

/// Similarity join within eps (Euclidean), through a grid of cell side rg.cutoff (>= eps) when
/// it pays, else brute force: `pairs_within(self_pairs(pts), eps, within_cutoff<float>{eps})`.
template <class T, int D>
join_result<index_pair> pairs_within(execution_policy const& exec, pair_set<points<T, D>> const& pairs,
                                     cuda::std::type_identity_t<T> eps, within_cutoff<T> const& rg,
                                     join_options const& jopt = {})
{
  T const e = detail::checked_eps(eps);
  TWOBODY_EXPECTS(e <= rg.cutoff, "pairs_within: eps is larger than within_cutoff::cutoff");
  return join(exec, pairs, within_eps_fn<T>{e * e}, rg, jopt);
}

/// pairs_within with a cutoff under exec::automatic on `stream`.
template <class T, int D>
join_result<index_pair> pairs_within(pair_set<points<T, D>> const& pairs, cuda::std::type_identity_t<T> eps,
                                     within_cutoff<T> const& rg, join_options const& jopt = {}, cudaStream_t stream = 0)
{
  return pairs_within(exec::automatic.on(stream), pairs, eps, rg, jopt);
}

}  // namespace twobody
