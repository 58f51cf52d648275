/// \file join.cuh
/// \brief Type III statistics: a record for every pair that passes a predicate (similarity
/// joins, theta and band joins), with a result size unknown until the kernel has run.
///
///     auto pts  = twobody::make_points(n, d_x, d_y, d_z);
///     auto near = twobody::pairs_within(twobody::self_pairs(pts), 0.5f);   // index pairs, i < j
///     auto hits = twobody::join(twobody::cross_pairs(A, B), my_predicate);  // any predicate
///     twobody::sort_by_index(near);                                          // order by (i, j)
///
/// What a pair emits is up to an *emitter*: a `__host__ __device__` functor with a
/// `record_type` (trivially copyable) and `bool operator()(a, b, i, j, record_type& out)`
/// that fills `out` and returns true for the pairs to keep. A plain predicate
/// `bool(a, b)` emits `index_pair{i, j}`; `emit_if<Record>(pred, make)` builds other records.
///
/// The one pass (output::direct_output_buffer) writes records into pages of a device pool.
/// When the pool runs out, the unfinished work units are rolled back and redone in another
/// round after the filled pages are drained, so nothing is lost or doubled, and a result
/// larger than GPU memory streams to the host (result_location::host, or join_each with a
/// callback) with a device memory budget the caller can set. The pool starts at a sampled
/// estimate of the result size, so most joins take one round. output::two_pass is the
/// classic count / scan / write baseline.
#pragma once

#include <twobody/band_join.cuh>
#include <twobody/defaults.cuh>
#include <twobody/dispatch/as_emitter.cuh>
#include <twobody/dispatch/join.cuh>
#include <twobody/emitters.cuh>
#include <twobody/join_result.cuh>
#include <twobody/output/direct_output_buffer.cuh>
#include <twobody/points.cuh>
#include <twobody/util/error.cuh>

#include <cuda/std/type_traits>

#include <cmath>
#include <vector>

namespace twobody {



// ---------------------------------------------------------------------------------------------
// Joins

/// Calls consume(records, n) on the host for the records of each round (host memory, valid
/// during the call), while the next round computes. The memory a result needs on the GPU is
/// one pool within join_options::device_memory_budget: results larger than GPU memory work.
/// `x` is an emitter or a predicate (then records are index_pair). If consume throws, the
/// join stops and the exception propagates (records already delivered stay delivered). On the
/// CPU backend consume is called once, with every record in (i, j) order.
template <class Input = default_input, class Output = default_join_output, class Points, class X, class Consume>
join_stats join_each(execution_policy const& exec, pair_set<Points> const& pairs, X const& x, Consume&& consume,
                     join_options const& opt = {})
{
  return detail::join_each_on<Input, Output>(exec, pairs, x, consume, opt);
}

/// join_each under exec::automatic on `stream`.
template <class Input = default_input, class Output = default_join_output, class Points, class X, class Consume>
join_stats join_each(pair_set<Points> const& pairs, X const& x, Consume&& consume, join_options const& opt = {},
                     cudaStream_t stream = 0)
{
  return join_each<Input, Output>(exec::automatic.on(stream), pairs, x, consume, opt);
}

/// One-call join: every pair that `x` (an emitter, or a predicate for index pairs) keeps, in
/// a result owning device memory (default) or host memory (opt.location), on the backend
/// `exec` names (the CPU backend returns host memory in (i, j) order). Point arrays may be in
/// host or device memory on the GPU. Synchronizes exec.stream. The GPU's record order is
/// unspecified; see sort_by_index(). The explicit form names the input and output policies:
/// `join<input::shared_tile<256, 4>, output::two_pass>(exec::gpu, pairs, pred)`.
template <class Input = default_input, class Output = default_join_output, class Points, class X>
join_result<join_record_t<X>> join(execution_policy const& exec, pair_set<Points> const& pairs,
                                                            X const& x, join_options const& opt = {})
{
  return detail::join_on<Input, Output>(exec, pairs, x, opt);
}

/// join under exec::automatic on `stream`.
template <class Input = default_input, class Output = default_join_output, class Points, class X>
join_result<join_record_t<X>> join(pair_set<Points> const& pairs, X const& x,
                                                            join_options const& opt = {}, cudaStream_t stream = 0)
{
  return join<Input, Output>(exec::automatic.on(stream), pairs, x, opt);
}

/// Similarity join: the pairs within Euclidean distance eps (|a - b| <= eps, tested on squared
/// distances), as index pairs. Self mode gives each unordered pair once with i < j.
template <class Input = default_input, class Output = default_join_output, class Points>
join_result<index_pair> pairs_within(execution_policy const& exec, pair_set<Points> const& pairs,
                                     typename Points::value_type eps, join_options const& opt = {})
{
  using T = typename Points::value_type;
  T const e = detail::checked_eps(eps);
  return join<Input, Output>(exec, pairs, within_eps_fn<T>{e * e}, opt);
}

/// pairs_within under exec::automatic on `stream`.
template <class Input = default_input, class Output = default_join_output, class Points>
join_result<index_pair> pairs_within(pair_set<Points> const& pairs, typename Points::value_type eps,
                                     join_options const& opt = {}, cudaStream_t stream = 0)
{
  return pairs_within<Input, Output>(exec::automatic.on(stream), pairs, eps, opt);
}

/// Similarity join under any metric functor: metric(a, b) <= eps, records {i, j, distance}.
template <class Input = default_input, class Output = default_join_output, class Points, class Metric>
join_result<index_pair_value<typename Points::value_type>> pairs_within(execution_policy const& exec,
                                                                        pair_set<Points> const& pairs,
                                                                        typename Points::value_type eps, Metric metric,
                                                                        join_options const& opt = {})
{
  using T = typename Points::value_type;
  return join<Input, Output>(exec, pairs, emit_pairs_within<Metric, T>{metric, detail::checked_eps(eps)}, opt);
}

/// pairs_within with a metric under exec::automatic on `stream`.
template <class Input = default_input, class Output = default_join_output, class Points, class Metric>
join_result<index_pair_value<typename Points::value_type>> pairs_within(pair_set<Points> const& pairs,
                                                                        typename Points::value_type eps, Metric metric,
                                                                        join_options const& opt = {},
                                                                        cudaStream_t stream = 0)
{
  return pairs_within<Input, Output>(exec::automatic.on(stream), pairs, eps, metric, opt);
}

}  // namespace twobody
