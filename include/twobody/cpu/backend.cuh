/// \file backend.cuh
/// \brief CPU backend: the same pair sets, functors, binnings and operators evaluated on
/// the host with OpenMP (per-thread private outputs, guided scheduling over the rows so
/// the shrinking rows of self mode stay balanced). The reference for tests, the baseline
/// for benchmarks and the fallback without a GPU. Point arrays must be in host memory.
/// Without OpenMP (compile without -fopenmp) it runs on one thread.
#pragma once

#include <twobody/detail/error.cuh>
#include <twobody/emitters.cuh>
#include <twobody/points.cuh>

#include <cuda/std/functional>

#include <algorithm>
#include <cstdint>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace twobody::cpu {
namespace detail {

template <class Points>
void validate(pair_set<Points> const& pairs)
{
  TWOBODY_EXPECTS(pairs.a.size >= 0 && pairs.b.size >= 0, "point sets must not have a negative size");
  if (pairs.mode != pair_mode::cross) {
    TWOBODY_EXPECTS(pairs.b.size == pairs.a.size, "self and ordered pair sets need b == a");
  }
}

/// Calls visit(i, j) for every pair of row i (host loop body shared by all statistics).
template <class Points, class Visit>
inline void for_each_partner(pair_set<Points> const& pairs, std::int64_t i, Visit&& visit)
{
  std::int64_t const nb = pairs.mode == pair_mode::cross ? pairs.b.size : pairs.a.size;
  std::int64_t const j0 = pairs.mode == pair_mode::self ? i + 1 : 0;
  for (std::int64_t j = j0; j < nb; ++j) {
    if (pairs.mode == pair_mode::ordered && j == i) { continue; }
    visit(j);
  }
}

inline int max_threads()
{
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}
inline int thread_id()
{
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

}  // namespace detail

/// Histogram on the host: `counts` gets bins.size() + 1 values (the last one: outside).
template <class Points, class F, class Binning, class Count>
void histogram(pair_set<Points> const& pairs, F f, Binning const& bins, Count* counts)
{
  static_assert(!Points::weighted || cuda::std::is_floating_point_v<Count>,
                "twobody::cpu::histogram: a weighted point set needs double counts");
  detail::validate(pairs);
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram: need at least one bin");
  TWOBODY_EXPECTS(counts != nullptr, "histogram: the counts pointer is null");
  std::size_t const slots = static_cast<std::size_t>(bins.size()) + 1;
  Points const& b = pairs.mode == pair_mode::cross ? pairs.b : pairs.a;
  std::vector<std::vector<Count>> priv(detail::max_threads(), std::vector<Count>(slots, Count{}));
#pragma omp parallel for schedule(guided)
  for (std::int64_t i = 0; i < pairs.a.size; ++i) {
    auto& h      = priv[detail::thread_id()];
    auto const p = pairs.a[i];
    auto const w = pairs.a.weight(i);
    detail::for_each_partner(pairs, i, [&](std::int64_t j) {
      auto const s = bins(f(p, b[j]));
      if constexpr (Points::weighted) {
        h[s] += static_cast<Count>(w * b.weight(j));
      } else {
        h[s] += Count(1);
      }
    });
  }
  for (std::size_t s = 0; s < slots; ++s) {
    Count total{};
    for (auto const& h : priv) { total += h[s]; }
    counts[s] = total;
  }
}

/// Reduction on the host (weighted sets multiply each value by w_i w_j first).
template <class Points, class F, class Op, class T>
T reduce_pairs(pair_set<Points> const& pairs, F f, Op op, T identity)
{
  detail::validate(pairs);
  Points const& b = pairs.mode == pair_mode::cross ? pairs.b : pairs.a;
  std::vector<T> priv(detail::max_threads(), identity);
#pragma omp parallel for schedule(guided)
  for (std::int64_t i = 0; i < pairs.a.size; ++i) {
    T acc        = identity;
    auto const p = pairs.a[i];
    auto const w = pairs.a.weight(i);
    detail::for_each_partner(pairs, i, [&](std::int64_t j) {
      if constexpr (Points::weighted) {
        acc = op(acc, static_cast<T>(static_cast<T>(f(p, b[j])) * (w * b.weight(j))));
      } else {
        acc = op(acc, static_cast<T>(f(p, b[j])));
      }
    });
    T& mine = priv[detail::thread_id()];
    mine    = op(mine, acc);
  }
  T total = identity;
  for (T const& v : priv) { total = op(total, v); }
  return total;
}

/// Pairs with pred(a, b) true (weighted sets: the sum of w_i w_j over them).
template <class Points, class Pred>
cuda::std::conditional_t<Points::weighted, double, unsigned long long> count_pairs(pair_set<Points> const& pairs,
                                                                                   Pred pred)
{
  using C = cuda::std::conditional_t<Points::weighted, double, unsigned long long>;
  return cpu::reduce_pairs(pairs, pred, cuda::std::plus<C>{}, C{});
}

/// out[i] = sum over the partners j of a_i of f(a_i, b_j) (cross: all of B; ordered: j != i).
template <class Points, class F, class Out>
void sum_per_point(pair_set<Points> const& pairs, F f, Out* out)
{
  static_assert(!Points::weighted, "cpu::sum_per_point: weighted point sets are not supported");
  detail::validate(pairs);
  TWOBODY_EXPECTS(pairs.mode != pair_mode::self,
                  "sum_per_point: self pairs visit each pair once; use ordered_pairs (all j != i) or cross_pairs");
  Points const& b = pairs.mode == pair_mode::cross ? pairs.b : pairs.a;
#pragma omp parallel for schedule(guided)
  for (std::int64_t i = 0; i < pairs.a.size; ++i) {
    Out acc{};
    auto const p = pairs.a[i];
    detail::for_each_partner(pairs, i, [&](std::int64_t j) { acc += static_cast<Out>(f(p, b[j])); });
    out[i] = acc;
  }
}

/// Join on the host: the records `x` (an emitter, or a predicate for index pairs) keeps, in
/// (i, j) order (rows split into contiguous chunks, one record vector per chunk, joined in
/// row order). The reference for the GPU joins.
template <class Points, class X>
std::vector<typename twobody::detail::emitter_t<X>::record_type> join(pair_set<Points> const& pairs, X const& x)
{
  auto const e = twobody::detail::as_emitter(x);
  using Record = typename decltype(e)::record_type;
  twobody::detail::check_record<Record>();
  detail::validate(pairs);
  Points const& b         = pairs.mode == pair_mode::cross ? pairs.b : pairs.a;
  std::int64_t const rows = pairs.a.size;
  std::int64_t const chunks = rows == 0 ? 0 : std::min<std::int64_t>(rows, 64 * detail::max_threads());
  std::vector<std::vector<Record>> parts(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t c = 0; c < chunks; ++c) {
    auto& out = parts[static_cast<std::size_t>(c)];
    for (std::int64_t i = rows * c / chunks; i < rows * (c + 1) / chunks; ++i) {
      auto const p = pairs.a[i];
      detail::for_each_partner(pairs, i, [&](std::int64_t j) {
        Record r{};
        if (e(p, b[j], i, j, r)) { out.push_back(r); }
      });
    }
  }
  std::vector<Record> all;
  std::size_t total = 0;
  for (auto const& v : parts) { total += v.size(); }
  all.reserve(total);
  for (auto const& v : parts) { all.insert(all.end(), v.begin(), v.end()); }
  return all;
}

}  // namespace twobody::cpu
