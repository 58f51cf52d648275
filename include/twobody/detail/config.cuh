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
