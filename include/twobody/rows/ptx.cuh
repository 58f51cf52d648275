/// \file ptx.cuh
/// \brief The PTX the row products use, one wrapper per instruction: mma.sync (mma_step),
/// ldmatrix and cp.async (sm_80+), and on sm_90a the mbarriers, the tensor memory accelerator's
/// loads, wgmma and its shared-memory descriptors. Each is a forced-inline asm statement, so a
/// caller compiles as if it had written the asm itself.
#pragma once

#include <twobody/util/config.cuh>

#include <cuda/std/type_traits>

#include <cstdint>

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace twobody::detail {

/// The tensor-core products of one k-step (8 words of each row in shared memory): m16n8k16 for
/// half and bfloat16, m16n8k8 TF32 for float.
template <class T>
struct mma_step {
  /// A shared-memory word as an operand: float is rounded to TF32 to nearest (the margin assumes it).
  __device__ static std::uint32_t operand(std::uint32_t w)
  {
    std::uint32_t r = w;
#if __CUDA_ARCH__ >= 800
    if constexpr (cuda::std::is_same_v<T, float>) { asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(__uint_as_float(w))); }
#endif
    return r;
  }
  /// c += a b; Fresh: c = a b (a group's first k-step, with no zeroing of c before it).
  template <bool Fresh = false>
  __device__ static void run(float (&c)[4], std::uint32_t const (&a)[4], std::uint32_t const (&b)[2])
  {
#if __CUDA_ARCH__ >= 800
#define TWOBODY_MMA(shape_and_types)                                                                            \
  if constexpr (Fresh) {                                                                                        \
    asm volatile("mma.sync.aligned." shape_and_types " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};\n" \
                 : "=f"(c[0]), "=f"(c[1]), "=f"(c[2]), "=f"(c[3])                                                \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(0.0f));                  \
  } else {                                                                                                      \
    asm volatile("mma.sync.aligned." shape_and_types " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"   \
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])                                                \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));                             \
  }
    if constexpr (cuda::std::is_same_v<T, __half>) {
      TWOBODY_MMA("m16n8k16.row.col.f32.f16.f16.f32");
    } else if constexpr (cuda::std::is_same_v<T, __nv_bfloat16>) {
      TWOBODY_MMA("m16n8k16.row.col.f32.bf16.bf16.f32");
    } else {
      TWOBODY_MMA("m16n8k8.row.col.f32.tf32.tf32.f32");
    }
#undef TWOBODY_MMA
#else
    __trap();  // launched only on sm_80+ (require_row_tensor_cores)
#endif
  }
};

namespace ptx {

#if __CUDA_ARCH__ >= 800
/// 16 bytes from global `src` to shared address `to`, asynchronously (cp.async.cg).
__device__ __forceinline__ void cp_async_16(unsigned to, void const* src)
{
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(src));
}
/// Closes this thread's cp.async operations issued since the last commit into one group.
__device__ __forceinline__ void cp_async_commit_group() { asm volatile("cp.async.commit_group;\n" ::); }
/// Waits until at most N of this thread's cp.async groups are pending.
template <int N>
__device__ __forceinline__ void cp_async_wait_group()
{
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
#endif

/// Four 8 x 4-word matrices from shared memory, lane l giving the address of row l % 8 of
/// matrix l / 8; lane (g, t) gets word t of row g of each (the m16n8 fragment layout, for
/// 16-bit pairs and TF32 words alike).
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t const* row, std::uint32_t (&r)[4])
{
#if __CUDA_ARCH__ >= 800
  unsigned const at = static_cast<unsigned>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(at));
#else
  (void)row;
  r[0] = r[1] = r[2] = r[3] = 0u;
