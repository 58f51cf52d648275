#pragma once

/// The band predicate on one key column, lower <= b - a <= upper, as the nested loop
/// (band_fn), the sorted join and the CPU backend all evaluate it, so that every path keeps
/// the same pairs:
///  - integer keys: the exact difference (in a wider type: no overflow, no wrap-around);
///  - floating keys: the rounded difference fl(b - a), as a plain subtraction gives it. It is
///    monotone in b for a fixed a, so the partners of a in keys sorted ascending are one
///    contiguous range, found by two binary searches. The one exception, an infinite a and
///    the equal infinity b (b - a is NaN, never kept), lies at that end of the order: the
///    range searches place it past that end.
///  - NaN keys never match (NaN - x is NaN, and comparisons with NaN are false).

#include <cuda/std/type_traits>

namespace twobody::detail {

/// The type the difference of two keys is computed in: exact for 32- and 64-bit integers.
template <class T, class = void>
struct key_difference {
  using type = T;  // floating point: the rounded difference
};
template <class T>
struct key_difference<T, cuda::std::enable_if_t<cuda::std::is_integral_v<T> && sizeof(T) == 4>> {
  using type = long long;
};
template <class T>
struct key_difference<T, cuda::std::enable_if_t<cuda::std::is_integral_v<T> && sizeof(T) == 8>> {
  using type = __int128;
};
template <class T>
using key_difference_t = typename key_difference<T>::type;

template <class T>
__host__ __device__ constexpr bool key_is_nan(T k)
{
  if constexpr (cuda::std::is_floating_point_v<T>) {
    return k != k;
  } else {
    (void)k;
    return false;
  }
}

/// lower <= b - a <= upper on keys of type T. The bounds are held in the difference type, so
/// a hull such as [-upper, upper] never overflows.
template <class T>
struct band_test {
  using diff_type = key_difference_t<T>;
  diff_type lower;
  diff_type upper;

  __host__ __device__ static diff_type difference(T a, T b)
  {
    return static_cast<diff_type>(b) - static_cast<diff_type>(a);
  }

  /// b is at or past the lower end of a's band (lower <= b - a). Monotone in b over keys
  /// sorted ascending (NaN keys excluded).
  __host__ __device__ bool reaches_lower(T a, T b) const
  {
    diff_type const d = difference(a, b);
    if (key_is_nan(d)) { return a > T(0); }  // a = b = +inf sorts last, a = b = -inf first
    return lower <= d;
  }
  /// b is not past the upper end of a's band (b - a <= upper). Monotone in b, as above.
  __host__ __device__ bool within_upper(T a, T b) const
  {
    diff_type const d = difference(a, b);
    if (key_is_nan(d)) { return a < T(0); }
    return d <= upper;
  }
  /// The predicate itself: false for NaN keys and for b - a NaN.
  __host__ __device__ bool operator()(T a, T b) const
  {
    diff_type const d = difference(a, b);
    return lower <= d && d <= upper;
  }
  /// lower == -upper: the band holds (a, b) exactly when it holds (b, a).
  __host__ __device__ bool symmetric() const { return lower == -upper; }
  /// The symmetric band that holds both orders of every pair this one holds.
  __host__ __device__ band_test hull() const
  {
    diff_type const m = upper > -lower ? upper : -lower;
    return {-m, m};
  }
};

template <class T>
__host__ __device__ band_test<T> make_band_test(T lower, T upper)
{
  return {static_cast<key_difference_t<T>>(lower), static_cast<key_difference_t<T>>(upper)};
}

/// First position q in [lo, hi) of `keys` (ascending, no NaN) where pred(keys[q]) is false,
/// for a predicate that is true on a prefix.
template <class T, class Pred>
__host__ __device__ unsigned long long partition_point(T const* keys, unsigned long long lo, unsigned long long hi,
                                                       Pred pred)
{
  while (lo < hi) {
    unsigned long long const mid = lo + (hi - lo) / 2;
    if (pred(keys[mid])) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// The partners of key a among keys[first, last) (ascending, no NaN): the range [begin, end)
/// of positions q with band(a, keys[q]). NaN a: empty.
template <class T>
__host__ __device__ void band_range(band_test<T> const& band, T a, T const* keys, unsigned long long first,
                                    unsigned long long last, unsigned long long& begin, unsigned long long& end)
{
  if (key_is_nan(a)) {
    begin = end = first;
    return;
  }
  begin = partition_point(keys, first, last, [&](T b) { return !band.reaches_lower(a, b); });
  end   = partition_point(keys, begin, last, [&](T b) { return band.within_upper(a, b); });
}

}  // namespace twobody::detail
