#pragma once

/// The exact evaluation that defines the value of a metric on two rows (rows.cuh), the same bit
/// for bit on the GPU and on the CPU backend:
///  - the sum (of (a_k - b_k)^2, or of a_k b_k) runs in double, each term by one fma, in the
///    order of a warp: lane l sums k = l, l + 32, l + 64, ... in turn, then the 32 partial sums
///    are added pairwise as a butterfly (l and l ^ 16, then ^ 8, ^ 4, ^ 2, ^ 1);
///  - the metric is computed from those sums in double (euclidean: sqrt; cosines: the dot
///    product over sqrt(|a|^2 |b|^2), with the norms evaluated the same way) and rounded once
///    to float.
/// For float, half and bfloat16 rows every difference and product is exact or nearly so in
/// double, so this is the correctly rounded float value of the metric except in the rare case
/// of a sum within D * 2^-52 (relative) of a rounding boundary, where both sides still agree.
/// For double rows the differences and products round in double too: the value is this
/// evaluation itself (within about (D + 1) 2^-53 of the real metric, relative to the sum of
/// the terms' magnitudes, before the one rounding to float), the same on both backends.
/// A NaN coordinate makes the value NaN (never within a threshold, counted as outside a
/// histogram's bins).

#include <twobody/math/row_metric_kind.cuh>
#include <twobody/row_metrics.cuh>
#include <twobody/rows.cuh>

#include <cmath>
#include <cstdint>