#endif
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/// An mbarrier at shared address `bar` that completes a phase after Count arrivals.
template <int Count>
__device__ __forceinline__ void mbarrier_init(unsigned bar)
{
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "n"(Count) : "memory");
}
/// Makes the mbarriers' initialization visible to the asynchronous proxy (the copy engine).
__device__ __forceinline__ void fence_mbarrier_init() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
/// One arrival on the mbarrier at `bar` that also expects `bytes` of asynchronous copies.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(unsigned bar, unsigned bytes)
{
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
/// Orders this thread's ordinary shared-memory accesses before the asynchronous proxy's.
__device__ __forceinline__ void fence_proxy_async_shared() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
/// Atomically adds 1 to the 32-bit word at shared address `at` (acquire-release, block scope);
/// returns the value before.
__device__ __forceinline__ unsigned atomic_inc_acq_rel_shared(unsigned at)
{
  unsigned before = 0;
  asm volatile("atom.acq_rel.cta.shared::cta.add.u32 %0, [%1], 1;\n" : "=r"(before) : "r"(at) : "memory");
  return before;
}
/// Closes the warpgroup's wgmma operations issued since the last commit into one group.
__device__ __forceinline__ void wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
/// Waits until at most N of the warpgroup's wgmma groups are pending.
template <int N>
__device__ __forceinline__ void wgmma_wait_group()
{
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/// Box (x, y) of the tensor map at `map` (device memory) into shared memory at `dst`,
/// completing on the mbarrier at `bar`.
__device__ __forceinline__ void tma_load(unsigned dst, void const* map, int x, int y, unsigned bar)
{
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
               "l"(map), "r"(x), "r"(y), "r"(bar)
               : "memory");
}

/// Waits until the phase of the mbarrier at `bar` with this parity has completed.
__device__ __forceinline__ void mbarrier_wait_parity(unsigned bar, unsigned parity)
{
  asm volatile("{\n.reg .pred done;\nTWOBODY_WAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra TWOBODY_WAIT_%=;\n}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}

/// A shared-memory matrix descriptor of wgmma for K-major rows of 128 bytes in the 128-byte
/// swizzle: the start address, the stride between groups of 8 rows (1024 bytes), swizzle mode 1.
__device__ __forceinline__ std::uint64_t wgmma_descriptor(unsigned at)
{
  return static_cast<std::uint64_t>((at & 0x3ffffu) >> 4) | (std::uint64_t{1} << 16) | (std::uint64_t{1024 >> 4} << 32) |
         (std::uint64_t{1} << 62);
}

/// wgmma_pin keeps the compiler from moving reads or writes of the accumulators across the
/// asynchronous products; wgmma_fence adds wgmma.fence, which orders the registers' earlier
/// accesses before the next products.
template <int N>
__device__ __forceinline__ void wgmma_pin(float (&d)[N])
{
#pragma unroll
  for (int i = 0; i < N; ++i) { asm volatile("" : "+f"(d[i])::"memory"); }
}
template <int N>
__device__ __forceinline__ void wgmma_fence(float (&d)[N])
{
  wgmma_pin(d);
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

/// d = a b^T (+ d where accumulate) for the warpgroup's 64 x 64 block, K = 16, of T (half or
/// bfloat16) operands.
template <class T>
__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[32], std::uint64_t da, std::uint64_t db, bool accumulate)
{
#define TWOBODY_WGMMA_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define TWOBODY_WGMMA(types)                                                                                          \
asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                                         \
             "wgmma.mma_async.sync.aligned.m64n64k16.f32." types " "                                              \
             "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                              \
             "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "                    \
             "%32, %33, p, 1, 1, 0, 0;\n}\n"                                                                       \
             : TWOBODY_WGMMA_D8(0), TWOBODY_WGMMA_D8(8), TWOBODY_WGMMA_D8(16), TWOBODY_WGMMA_D8(24)                  \
             : "l"(da), "l"(db), "r"(static_cast<int>(accumulate)))
  if constexpr (cuda::std::is_same_v<T, __half>) {
    TWOBODY_WGMMA("f16.f16");
  } else {
    TWOBODY_WGMMA("bf16.bf16");
  }
#undef TWOBODY_WGMMA
#undef TWOBODY_WGMMA_D8
}
#endif

}  // namespace ptx
}  // namespace twobody::detail

#endif  // __CUDACC__
