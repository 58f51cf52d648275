/// \file histogram.cuh
/// \brief Type II statistics: histograms of a pair functor's values (SDH, RDF, 2PCF bins).
///
///     auto pairs = twobody::self_pairs(twobody::make_points(n, d_x, d_y, d_z));
///     twobody::uniform_bins<float> bins(0.f, 200.f, 256);
///     twobody::histogram(pairs, twobody::euclidean{}, bins, d_counts, stream);   // device, async
///     auto h = twobody::histogram(pairs, twobody::euclidean{}, bins);            // host result
///
/// `d_counts` holds bins.size() + 1 counters: one per bin, then the number of pairs whose
/// value fell outside the bins (below, above, or NaN); all of them add up to pairs.count().
/// Counts are `unsigned long long`; weighted point sets (make_weighted_points) need `double`
/// counts and add w_i w_j per pair. The output is overwritten (zeroed first).
///
/// The functor's values must be what the bin map takes: distance_bins takes squared
/// distances, so it accepts only functors that declare them (squared_euclidean,
/// periodic_squared_euclidean, or `returns_squared_distance`; see value_traits.cuh); a
/// mismatch does not compile. Slots a user bin map returns outside [0, size()] are counted as
/// outside. The host-result form takes an execution policy first (execution.cuh).
#pragma once

#include <twobody/binning.cuh>
#include <twobody/defaults.cuh>
#include <twobody/dispatch/histogram.cuh>
#include <twobody/execution.cuh>
#include <twobody/output/cluster_histogram.cuh>
#include <twobody/output/global_atomics.cuh>
#include <twobody/output/privatized_histogram.cuh>
#include <twobody/points.cuh>
#include <twobody/results.cuh>
#include <twobody/value_traits.cuh>

#include <cuda_runtime_api.h>

#include <vector>

namespace twobody {

/// Histogram with H lane-interleaved private copies per block (explicit form).
template <class Input, class Points, class F, class Binning, class Count>
void histogram(pair_set<Points> const& pairs, F f, Binning const& bins, Count* d_counts,
               output::warp_privatized policy, cudaStream_t stream = 0)
{
  detail::privatized_histogram<Input>(pairs, f, bins, d_counts, policy.copies, stream);
}

/// Histogram with one private copy per block (explicit form).
template <class Input, class Points, class F, class Binning, class Count>
void histogram(pair_set<Points> const& pairs, F f, Binning const& bins, Count* d_counts, output::block_privatized,
               cudaStream_t stream = 0)
{
  detail::privatized_histogram<Input>(pairs, f, bins, d_counts, 1, stream);
}

/// Histogram spread over the shared memory of thread-block clusters (explicit form, sm_90+):
/// `policy.cluster_blocks` blocks per cluster share one histogram, `policy.copies` lane copies
/// of each block's share; 0 in either lets the cost model choose it. Bins past the cluster's
/// shared memory are counted in several passes. Throws twobody::error below sm_90.
template <class Input, class Points, class F, class Binning, class Count>
void histogram(pair_set<Points> const& pairs, F f, Binning const& bins, Count* d_counts,
               output::cluster_privatized policy, cudaStream_t stream = 0)
{
  detail::cluster_histogram<Input>(pairs, f, bins, d_counts, policy.cluster_blocks, policy.copies, stream);
}

/// Histogram updated with one global atomic per pair (explicit form; baseline).
template <class Input, class Points, class F, class Binning, class Count>
void histogram(pair_set<Points> const& pairs, F f, Binning const& bins, Count* d_counts, output::global_atomics,
               cudaStream_t stream = 0)
{
  detail::global_histogram<Input>(pairs, f, bins, d_counts, stream);
}

/// One-call histogram into device memory (asynchronous): the cost model picks the input
/// policy, the private copies and the windows (plan_histogram says which), and the launch
/// follows that plan. Past shared memory the plan samples the data first (a small synchronous
/// copy on `stream`, skipped while `stream` is being captured).
template <class Points, class F, class Binning, class Count>
void histogram(pair_set<Points> const& pairs, F f, Binning const& bins, Count* d_counts, cudaStream_t stream = 0)
{
  detail::histogram_to_device(pairs, f, bins, d_counts, stream);
}

/// One-call histogram returned to the host, on the backend `exec` names (the GPU form
/// synchronizes exec.stream). Point arrays may be in host or device memory on the GPU, host
/// memory on the CPU.
template <class Points, class F, class Binning>
histogram_result<pair_count_t<Points>> histogram(execution_policy const& exec, pair_set<Points> const& pairs, F f,
                                                 Binning const& bins)
{
  return detail::histogram_on(exec, pairs, f, bins);
}

/// One-call histogram returned to the host under exec::automatic on `stream`.
template <class Points, class F, class Binning>
histogram_result<pair_count_t<Points>> histogram(pair_set<Points> const& pairs, F f, Binning const& bins,
                                                 cudaStream_t stream = 0)
{
  return histogram(exec::automatic.on(stream), pairs, f, bins);
}

}  // namespace twobody
