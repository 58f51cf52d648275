/// \file rows.cuh
/// \brief The CPU backend for high-dimensional rows (twobody/rows.cuh): every pair by the exact
/// evaluation (math/row_exact.cuh) that also defines the GPU's answers, OpenMP over the rows.
#pragma once

#include <twobody/cpu/backend.cuh>
#include <twobody/math/row_exact.cuh>
#include <twobody/math/row_metric_kind.cuh>
#include <twobody/math/row_rules.cuh>
#include <twobody/results.cuh>
#include <twobody/rows.cuh>

#include <vector>

namespace twobody::cpu {
namespace detail {

/// Exact squared norms of a row set (the cosines need them), in the exact evaluation's order.
template <class T, bool W>
std::vector<double> exact_norms(rows<T, W> const& r, twobody::detail::row_metric_kind m)
{
  if (m != twobody::detail::row_metric_kind::cosine_similarity && m != twobody::detail::row_metric_kind::cosine_distance) {
    return {};
  }
  std::vector<double> n(static_cast<std::size_t>(r.size));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < r.size; ++i) {
    T const* p = r.data + i * r.ld;
    n[static_cast<std::size_t>(i)] = twobody::detail::exact_sum_host(p, p, r.dims, true);
  }
  return n;
}

/// The value of metric m for the pair (i, j) of a row pair set by the exact evaluation: the
/// CPU's definition of every row statistic (B is A outside cross mode).
template <class T, bool W>
struct row_pair_values {
  rows<T, W> a, b;
  twobody::detail::row_metric_kind m;
  std::vector<double> na, nb;  ///< exact squared norms (cosines only)

  row_pair_values(pair_set<rows<T, W>> const& pairs, twobody::detail::row_metric_kind metric)
    : a(pairs.a), b(pairs.mode == pair_mode::cross ? pairs.b : pairs.a), m(metric), na(exact_norms(a, m)),
      nb(pairs.mode == pair_mode::cross ? exact_norms(b, m) : na)
  {
  }

  float operator()(std::int64_t i, std::int64_t j) const
  {
    using namespace twobody::detail;
    double const s = exact_sum_host(a.data + i * a.ld, b.data + j * b.ld, a.dims, sums_products(m));
    return metric_from_sum(m, s, na.empty() ? 0.0 : na[static_cast<std::size_t>(i)], nb.empty() ? 0.0 : nb[static_cast<std::size_t>(j)]);
  }
};

/// Calls visit(state, value, weight) for every pair, the value by the exact evaluation; one
/// instance of `State` per OpenMP thread, returned for the caller to combine.
template <class T, bool W, class State, class Visit>
std::vector<State> for_each_row_pair(pair_set<rows<T, W>> const& pairs, twobody::detail::row_metric_kind m,
                                     State const& init, Visit&& visit)
{
  row_pair_values<T, W> const value(pairs, m);
  std::vector<State> priv(static_cast<std::size_t>(max_threads()), init);
  progress_poll poll(static_cast<std::uint64_t>(pairs.count()));
#pragma omp parallel for schedule(guided)
  for (std::int64_t i = 0; i < value.a.size; ++i) {
    if (poll.stopped()) { continue; }
    State& mine     = priv[static_cast<std::size_t>(thread_id())];
    double const wi = W ? static_cast<double>(value.a.weights[i]) : 1.0;
    for_each_partner(pairs, i, [&](std::int64_t j) {
      visit(mine, value(i, j), W ? wi * static_cast<double>(value.b.weights[j]) : 1.0);
    });
    poll.done(partners_of(pairs, i));
  }
  poll.finish();
  return priv;
}

}  // namespace detail

