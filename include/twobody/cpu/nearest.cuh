/// \file nearest.cuh
/// \brief The CPU backend of nearest_neighbors: for every point of A, every partner's value
/// (rows: the exact evaluation of math/row_exact.cuh; points: the metric functor), the k
/// smallest keys (math/neighbor_keys.cuh: score, then index). OpenMP over the points of A.
#pragma once

#include <twobody/cpu/backend.cuh>
#include <twobody/cpu/rows.cuh>
#include <twobody/math/neighbor_keys.cuh>
#include <twobody/math/row_metric_kind.cuh>
#include <twobody/results.cuh>
#include <twobody/rows.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/validate.cuh>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace twobody {
namespace detail {

/// The checks of the pair set's kind and metric, at compile time.
template <class Points, class Metric>
void check_nearest()
{
  if constexpr (is_rows_v<Points>) {
    static_assert(is_row_metric<Metric>::value, "rows support squared_euclidean, euclidean, dot_product, cosine_similarity, cosine_distance");
  } else {
    static_assert(cuda::std::is_same_v<typename Points::value_type, float> && !Points::weighted,
                  "nearest_neighbors takes unweighted float points (or rows)");
  }
}

}  // namespace detail

namespace cpu {
namespace detail {

/// For every point i of A, value(i, j) over its partners; the k smallest keys, nearest first.
template <class Points, class Value>
neighbors_result nearest_by(pair_set<Points> const& pairs, int k, bool larger_nearer, Value&& value)
{
  using twobody::detail::neighbor_key;
  size_type const n = pairs.a.size;
  std::vector<neighbor_key> out(static_cast<std::size_t>(n) * static_cast<std::size_t>(k), twobody::detail::empty_neighbor);
  progress_poll poll(static_cast<std::uint64_t>(pairs.count()));
#pragma omp parallel
  {
    std::vector<neighbor_key> keys;
#pragma omp for schedule(guided)
    for (std::int64_t i = 0; i < n; ++i) {
      if (poll.stopped()) { continue; }
      keys.clear();
      for_each_partner(pairs, i, [&](std::int64_t j) {
        float const v = value(i, j);
        if (!std::isnan(v)) {
          keys.push_back(twobody::detail::make_neighbor_key(larger_nearer ? -v : v, static_cast<std::uint32_t>(j)));
        }
      });
      std::size_t const take = std::min<std::size_t>(keys.size(), static_cast<std::size_t>(k));
      std::partial_sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(take), keys.end());
      std::copy_n(keys.begin(), take, out.begin() + static_cast<std::ptrdiff_t>(i) * k);
      poll.done(partners_of(pairs, i));
    }
  }
  poll.finish();
  return twobody::detail::decode_neighbors(out, n, k, larger_nearer);
}

}  // namespace detail

/// The k nearest partners of every row of A by `metric` (cross pairs: rows of B; ordered
/// pairs: the other rows of A), by the exact evaluation.
template <class T, bool W, class Metric>
neighbors_result nearest_neighbors(pair_set<rows<T, W>> const& pairs, Metric, int k)
{
  using namespace twobody::detail;
  check_nearest<rows<T, W>, Metric>();
  validate(pairs);
  validate_nearest(pairs, k);
  return detail::nearest_by(pairs, k, larger_is_nearer<Metric>, detail::row_pair_values<T, W>(pairs, row_metric<Metric>::kind));
}

/// The k nearest partners of every point of A by `metric`, a functor metric(a, b) -> float of
/// two points (the distances of functors.cuh and row_metrics.cuh, or the caller's own; the
/// similarities dot_product and cosine_similarity rank larger values nearer).
template <class Points, class Metric>
neighbors_result nearest_neighbors(pair_set<Points> const& pairs, Metric metric, int k)
{
  twobody::detail::check_nearest<Points, Metric>();
  twobody::detail::validate(pairs);
  twobody::detail::validate_nearest(pairs, k);
  Points const& b = pairs.mode == pair_mode::cross ? pairs.b : pairs.a;
  return detail::nearest_by(pairs, k, twobody::detail::larger_is_nearer<Metric>, [&](std::int64_t i, std::int64_t j) {
    return static_cast<float>(metric(pairs.a[i], b[j]));
  });
}

}  // namespace cpu
}  // namespace twobody
