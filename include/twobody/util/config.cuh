/// \file config.cuh
/// \brief Macros for code compiled for both the host and the device.
#pragma once

/// `#pragma unroll` for the device pass only: in __host__ __device__ functions the host
/// compiler would see the pragma too and warn about it under -Wall (-Wunknown-pragmas); it
/// unrolls loops of constant trip count on its own.
#if defined(__CUDA_ARCH__)
#define TWOBODY_UNROLL _Pragma("unroll")
#else
#define TWOBODY_UNROLL
#endif

/// `__host__` for host-only members of types the device code also uses (bin maps): NVRTC, which
/// compiles the device side of the library for run-time functors, refuses functions marked host.
#if defined(__CUDACC_RTC__)
#define TWOBODY_HOST
#else
#define TWOBODY_HOST __host__
#endif

// Run-time compiled functors (runtime_functor.cuh) compile the device headers with NVRTC, which
// has no C++ standard library: the few std:: names they use come from libcu++ there.
#ifdef __CUDACC_RTC__
#include <cuda/std/cmath>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/limits>
namespace std {
using cuda::std::int32_t;
using cuda::std::isfinite;
using cuda::std::log2;
using cuda::std::pow;
using cuda::std::sqrt;
using cuda::std::int64_t;
using cuda::std::numeric_limits;
using cuda::std::size_t;
using cuda::std::uint32_t;
using cuda::std::uint64_t;
using cuda::std::uintptr_t;
}  // namespace std
#endif
