#pragma once

#include <twobody/points.cuh>

namespace twobody::detail {

constexpr int padded_count(int n, int elem_bytes)
{
  // Round n values up to the next 16-byte vector (float: 4, double: 2), except for 1 or 2
  // values that already form a 4- or 8-byte (float) vector.
  int const per16 = 16 / elem_bytes;
  if (n * elem_bytes <= 8 && (n == 1 || n == 2)) { return n; }
  return (n + per16 - 1) / per16 * per16;
}
constexpr int vector_alignment(int bytes) { return bytes >= 16 ? 16 : (bytes >= 8 ? 8 : (bytes >= 4 ? 4 : bytes)); }

/// A point (and its weight, for weighted sets) as one padded vector in shared memory or
/// in shuffled registers: x, y, z, w of a weighted float 3-D point is one float4, so a
/// broadcast read of the whole point is a single 16-byte shared load.
template <class T, int D, bool Weighted>
struct alignas(vector_alignment(padded_count(D + (Weighted ? 1 : 0), sizeof(T)) * int(sizeof(T)))) stored_point {
  static constexpr int values = D + (Weighted ? 1 : 0);
  T v[padded_count(values, sizeof(T))];

  __host__ __device__ static stored_point make(point<T, D> const& p, T w)
  {
    stored_point s{};
TWOBODY_UNROLL
    for (int d = 0; d < D; ++d) { s.v[d] = p.x[d]; }
    if constexpr (Weighted) { s.v[D] = w; }
    return s;
  }
  __host__ __device__ point<T, D> coords() const
  {
    point<T, D> p;
TWOBODY_UNROLL
    for (int d = 0; d < D; ++d) { p.x[d] = v[d]; }
    return p;
  }
  __host__ __device__ T weight() const
  {
    if constexpr (Weighted) {
      return v[D];
    } else {
      return T(1);
    }
  }
};

}  // namespace twobody::detail
