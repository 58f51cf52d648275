// Test data for high-dimensional rows (rows.cuh): integer coordinates, so every squared
// distance, dot product and norm is an exact integer in float, half and bfloat16 alike, and few
// distinct values: many pairs share each value, so thresholds and bin edges placed on those
// values put many pairs exactly on the edge (the hardest case for an approximate evaluation).
#pragma once

#include <twobody/highdim.cuh>
#include <twobody/highdim_join.cuh>
#include <twobody/highdim_per_point.cuh>
#include <twobody/nearest_neighbors.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace tbt {

template <class T>
T to_elem(float v)
{
  return twobody::detail::row_element<T>(v);
}

/// n rows of `dims` coordinates in [-range, range] (leading dimension ld >= dims; the gap holds
/// NaN, which must never be read), dyadic weights in {0.5, 1, 1.5, 2}.
template <class T>
struct host_rows {
  std::int64_t n;
  int dims;
  std::int64_t ld;
  std::vector<T> data;
  std::vector<float> w;

  host_rows(std::int64_t n_, int dims_, unsigned seed, int range = 2, std::int64_t ld_ = 0)
    : n(n_), dims(dims_), ld(ld_ == 0 ? dims_ : ld_)
  {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> c(-range, range), wt(1, 4);
    data.assign(static_cast<std::size_t>(n * ld), to_elem<T>(NAN));
    w.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      for (int k = 0; k < dims; ++k) { data[static_cast<std::size_t>(i * ld + k)] = to_elem<T>(static_cast<float>(c(rng))); }
      w[static_cast<std::size_t>(i)] = 0.5f * static_cast<float>(wt(rng));
    }
  }
  twobody::rows<T> view() const { return twobody::make_rows(n, dims, data.data(), ld); }
  twobody::rows<T, true> weighted() const { return twobody::make_weighted_rows(n, dims, data.data(), w.data(), ld); }
  double at(std::int64_t i, int k) const { return twobody::detail::as_double(data[static_cast<std::size_t>(i * ld + k)]); }
};

