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
/// A NaN coordinate makes the value NaN (never within a threshold, counted as outside a
/// histogram's bins).

#include <twobody/row_metrics.cuh>
#include <twobody/rows.cuh>

#include <cmath>
#include <cstdint>

namespace twobody::detail {

inline constexpr int exact_lanes = 32;

/// A row element as float and as double (both exact).
__host__ __device__ inline float as_float(float x) { return x; }
__host__ __device__ inline float as_float(__half x) { return __half2float(x); }
__host__ __device__ inline float as_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T>
__host__ __device__ inline double as_double(T x)
{
  return static_cast<double>(as_float(x));
}

/// A float as a row element (round to nearest): test data and benchmarks.
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

/// Lane `lane`'s partial sum over k = lane, lane + 32, ... < dims.
template <class T>
__host__ __device__ inline double lane_partial(T const* a, T const* b, int dims, int lane, bool products)
{
  double s = 0.0;
  // Unrolled so that a warp's loads overlap; the sum stays one chain in k order.
#ifdef __CUDA_ARCH__
#pragma unroll 4
#endif
  for (int k = lane; k < dims; k += exact_lanes) {
    double const x = as_double(a[k]), y = as_double(b[k]);
    if (products) {
      s = fma(x, y, s);
    } else {
      double const d = x - y;
      s              = fma(d, d, s);
    }
  }
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

/// The exact sum by one warp (every lane gets it): the same order as exact_sum_host.
/// 16-bit rows of at least 256 elements in whole 64-element slices (the staged rows) are read a
/// word per lane and slice,
/// 16 slices of both rows in flight, and the elements handed to the lanes that sum them by
/// shuffles: at D = 4096 a pair waits on 4 round trips to memory instead of 32 (each lane's
/// 2-byte loads, 4 in flight).
template <class T>
__device__ inline double exact_sum_warp(T const* a, T const* b, int dims, bool products)
{
  int const lane = static_cast<int>(threadIdx.x & 31u);
  double s       = 0.0;
  bool const words = sizeof(T) == 2 && dims >= 256 && dims % 64 == 0 && reinterpret_cast<std::uintptr_t>(a) % 4 == 0 &&
                     reinterpret_cast<std::uintptr_t>(b) % 4 == 0;
  if constexpr (sizeof(T) == 2) {
    if (words) {
      constexpr int batch = 16;
      auto const* wa = reinterpret_cast<std::uint32_t const*>(a);
      auto const* wb = reinterpret_cast<std::uint32_t const*>(b);
      int const slices = dims / 64;
      auto add = [&](double x, double y) {
        double const d = products ? x : x - y;
        s              = fma(d, products ? y : d, s);
      };
      for (int m0 = 0; m0 < slices; m0 += batch) {
        std::uint32_t xa[batch], xb[batch];
#pragma unroll
        for (int q = 0; q < batch; ++q) {
          bool const in = m0 + q < slices;
          xa[q]         = in ? wa[32 * (m0 + q) + lane] : 0u;
          xb[q]         = in ? wb[32 * (m0 + q) + lane] : 0u;
        }
#pragma unroll
        for (int q = 0; q < batch; ++q) {
          if (m0 + q < slices) {  // the same for the whole warp
            double a0, a1, b0, b1;
            slice_elements<T>(xa[q], lane, a0, a1);
            slice_elements<T>(xb[q], lane, b0, b1);
            add(a0, b0);  // element 64 m + lane, then 64 m + 32 + lane: lane_partial's order
            add(a1, b1);
          }
        }
      }
    }
  }
  if (!words) { s = lane_partial(a, b, dims, lane, products); }
  for (int o = exact_lanes / 2; o >= 1; o /= 2) { s = s + __shfl_xor_sync(0xffffffffu, s, o); }
  return s;
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
