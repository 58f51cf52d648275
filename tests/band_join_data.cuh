// Test tables for band and equi-joins (host and GPU tests): key columns whose answers are
// unambiguous (integers, or floats whose differences are exact), and a brute-force reference
// written independently of the library's band predicate.
#pragma once

#include <twobody/twobody.cuh>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace tbt {

using index_pairs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

template <class R>
index_pairs sorted_pairs(std::vector<R> const& v)
{
  index_pairs out;
  out.reserve(v.size());
  for (auto const& r : v) { out.emplace_back(r.i, r.j); }
  std::sort(out.begin(), out.end());
  return out;
}

/// A table of two columns: the key (column 0) and a payload (column 1: a small integer, for
/// the further predicates of multi-predicate joins).
template <class T>
struct key_table {
  std::vector<T> key, payload;
  std::size_t size() const { return key.size(); }
  twobody::table<T, 2> view() const
  {
    return twobody::make_points<T>(static_cast<twobody::size_type>(key.size()), key.data(), payload.data());
  }
};

/// Key families of the issue: uniform keys (about `matches` partners per row for an equi-join),
/// long runs of equal keys, one key for all rows, keys that match nothing, negative keys,
/// keys near the type's limits; floats add +-0, NaN and +-inf.
template <class T>
key_table<T> make_keys(std::string const& family, std::size_t n, unsigned seed)
{
  std::mt19937_64 rng(seed);
  key_table<T> t;
  t.key.resize(n);
  t.payload.resize(n);
  for (std::size_t i = 0; i < n; ++i) { t.payload[i] = static_cast<T>(rng() % 8); }
  auto uni = [&](long long lo, long long hi) {  // integer in [lo, hi]
    return lo + static_cast<long long>(rng() % static_cast<unsigned long long>(hi - lo + 1));
  };
  for (std::size_t i = 0; i < n; ++i) {
    T& k = t.key[i];
    if (family == "uniform") {
      k = static_cast<T>(uni(-static_cast<long long>(n), static_cast<long long>(n)));
    } else if (family == "runs") {  // few distinct keys, long runs
      k = static_cast<T>(uni(-3, 3) * 5);
    } else if (family == "one") {
      k = static_cast<T>(7);
    } else if (family == "none") {  // seed parity picks a disjoint key set per side
      k = static_cast<T>(2 * uni(0, 1000) + (seed & 1));
    } else if (family == "extreme") {  // near the limits: differences overflow T
      if constexpr (std::is_integral_v<T>) {
        T const lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
        switch (rng() % 4) {
          case 0: k = static_cast<T>(lo + static_cast<T>(rng() % 3)); break;
          case 1: k = static_cast<T>(hi - static_cast<T>(rng() % 3)); break;
          default: k = static_cast<T>(uni(-2, 2)); break;
        }
      } else {
        T const special[] = {T(0),
                             -T(0),
                             std::numeric_limits<T>::infinity(),
                             -std::numeric_limits<T>::infinity(),
                             std::numeric_limits<T>::quiet_NaN(),
                             -std::numeric_limits<T>::quiet_NaN(),
                             T(1),
                             T(-1),
                             T(0.5),
                             std::numeric_limits<T>::max(),
                             std::numeric_limits<T>::lowest()};
        k = special[rng() % (sizeof(special) / sizeof(special[0]))];
      }
    }
  }
  return t;
}

/// The reference: plain loops, the band tested in long double (integers: exact up to 64 bits;
/// floats: the rounded difference in T, as the library defines it).
template <class T>
bool in_band(T a, T b, T lower, T upper)
{
  if constexpr (std::is_integral_v<T>) {
    long double const d = static_cast<long double>(b) - static_cast<long double>(a);  // exact: 64-bit mantissa
    return static_cast<long double>(lower) <= d && d <= static_cast<long double>(upper);
  } else {
    volatile T const d = b - a;
    return lower <= d && d <= upper;
  }
}

/// Self mode: i < j, band(a_i, a_j); `extra(i, j)` a further test on the row indices.
template <class T, class Extra>
index_pairs brute_band(key_table<T> const& a, key_table<T> const* b, T lower, T upper, Extra extra)
{
  index_pairs out;
  auto const& bb = b != nullptr ? *b : a;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = b != nullptr ? 0 : i + 1; j < bb.size(); ++j) {
      if (in_band(a.key[i], bb.key[j], lower, upper) && extra(a.payload[i], bb.payload[j])) {
        out.emplace_back(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j));
      }
    }
  }
  return out;
}

/// The further predicate of the multi-predicate tests: payloads differ.
struct payload_differs {
  template <class P>
  __host__ __device__ bool operator()(P const& a, P const& b) const
  {
    return a[1] != b[1];
  }
};

}  // namespace tbt