/// The metric's value by plain sequential sums in double (exact for integer rows, so equal to
/// the library's exact evaluation whatever its order), rounded to float.
template <class T>
float reference_value(twobody::detail::row_metric_kind m, host_rows<T> const& a, std::int64_t i, host_rows<T> const& b,
                      std::int64_t j)
{
  double sq = 0, dot = 0, na = 0, nb = 0;
  for (int k = 0; k < a.dims; ++k) {
    double const x = a.at(i, k), y = b.at(j, k);
    sq += (x - y) * (x - y);
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  using K = twobody::detail::row_metric_kind;
  switch (m) {
    case K::squared_euclidean: return static_cast<float>(sq);
    case K::euclidean: return static_cast<float>(std::sqrt(sq));
    case K::dot_product: return static_cast<float>(dot);
    case K::cosine_similarity: return static_cast<float>(dot / std::sqrt(na * nb));
    case K::cosine_distance: return static_cast<float>(1.0 - dot / std::sqrt(na * nb));
  }
  return NAN;
}

/// Calls f(i, j) for every pair of the mode (self: i < j; ordered: i != j; cross: all).
template <class F>
void for_each_pair(twobody::pair_mode mode, std::int64_t na, std::int64_t nb, F&& f)
{
  for (std::int64_t i = 0; i < na; ++i) {
    for (std::int64_t j = mode == twobody::pair_mode::self ? i + 1 : 0; j < nb; ++j) {
      if (mode == twobody::pair_mode::ordered && i == j) { continue; }
      f(i, j);
    }
  }
}

/// The value shared by the most pairs (ties broken toward the smaller value): a threshold or
/// bin edge placed there puts many pairs exactly on it.
template <class T>
float most_common_value(twobody::detail::row_metric_kind m, host_rows<T> const& a, std::int64_t limit = 200)
{
  std::map<float, int> seen;
  std::int64_t const n = a.n < limit ? a.n : limit;
  for_each_pair(twobody::pair_mode::self, n, n, [&](std::int64_t i, std::int64_t j) {
    float const v = reference_value(m, a, i, a, j);
    if (std::isfinite(v)) { ++seen[v]; }
  });
  float best = 0;
  int count  = -1;
  for (auto const& [v, c] : seen) {
    if (c > count) {
      best  = v;
      count = c;
    }
  }
  return best;
}

/// The k nearest partners of every row by plain sums and a full sort (nearest first: the
/// smallest value, or the largest for similarities; equal values by the smaller index; NaN
/// values never; missing entries index -1, value +inf or -inf), an independent reference.
template <class T>
twobody::neighbors_result reference_nearest(twobody::pair_mode mode, twobody::detail::row_metric_kind m, host_rows<T> const& a,
                                            host_rows<T> const& b, int k)
{
  bool const larger = twobody::detail::larger_is_nearer_kind(m);
  twobody::neighbors_result r;
  r.size = a.n;
  r.k    = k;
  for (std::int64_t i = 0; i < a.n; ++i) {
    std::vector<std::pair<float, std::int64_t>> all;
    for_each_pair(mode, a.n, mode == twobody::pair_mode::cross ? b.n : a.n, [&](std::int64_t ii, std::int64_t j) {
      if (ii != i) { return; }
      float const v = reference_value(m, a, i, mode == twobody::pair_mode::cross ? b : a, j);
      if (!std::isnan(v)) { all.emplace_back(v, j); }
    });
    std::sort(all.begin(), all.end(), [&](auto const& x, auto const& y) {
      if (x.first != y.first) { return larger ? x.first > y.first : x.first < y.first; }
      return x.second < y.second;
    });
    for (int q = 0; q < k; ++q) {
      bool const has = q < static_cast<int>(all.size());
      r.indices.push_back(has ? static_cast<std::int32_t>(all[q].second) : -1);
      r.values.push_back(has ? all[q].first : (larger ? -INFINITY : INFINITY));
    }
  }
  return r;
}

/// Every index and value of `got` equals `want`'s (the first difference reported).
inline void expect_same_neighbors(twobody::neighbors_result const& got, twobody::neighbors_result const& want, std::string const& what)
{
  ASSERT_EQ(got.size, want.size) << what;
  ASSERT_EQ(got.k, want.k) << what;
  ASSERT_EQ(got.indices.size(), want.indices.size()) << what;
  ASSERT_EQ(got.values.size(), want.values.size()) << what;
  std::size_t wrong = 0, first = 0;
  for (std::size_t q = 0; q < got.indices.size(); ++q) {
    bool const same = got.indices[q] == want.indices[q] &&
                      (got.values[q] == want.values[q] || (std::isnan(got.values[q]) && std::isnan(want.values[q])));
    if (!same && wrong++ == 0) { first = q; }
  }
  EXPECT_EQ(wrong, 0u) << what << ": first at point " << first / want.k << " rank " << first % want.k << ": got ("
                       << got.indices[first] << ", " << got.values[first] << ") want (" << want.indices[first] << ", "
                       << want.values[first] << ")";
}

/// 1 / (1 + v): a kernel of any shape, for function_of.
struct inverse_quadratic {
  __host__ __device__ float operator()(float v) const { return 1.0f / (1.0f + v); }
};

/// call() must throw a twobody::error whose message contains `words`.
template <class Call>
void expect_error(Call&& call, char const* words)
{
  try {
    call();
    ADD_FAILURE() << "expected twobody::error mentioning '" << words << "'";
  } catch (twobody::error const& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

/// A bound on how far the tensor cores' approximate value of a pair may lie from the exact one:
/// the margin of rows/row_terms.cuh (twice over, for slack) from the exact squared norms
/// na, nb and the exact value v. Join records of pairs the GPU decided without recomputing
/// carry the approximation, so they must lie within it.
template <class T>
double margin_bound(twobody::detail::row_metric_kind m, int dims, double na, double nb, double v)
{
  using K          = twobody::detail::row_metric_kind;
  int const padded = twobody::detail::padded_dims<T>(dims);
  double const rho = twobody::detail::row_core_t<T>::relative_error(padded);  // the default core's (double rows: the CUDA cores')
  double const abs_term = padded * 0x1p-100;
  double ms = (rho + 0x1p-20) * (na + nb) + 0x1p-22 * std::fabs(v) + abs_term;
  double bound = 0;
  switch (m) {
    case K::squared_euclidean: bound = ms; break;
    case K::euclidean: bound = std::min(std::sqrt(ms), v > 0 ? ms / v : INFINITY) + 0x1p-22 * v; break;
    case K::dot_product: bound = rho * std::sqrt(na * nb) + 0x1p-22 * std::fabs(v) + abs_term; break;
    default: bound = rho + 0x1p-20; break;
  }
  return 2.5 * bound;
}

/// The records of a join of rows sorted by (i, j).
inline std::vector<twobody::index_pair_value<float>> sorted_records(std::vector<twobody::index_pair_value<float>> r)
{
  std::sort(r.begin(), r.end(), [](auto const& x, auto const& y) { return x.i < y.i || (x.i == y.i && x.j < y.j); });
  return r;
}

/// The same pairs in `got` as in `want` (any order), each value within tol(i, j, exact value)
/// of want's (0: equal).
template <class Tol>
void expect_same_records(std::vector<twobody::index_pair_value<float>> got, std::vector<twobody::index_pair_value<float>> want,
                         std::string const& what, Tol&& tol)
{
  got  = sorted_records(std::move(got));
  want = sorted_records(std::move(want));
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t wrong = 0, far = 0, first = 0;
  for (std::size_t q = 0; q < got.size(); ++q) {
    if (got[q].i != want[q].i || got[q].j != want[q].j) {
      if (wrong++ == 0) { first = q; }
    } else if (!(std::fabs(static_cast<double>(got[q].value) - want[q].value) <= tol(want[q].i, want[q].j, want[q].value))) {
      if (far++ == 0 && wrong == 0) { first = q; }
    }
  }
  EXPECT_EQ(wrong, 0u) << what << ": first pair differing at record " << first << ": got (" << got[first].i << ", " << got[first].j
                       << ") want (" << want[first].i << ", " << want[first].j << ")";
  EXPECT_EQ(far, 0u) << what << ": first value out of tolerance at (" << want[first].i << ", " << want[first].j << "): got "
                     << got[first].value << " want " << want[first].value;
}

/// The records whose reference value (plain double sums) passes keep(v), in (i, j) order.
template <class T, class Keep>
std::vector<twobody::index_pair_value<float>> reference_join(twobody::pair_mode mode, twobody::detail::row_metric_kind m,
                                                             host_rows<T> const& a, host_rows<T> const& b, Keep&& keep)
{
  std::vector<twobody::index_pair_value<float>> out;
  host_rows<T> const& other = mode == twobody::pair_mode::cross ? b : a;
  for_each_pair(mode, a.n, other.n, [&](std::int64_t i, std::int64_t j) {
    float const v = reference_value(m, a, i, other, j);
    if (keep(v)) { out.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), v}); }
  });
  return out;
}

}  // namespace tbt
