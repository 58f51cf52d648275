/// \file grid.cuh
/// \brief Range-limited statistics over a grid_index: pair counts and histograms that only
/// visit pairs in adjacent cells (pairs farther apart than the cell side are never visited).
///
///     twobody::grid_index<float, 3> grid(pts, 5.f);
///     auto dd = twobody::count_pairs(grid, twobody::within_radius(5.f));          // self pairs
///     auto h  = twobody::histogram(grid, twobody::euclidean{},
///                                  twobody::uniform_bins<float>(0.f, 5.f, 20)); // up to the cutoff
///     auto dr = twobody::count_pairs(randoms, grid, twobody::within_radius(5.f)); // cross: A x indexed B
///     auto n  = twobody::count_pairs(twobody::self_pairs(pts), twobody::within_radius(5.f),
///                                    twobody::within_cutoff<float>{5.f});        // grid if it pays
///
/// The statistic must not count pairs beyond the index's cutoff (a predicate false there, bins
/// that end at the cutoff): those pairs are not visited, so a histogram's `outside` and `pairs`
/// count only visited pairs. Self mode visits each unordered pair once (a half-stencil: the
/// neighbour cells with a larger id, and in the own cell the later points); functors should be
/// symmetric. Periodic indexes need a minimum-image functor (periodic_euclidean, ...).
#pragma once

#include <twobody/binning.cuh>
#include <twobody/dispatch/grid.cuh>
#include <twobody/execution.cuh>
#include <twobody/grid_index.cuh>
#include <twobody/grid_options.cuh>
#include <twobody/histogram.cuh>
#include <twobody/math/bin_slot.cuh>
#include <twobody/points.cuh>
#include <twobody/reduce.cuh>
#include <twobody/results.cuh>

namespace twobody {

/// Self pairs of the indexed set with pred(a, b) true (pred must be false beyond the cutoff).
template <class T, int D, class Pred>
unsigned long long count_pairs(grid_index<T, D> const& index, Pred pred, grid_options const& opt = {},
                               cudaStream_t stream = 0)
{
  return detail::grid_count(index, static_cast<points<T, D> const*>(nullptr), pred, opt, stream);
}

/// Pairs (a, b) of queries x the indexed set with pred(a, b) true (pred false beyond the cutoff).
template <class T, int D, class Pred>
unsigned long long count_pairs(points<T, D> const& queries, grid_index<T, D> const& index, Pred pred,
                               grid_options const& opt = {}, cudaStream_t stream = 0)
{
  return detail::grid_count(index, &queries, pred, opt, stream);
}

/// Histogram of f over the self pairs of the indexed set that lie within the cutoff.
template <class T, int D, class F, class Binning>
histogram_result<unsigned long long> histogram(grid_index<T, D> const& index, F f, Binning const& bins,
                                               grid_options const& opt = {}, cudaStream_t stream = 0)
{
  return detail::grid_histogram(index, static_cast<points<T, D> const*>(nullptr), f, bins, opt, stream);
}

/// Histogram of f over the pairs of queries x the indexed set that lie within the cutoff.
template <class T, int D, class F, class Binning>
histogram_result<unsigned long long> histogram(points<T, D> const& queries, grid_index<T, D> const& index, F f,
                                               Binning const& bins, grid_options const& opt = {},
                                               cudaStream_t stream = 0)
{
  return detail::grid_histogram(index, &queries, f, bins, opt, stream);
}

// ---------------------------------------------------------------------------------------------
// One-call forms with a cutoff: grid or brute force, whichever pays

/// Pairs of `pairs` (self or cross) with pred(a, b) true, where pred is false beyond
/// rg.cutoff: through a grid when it pays (or as rg.search says), else brute force, on the
/// backend `exec` names (the CPU backend: its cell list, cpu/cell_list.cuh). A minimum-image
/// predicate (within{periodic_squared_euclidean, r2}) gets a periodic grid in its box: the
/// points must lie in [0, box) and the cutoff must not exceed half a side.
template <class T, int D, class Pred>
unsigned long long count_pairs(execution_policy const& exec, pair_set<points<T, D>> const& pairs, Pred pred,
                               within_cutoff<T> const& rg)
{
  return detail::grid_count_on(exec, pairs, pred, rg);
}

/// count_pairs with a cutoff under exec::automatic on `stream`.
template <class T, int D, class Pred>
unsigned long long count_pairs(pair_set<points<T, D>> const& pairs, Pred pred, within_cutoff<T> const& rg,
                               cudaStream_t stream = 0)
{
  return count_pairs(exec::automatic.on(stream), pairs, pred, rg);
}

/// Histogram of f over the pairs within rg.cutoff (bins must end at or before the cutoff);
/// `outside` and `pairs` count the pairs visited, which differ between grid and brute force.
template <class T, int D, class F, class Binning>
histogram_result<unsigned long long> histogram(execution_policy const& exec, pair_set<points<T, D>> const& pairs, F f,
                                               Binning const& bins, within_cutoff<T> const& rg)
{
  return detail::grid_histogram_on(exec, pairs, f, bins, rg);
}

/// histogram with a cutoff under exec::automatic on `stream`.
template <class T, int D, class F, class Binning>
histogram_result<unsigned long long> histogram(pair_set<points<T, D>> const& pairs, F f, Binning const& bins,
                                               within_cutoff<T> const& rg, cudaStream_t stream = 0)
{
  return histogram(exec::automatic.on(stream), pairs, f, bins, rg);
}

}  // namespace twobody
