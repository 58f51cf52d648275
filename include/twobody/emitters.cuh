/// \file emitters.cuh
/// \brief What a join emits for a pair: emitters (a record type and a test that fills it) and
/// the ready-made predicates of similarity, band and theta joins.
///
/// An emitter is a `__host__ __device__` functor with a trivially copyable `record_type` and
/// `bool operator()(a, b, i, j, record_type& out)`: it fills `out` and returns true for the
/// pairs to keep (i, j: the indices within A and B; self mode i < j). A plain predicate
/// `bool(a, b)` used where an emitter is expected emits `index_pair{i, j}`.
#pragma once

#include <twobody/functors.cuh>
#include <twobody/join_records.cuh>
#include <twobody/math/band_keys.cuh>
#ifndef __CUDACC_RTC__
#include <twobody/join_result.cuh>
#endif
#include <twobody/points.cuh>

#include <cuda/std/tuple>
#include <cuda/std/type_traits>

#ifndef __CUDACC_RTC__
#include <cstdint>
#endif

namespace twobody {

/// Emits index_pair{i, j} for the pairs where pred(a, b) holds.
template <class Pred>
struct emit_pairs_if {
  using record_type = index_pair;
  Pred pred;
  template <class P>
  __host__ __device__ bool operator()(P const& a, P const& b, size_type i, size_type j, index_pair& out) const
  {
    out = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)};
    return pred(a, b);
  }
};

/// Emits make(a, b, i, j) (a Record) for the pairs where pred(a, b) holds.
template <class Record, class Pred, class Make>
struct emit_records_if {
  using record_type = Record;
  Pred pred;
  Make make;
  template <class P>
  __host__ __device__ bool operator()(P const& a, P const& b, size_type i, size_type j, Record& out) const
  {
    if (!pred(a, b)) { return false; }
    out = make(a, b, i, j);
    return true;
  }
};

/// emit_if<Record>(pred, make): records built by make(a, b, i, j) for the pairs pred accepts.
template <class Record, class Pred, class Make>
emit_records_if<Record, Pred, Make> emit_if(Pred pred, Make make)
{
  return {pred, make};
}

/// Emits index_pair_value{i, j, d} with d = metric(a, b) for the pairs with d <= eps.
template <class Metric, class T>
struct emit_pairs_within {
  using record_type = index_pair_value<T>;
  Metric metric;
  T eps;
  template <class P>
  __host__ __device__ bool operator()(P const& a, P const& b, size_type i, size_type j, record_type& out) const
  {
    T const d = metric(a, b);
    out       = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), d};
    return d <= eps;
  }
};

/// |a - b| <= eps (Euclidean), tested as |a - b|^2 <= eps^2 with no square root.
template <class T>
struct within_eps_fn {
  T eps2;  ///< eps^2, rounded to T once on the host
  template <int D>
  __host__ __device__ bool operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    return squared_euclidean{}(a, b) <= eps2;
  }
};

/// metric(a, b) <= eps for any metric functor.
template <class Metric, class T>
struct metric_within_fn {
  Metric metric;
  T eps;
  template <class P>
  __host__ __device__ bool operator()(P const& a, P const& b) const
  {
    return metric(a, b) <= eps;
  }
};

/// Band join on one column: lower <= b[column] - a[column] <= upper (integer keys: the exact
/// difference, never wrapped; floating keys: the rounded difference; NaN keys never match).
/// band_join (band_join.cuh) runs it sort-based where that is cheaper than the nested loop.
template <class T>
struct band_fn {
  int column;
  T lower;
  T upper;
  template <int D>
  __host__ __device__ bool operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    return detail::make_band_test(lower, upper)(a[column], b[column]);
  }
};

/// All predicates hold (multi-predicate join conditions); evaluated left to right, stops at
/// the first false.
template <class... Preds>
struct all_of_fn {
  cuda::std::tuple<Preds...> preds;
  template <class P>
  __host__ __device__ bool operator()(P const& a, P const& b) const
  {
    return cuda::std::apply([&](auto const&... p) { return (p(a, b) && ...); }, preds);
  }
};
template <class... Preds>
all_of_fn<Preds...> all_of(Preds... preds)
{
  return {cuda::std::make_tuple(preds...)};
}

/// The record a join emits for X: X's record_type for an emitter, index_pair (what
/// emit_pairs_if emits) for a predicate.
template <class X, class = void>
struct join_record {
  using type = index_pair;
};
template <class X>
struct join_record<X, cuda::std::void_t<typename X::record_type>> {
  using type = typename X::record_type;
};
template <class X>
using join_record_t = typename join_record<cuda::std::decay_t<X>>::type;

}  // namespace twobody