/// Pairs of rows whose metric value passes `pred` (closer_than, at_least, within_radius);
/// weighted sets: the sum of w_i w_j over them.
template <class T, bool W, class Pred>
pair_count_t<rows<T, W>> count_pairs(pair_set<rows<T, W>> const& pairs, Pred pred)
{
  using C = pair_count_t<rows<T, W>>;
  twobody::detail::validate(pairs);
  twobody::detail::row_predicate<Pred> const test(pred);
  auto const priv = detail::for_each_row_pair(pairs, test.metric, C{}, [&](C& acc, float v, double w) {
    if (test(v)) {
      if constexpr (W) {
        acc += w;
      } else {
        acc += 1;
      }
    }
  });
  C total{};
  for (C const& c : priv) { total += c; }
  return total;
}

/// Histogram of the metric's values over the pairs of rows (bins + outside, as on the GPU).
template <class T, bool W, class Metric>
histogram_result<pair_count_t<rows<T, W>>> histogram(pair_set<rows<T, W>> const& pairs, Metric, uniform_bins<float> const& bins)
{
  using C = pair_count_t<rows<T, W>>;
  static_assert(twobody::detail::is_row_metric<Metric>::value,
                "rows support squared_euclidean, euclidean, dot_product, cosine_similarity, cosine_distance");
  twobody::detail::validate(pairs);
  std::size_t const slots = static_cast<std::size_t>(bins.size()) + 1;
  auto const priv = detail::for_each_row_pair(pairs, twobody::detail::row_metric<Metric>::kind, std::vector<C>(slots),
                                              [&](std::vector<C>& h, float v, double w) {
                                                if constexpr (W) {
                                                  h[static_cast<std::size_t>(bins(v))] += w;
                                                } else {
                                                  h[static_cast<std::size_t>(bins(v))] += 1;
                                                }
                                              });
  std::vector<C> all(slots);
  for (auto const& h : priv) {
    for (std::size_t s = 0; s < slots; ++s) { all[s] += h[s]; }
  }
  return histogram_result<C>::from_slots(std::move(all), pairs.count());
}

/// The pairs of rows whose value passes `pred`, as {i, j, value} in (i, j) order.
template <class T, bool W, class Pred>
std::vector<index_pair_value<float>> join(pair_set<rows<T, W>> const& pairs, Pred pred)
{
  using Record = index_pair_value<float>;
  twobody::detail::validate(pairs);
  twobody::detail::row_join_emitter<Pred> const keep{twobody::detail::row_predicate<Pred>(pred)};
  detail::row_pair_values<T, W> const value(pairs, keep.test.metric);
  return detail::records_by_row<Record>(
    value.a.size,
    [&](std::int64_t i, std::vector<Record>& out) {
      detail::for_each_partner(pairs, i, [&](std::int64_t j) {
        Record r{};
        if (keep(value(i, j), 0.0f, i, j, r)) { out.push_back(r); }
      });
    },
    [&](std::int64_t i) { return detail::partners_of(pairs, i); });
}

/// out[i] = the sum of f(value) over the partners j of row i (cross: all of B; ordered: every
/// j != i), the terms from the exact values, summed in double.
template <class T, bool W, class F>
std::vector<double> sum_per_point(pair_set<rows<T, W>> const& pairs, F f)
{
  twobody::detail::validate(pairs);
  twobody::detail::check_row_sums(pairs);
  twobody::detail::row_function<F> const term(f);
  detail::row_pair_values<T, W> const value(pairs, term.metric);
  std::vector<double> out(static_cast<std::size_t>(value.a.size));
  detail::progress_poll poll(static_cast<std::uint64_t>(pairs.count()));
#pragma omp parallel for schedule(guided)
  for (std::int64_t i = 0; i < value.a.size; ++i) {
    if (poll.stopped()) { continue; }
    double acc = 0;
    detail::for_each_partner(pairs, i, [&](std::int64_t j) { acc += static_cast<double>(term(value(i, j))); });
    out[static_cast<std::size_t>(i)] = acc;
    poll.done(detail::partners_of(pairs, i));
  }
  poll.finish();
  return out;
}

}  // namespace twobody::cpu
