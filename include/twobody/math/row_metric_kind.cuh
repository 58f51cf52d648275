/// \file row_metric_kind.cuh
/// \brief The metrics rows support (row_metrics.cuh), each as one tag the row machinery
/// switches on at compile time, and the trait that tells a row metric from other functors.
#pragma once

#include <twobody/functors.cuh>
#include <twobody/row_metrics.cuh>

#include <cuda/std/type_traits>

namespace twobody {

namespace detail {

/// The metrics rows support, as one run-time-free tag each.
enum class row_metric_kind { squared_euclidean, euclidean, dot_product, cosine_similarity, cosine_distance };

template <class M>
struct row_metric;
template <>
struct row_metric<squared_euclidean> {
  static constexpr row_metric_kind kind = row_metric_kind::squared_euclidean;
};
template <>
struct row_metric<euclidean> {
  static constexpr row_metric_kind kind = row_metric_kind::euclidean;
};
template <>
struct row_metric<dot_product> {
  static constexpr row_metric_kind kind = row_metric_kind::dot_product;
};
template <>
struct row_metric<cosine_similarity> {
  static constexpr row_metric_kind kind = row_metric_kind::cosine_similarity;
};
template <>
struct row_metric<cosine_distance> {
  static constexpr row_metric_kind kind = row_metric_kind::cosine_distance;
};

template <class M, class = void>
struct is_row_metric : cuda::std::false_type {};
template <class M>
struct is_row_metric<M, cuda::std::void_t<decltype(row_metric<M>::kind)>> : cuda::std::true_type {};

}  // namespace detail

}  // namespace twobody