namespace twobody::detail {

inline constexpr int exact_lanes = 32;

/// A row element as float and as double (both exact for float, half and bfloat16).
__host__ __device__ inline float as_float(float x) { return x; }
__host__ __device__ inline float as_float(__half x) { return __half2float(x); }
__host__ __device__ inline float as_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T>
__host__ __device__ inline double as_double(T x)
{
  return static_cast<double>(as_float(x));
}
/// A double element: as_double is the element, as_float rounds it to nearest (the CUDA cores'
/// FP32 products take that; their margin counts the rounding, simt_row_products.cuh).
__host__ __device__ inline double as_double(double x) { return x; }
__host__ __device__ inline float as_float(double x) { return static_cast<float>(x); }

/// A float as a row element (round to nearest; exact for float and double): test data and benchmarks.
template <class T>
__host__ __device__ inline T row_element(float v)
{
  if constexpr (cuda::std::is_same_v<T, __half>) {
    return __float2half_rn(v);
  } else if constexpr (cuda::std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(v);
  } else {
    return v;
  }
}

/// True for metrics whose sum is of products (dot product, cosines), false for squared differences.
__host__ __device__ constexpr bool sums_products(row_metric_kind m)
{
  return m == row_metric_kind::dot_product || m == row_metric_kind::cosine_similarity ||
         m == row_metric_kind::cosine_distance;
}

/// One term of a sum, by one fma: the product x y, or the square of x - y.
__host__ __device__ inline double exact_term(double s, double x, double y, bool products)
{
  double const d = products ? x : x - y;
  return fma(d, products ? y : d, s);
}

/// Lane `lane`'s partial sum over k = lane, lane + 32, ... < dims.
template <class T>
__host__ __device__ inline double lane_partial(T const* a, T const* b, int dims, int lane, bool products)
{
  double s = 0.0;
  for (int k = lane; k < dims; k += exact_lanes) { s = exact_term(s, as_double(a[k]), as_double(b[k]), products); }
  return s;
}

/// The exact sum on the host: the 32 lanes one after another, then the butterfly.
template <class T>
inline double exact_sum_host(T const* a, T const* b, int dims, bool products)
{
  double v[exact_lanes];
  for (int l = 0; l < exact_lanes; ++l) { v[l] = lane_partial(a, b, dims, l, products); }
  for (int o = exact_lanes / 2; o >= 1; o /= 2) {
    double w[exact_lanes];
    for (int l = 0; l < exact_lanes; ++l) { w[l] = v[l] + v[l ^ o]; }
    for (int l = 0; l < exact_lanes; ++l) { v[l] = w[l]; }
  }
  return v[0];
}

#ifdef __CUDACC__
/// Element `lane` and element 32 + `lane` of a 64-element slice of 16-bit values, from the
/// slice's 32 words (word w of lane w: elements 2 w and 2 w + 1).
template <class T>
__device__ inline void slice_elements(std::uint32_t word, int lane, double& first, double& second)
{
  std::uint32_t const lo = __shfl_sync(0xffffffffu, word, lane >> 1);
  std::uint32_t const hi = __shfl_sync(0xffffffffu, word, 16 + (lane >> 1));
  auto const pick = [&](std::uint32_t w) {
    unsigned short const bits = static_cast<unsigned short>((lane & 1) != 0 ? w >> 16 : w & 0xffffu);
    if constexpr (cuda::std::is_same_v<T, __half>) {
      return as_double(__ushort_as_half(bits));
    } else {
      return as_double(__ushort_as_bfloat16(bits));
    }
  };
  first  = pick(lo);
  second = pick(hi);
}

/// The exact sums of pairs q < count of up to B pairs (a[q], b[q]) by one warp (every lane gets
/// them), each in exact_sum_host's order. The pairs' loads and sums are interleaved, so a warp
/// waits on memory once per batch of pairs rather than once per pair (a recomputation is a
/// round trip to memory and a chain of dependent shuffles). 16-bit rows of at least 256
/// elements in whole 64-element slices (the staged rows) are read a word per lane and slice, up
/// to 32 slices of both rows in flight (16 for one pair), the elements handed to the lanes that
/// sum them by shuffles: at D = 4096 a pair waits on 4 round trips to memory instead of 32.
template <int B, class T>
__device__ inline void exact_sums_warp(T const* const (&a)[B], T const* const (&b)[B], int count, int dims, bool products,
                                       double (&s)[B])
{
  int const lane = static_cast<int>(threadIdx.x & 31u);
  bool words     = sizeof(T) == 2 && dims >= 256 && dims % 64 == 0;
#pragma unroll
  for (int q = 0; q < B; ++q) {
    s[q] = 0.0;
    if (q < count) {
      words = words && reinterpret_cast<std::uintptr_t>(a[q]) % 4 == 0 && reinterpret_cast<std::uintptr_t>(b[q]) % 4 == 0;
    }
  }
  if constexpr (sizeof(T) == 2) {
    if (words) {
      // Slices of each pair per round: 16 for one pair, 8 for more (16 slices of 4 pairs, 128
      // registers, made the 16-bit kernels slower: knn at D = 960 3-7%).
      constexpr int batch = B == 1 ? 16 : 8;
      int const slices = dims / 64;
      for (int m0 = 0; m0 < slices; m0 += batch) {
        std::uint32_t xa[B][batch], xb[B][batch];
#pragma unroll
        for (int q = 0; q < B; ++q) {
          auto const* wa = reinterpret_cast<std::uint32_t const*>(a[q]);
          auto const* wb = reinterpret_cast<std::uint32_t const*>(b[q]);
#pragma unroll
          for (int r = 0; r < batch; ++r) {
            bool const in = q < count && m0 + r < slices;
            xa[q][r]      = in ? wa[32 * (m0 + r) + lane] : 0u;
            xb[q][r]      = in ? wb[32 * (m0 + r) + lane] : 0u;
          }
        }
#pragma unroll
        for (int q = 0; q < B; ++q) {
#pragma unroll
          for (int r = 0; r < batch; ++r) {
            if (q < count && m0 + r < slices) {  // the same for the whole warp
              double a0, a1, b0, b1;
              slice_elements<T>(xa[q][r], lane, a0, a1);
              slice_elements<T>(xb[q][r], lane, b0, b1);
              s[q] = exact_term(s[q], a0, b0, products);  // element 64 m + lane, then 64 m + 32 + lane: lane_partial's order
              s[q] = exact_term(s[q], a1, b1, products);
            }
          }
        }
      }
    }
  }
  if (!words) {
#pragma unroll 4
    for (int k = lane; k < dims; k += exact_lanes) {
#pragma unroll
      for (int q = 0; q < B; ++q) {
        if (q < count) { s[q] = exact_term(s[q], as_double(a[q][k]), as_double(b[q][k]), products); }
      }
    }
  }
  for (int o = exact_lanes / 2; o >= 1; o /= 2) {
#pragma unroll
    for (int q = 0; q < B; ++q) { s[q] = s[q] + __shfl_xor_sync(0xffffffffu, s[q], o); }
  }
}

/// The exact sum of one pair by one warp (every lane gets it): exact_sums_warp of one pair.
template <class T>
__device__ inline double exact_sum_warp(T const* a, T const* b, int dims, bool products)
{
  T const* const as[1] = {a};
  T const* const bs[1] = {b};
  double s[1];
  exact_sums_warp<1>(as, bs, 1, dims, products, s);
  return s[0];
}
#endif

/// The metric from its exact sum (and, for the cosines, the exact squared norms), rounded once.
__host__ __device__ inline float metric_from_sum(row_metric_kind m, double s, double norm_a, double norm_b)
{
  switch (m) {
    case row_metric_kind::squared_euclidean: return static_cast<float>(s);
    case row_metric_kind::euclidean: return static_cast<float>(sqrt(s));
    case row_metric_kind::dot_product: return static_cast<float>(s);
    case row_metric_kind::cosine_similarity: return static_cast<float>(s / sqrt(norm_a * norm_b));
    case row_metric_kind::cosine_distance: return static_cast<float>(1.0 - s / sqrt(norm_a * norm_b));
  }
  return NAN;
}

}  // namespace twobody::detail
