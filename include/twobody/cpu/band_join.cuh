/// \file band_join.cuh
/// \brief The CPU backend's sort-based band join: the rows of B with a non-NaN key sorted by
/// key, each row of A's partners found by two binary searches (the predicates of
/// math/band_keys.cuh, as on the GPU), then the emitter on those candidates only.
#pragma once

#include <twobody/cpu/backend.cuh>
#include <twobody/dispatch/as_emitter.cuh>
#include <twobody/emitters.cuh>
#include <twobody/math/band_keys.cuh>
#include <twobody/points.cuh>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace twobody::cpu {

/// The records `x` (an emitter, or a predicate for index pairs) keeps among the pairs with
/// lower <= b[column] - a[column] <= upper, in (i, j) order. Self and cross pairs; self mode
/// gives each unordered pair once as (i, j), i < j, tested as band(a_i, a_j).
template <class Points, class X>
std::vector<join_record_t<X>> band_join(pair_set<Points> const& pairs, int column, typename Points::value_type lower,
                                        typename Points::value_type upper, X const& x)
{
  using T      = typename Points::value_type;
  auto const e = twobody::detail::as_emitter(x);
  using Record = typename decltype(e)::record_type;
  twobody::detail::check_record<Record>();
  detail::validate(pairs);
  TWOBODY_EXPECTS(pairs.mode != pair_mode::ordered, "band_join (sorted): self or cross pairs");
  bool const self           = pairs.mode == pair_mode::self;
  Points const& b           = self ? pairs.a : pairs.b;
  auto const band           = twobody::detail::make_band_test(lower, upper);
  auto const search         = self ? band.hull() : band;  // self: both orders, then i < j and the band
  T const* const ka         = pairs.a.coords[column];
  T const* const kb         = b.coords[column];

  // B's rows with a non-NaN key, by key (ties by row, so the order is deterministic).
  std::vector<std::uint32_t> order;
  order.reserve(static_cast<std::size_t>(b.size));
  for (std::int64_t j = 0; j < b.size; ++j) {
    if (!twobody::detail::key_is_nan(kb[j])) { order.push_back(static_cast<std::uint32_t>(j)); }
  }
  std::sort(order.begin(), order.end(), [&](std::uint32_t p, std::uint32_t q) {
    return kb[p] < kb[q] || (!(kb[q] < kb[p]) && p < q);
  });
  std::vector<T> keys(order.size());
  for (std::size_t q = 0; q < order.size(); ++q) { keys[q] = kb[order[q]]; }

  return detail::records_by_row<Record>(
    pairs.a.size,
    [&](std::int64_t i, std::vector<Record>& out) {
    thread_local std::vector<std::uint32_t> partners;  // reused across rows
    unsigned long long begin = 0, end = 0;
    twobody::detail::band_range(search, ka[i], keys.data(), 0, keys.size(), begin, end);
    partners.assign(order.begin() + static_cast<std::ptrdiff_t>(begin), order.begin() + static_cast<std::ptrdiff_t>(end));
    std::sort(partners.begin(), partners.end());
    auto const a = pairs.a[i];
    for (std::uint32_t const j : partners) {
      if (self && (j <= i || !band(ka[i], kb[j]))) { continue; }
      Record r{};
      if (e(a, b[j], i, j, r)) { out.push_back(r); }
    }
    },
    [](std::int64_t) { return std::uint64_t{1}; });  // rows: the work of a row is its band's, unknown ahead
}

}  // namespace twobody::cpu
