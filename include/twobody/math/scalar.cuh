/// \file scalar.cuh
/// \brief sqrt, |x| and min of float or double on the host and the GPU, as the functors use them
/// (fabsf and fminf, not ternaries: |x| is a free operand modifier and fmin one FMNMX on the GPU).
#pragma once

#include <cuda/std/type_traits>

#ifndef __CUDACC_RTC__
#include <cmath>
#endif

namespace twobody {
namespace detail {
template <class T>
__host__ __device__ inline T sqrt_of(T x)
{
  if constexpr (cuda::std::is_same_v<T, float>) {
    return sqrtf(x);
  } else {
    return ::sqrt(x);
  }
}
template <class T>
__host__ __device__ inline T abs_of(T x)
{
  // fabs/fmin (not ternaries): |x| is a free operand modifier and fmin one FMNMX on the GPU.
  if constexpr (cuda::std::is_same_v<T, float>) { return fabsf(x); } else { return fabs(x); }
}
template <class T>
__host__ __device__ inline T min_of(T a, T b)
{
  if constexpr (cuda::std::is_same_v<T, float>) { return fminf(a, b); } else { return fmin(a, b); }
}
}  // namespace detail
}  // namespace twobody
