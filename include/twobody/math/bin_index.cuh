/// \file bin_index.cuh
/// \brief The bin index of a value, exact and fast: floor_bin (the slot in [0, n], n meaning
/// outside) in two instructions for float on the GPU, the same floor in double on the host, and
/// approx_sqrt for distance bins. binning.cuh's bin maps build on it.
#pragma once


#include <cuda/std/type_traits>

#ifndef __CUDACC_RTC__
#include <cmath>
#endif

namespace twobody {
namespace detail {

/// floor(t) for t = x * scale as a bin index in [0, n], n meaning "outside" (t < 0,
/// t >= n, NaN). For float on the GPU this is two instructions, no float-to-int
/// conversion: fma rounding toward -inf with 2^23 added puts floor(t) (computed from the
/// exact product, one rounding) into the low mantissa bits, and one add-then-unsigned-min
/// (VIADDMNMX on sm_90) maps everything else (NaN, negatives, t >= n) onto n. The host
/// computes the same floor of the exact product in double, so both agree bin for bin.
/// Needs n <= 2^22 (checked by the bin maps).
template <class T>
__host__ __device__ inline int floor_bin(T x, T scale, int n)
{
#ifdef __CUDA_ARCH__
  if constexpr (cuda::std::is_same_v<T, float>) {
    constexpr unsigned two23 = 0x4B000000u;  // bits of 2^23f
    unsigned const bits      = __float_as_uint(__fmaf_rd(x, scale, 8388608.0f));
    return static_cast<int>(__viaddmin_u32(bits, 0u - two23, static_cast<unsigned>(n)));
  }
#endif
  using wide  = cuda::std::conditional_t<cuda::std::is_same_v<T, float>, double, T>;
  wide const t = static_cast<wide>(x) * static_cast<wide>(scale);  // exact for float
  // NaN fails both comparisons and lands in the outside slot.
  return (t >= wide(0) && t < static_cast<wide>(n)) ? static_cast<int>(t) : n;
}

/// floor_bin for t = x * scale known to lie in [0, n) (no NaN), without the clamp, plus
/// floor_bin_bias<T>() (mod 2^32): on the GPU the fma's bits themselves, so that a caller's
/// address bits * stride + (offset - bias * stride) is one IMAD. One instruction less per pair
/// than floor_bin (math/tile_forms.cuh proves the range per tile pair).
template <class T>
__host__ __device__ inline unsigned floor_bin_biased(T x, T scale)
{
#ifdef __CUDA_ARCH__
  if constexpr (cuda::std::is_same_v<T, float>) { return __float_as_uint(__fmaf_rd(x, scale, 8388608.0f)); }
#endif
  using wide = cuda::std::conditional_t<cuda::std::is_same_v<T, float>, double, T>;
  return static_cast<unsigned>(static_cast<wide>(x) * static_cast<wide>(scale));
}
template <class T>
__host__ __device__ constexpr unsigned floor_bin_bias()
{
#ifdef __CUDA_ARCH__
  if constexpr (cuda::std::is_same_v<T, float>) { return 0x4B000000u; }  // bits of 2^23f
#endif
  return 0u;
}
template <class T>
__host__ __device__ inline int floor_bin_inside(T x, T scale)
{
  return static_cast<int>(floor_bin_biased(x, scale) - floor_bin_bias<T>());
}

inline constexpr int max_fast_bins = 1 << 22;

/// Approximate square root on the GPU (one MUFU.SQRT, a few ulps; see distance_bins), IEEE on the host.
/// ftz: inputs below 2^-126 count as 0 (the non-ftz form adds three instructions to rescale them).
template <class T>
__host__ __device__ inline T approx_sqrt(T x)
{
#ifdef __CUDA_ARCH__
  if constexpr (cuda::std::is_same_v<T, float>) {
    float r;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
  } else {
    return ::sqrt(x);
  }
#else
  return std::sqrt(x);
#endif
}

}  // namespace detail

}  // namespace twobody
