// Issue 22, item 7 (>= 60% of the dense FP16 peak at D >= 960): what does the mainloop of the
// fused tensor-core count reach, as the library runs it and in other shapes, without the
// rest of the library? Every variant counts the self pairs (i < j) of N half rows of D
// coordinates whose squared distance |a|^2 + |b|^2 - 2 a.b is below a threshold, over 128 x 128
// tile pairs in the library's banded order (bands of 8 row tiles), with 2 warpgroups of
// wgmma m64n64k16 (each 64 rows against both 64-column halves of the tile pair), operands from
// 128-byte-swizzled shared memory, and the same count epilogue straight from wgmma's layout.
//
// - sync:       the library's products_wgmma (detail/mma_traversal.cuh): 256 threads stage chunks
//               of 128 bytes of every row with cp.async (3 stages), one __syncthreads per chunk,
//               every chunk's products complete (wait_group 0) before the next chunk.
// - sync-bulk:  the same structure, but thread 0 copies each chunk of a tile as one 16 KB
//               cp.async.bulk from a copy of the rows laid out tile by tile in the stages'
//               swizzled order (tile_rows), completing on the stage's mbarrier.
// - sync-bulk, S stages, batches of B: sync-bulk with the loads S - 2 chunks ahead, so that the
//               barrier at chunk c frees chunk c - 2's stage and the consumers can take B chunks
//               at a time as the ws batches below do, in 256 threads.
// - ws:         warp-specialized: a producer warp (one thread) issues those bulk copies; 2 consumer
//               warpgroups wait on the stage's mbarrier and release it through a second one
//               (4 stages); no block-wide barrier, and the stages run on across tile pairs (the
//               next tile pair's chunks load during the epilogue).
// - batches of B: ws, and the consumers take B chunks at a time as straight-line code, the
//               halves alternating with one group of products in flight (the sums of one half
//               added while the next half runs).
// - ws+pipe:    ws with one group always in flight across the chunk loop's back edge (ptxas
//               serializes the grouped form: C7514).
// - ws lockstep: ws with every thread (the producer warpgroup too) meeting at a block barrier
//               before each tile pair, so no load runs ahead into the
//               next tile pair (the form a port that keeps the library's per-tile-pair block
//               barriers would take).
// - ws-tma:     ws with the copies made by the tensor memory accelerator (cp.async.bulk.tensor) from
//               the row-major rows, through a tensor map (boxes of 64 x 128, 128-byte swizzle) in
//               global memory: no tiled copy of the rows.
// - ws-cp.async: ws with a producer warpgroup of 128 threads staging by 16-byte cp.async from the
//               row-major rows (no tiled copy).
// - cluster2:   ws+pipe in clusters of 2 blocks that share the column tile: each block copies half
//               of it to both blocks' stages (.multicast::cluster).
// "grouped" restarts the accumulation every chunk (64 coordinates) and adds the chunk sums on the
// CUDA cores, as the library's exact counts do (docs/highdim.md, the margin); "ungrouped"
// accumulates all of D in the tensor cores, as its kernel sums do.
//
// Prints each variant's median time of 5 launches after a warm-up (CUDA events), TFLOPS at 2 D flops per pair,
// and the count, which the small sizes check against a double-precision CPU count (pairs within
// 1e-3 relative of the threshold may go either way; their number is printed).
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a scripts/probes/wgmma_mainloop.cu
#include <cuda.h>  // CUtensorMap (types only: the encoder comes through cudaGetDriverEntryPointByVersion)
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#define CHECK(x)                                                                               \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));          \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

constexpr int TS          = 128;              // rows of a tile
constexpr int KC          = 64;               // half coordinates per chunk (128 bytes of a row)
constexpr int SIDE_BYTES  = TS * KC * 2;      // one side's chunk of a tile: 16 KB
constexpr int SYNC_STAGES = 3;
constexpr int WS_STAGES   = 4;
constexpr int BAND        = 8;                // row tiles per band

// ---------------------------------------------------------------------------------------------
// wgmma and mbarrier helpers (sm_90a)

__device__ __forceinline__ std::uint64_t descriptor(unsigned at)
{
  return static_cast<std::uint64_t>((at & 0x3ffffu) >> 4) | (std::uint64_t{1} << 16) | (std::uint64_t{1024 >> 4} << 32) |
         (std::uint64_t{1} << 62);
}

template <int N>
__device__ __forceinline__ void pin(float (&d)[N])
{
#pragma unroll
  for (int i = 0; i < N; ++i) { asm volatile("" : "+f"(d[i])::"memory"); }
}
template <int N>
__device__ __forceinline__ void fence_acc(float (&d)[N])
{
  pin(d);
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void wgmma_64x64(float (&d)[32], std::uint64_t da, std::uint64_t db, bool accumulate)
{
#define D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "%32, %33, p, 1, 1, 0, 0;\n}\n"
               : D8(0), D8(8), D8(16), D8(24)
               : "l"(da), "l"(db), "r"(static_cast<int>(accumulate)));
#undef D8
}
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait_groups()
{
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// The 4 k-steps of one chunk for a warpgroup's 64 rows (a_at) against 64 columns (b_at).
__device__ __forceinline__ void chunk_half(float (&d)[32], unsigned a_at, unsigned b_at, bool fresh)
{
  fence_acc(d);
#pragma unroll
  for (int ks = 0; ks < 4; ++ks) { wgmma_64x64(d, descriptor(a_at + 32u * ks), descriptor(b_at + 32u * ks), !(fresh && ks == 0)); }
  commit();
}

__device__ __forceinline__ unsigned smem_addr(void const* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
  asm volatile("{\n.reg .pred p;\nWAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
               "@!p bra WAIT_%=;\n}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}
__device__ __forceinline__ void mbar_expect(unsigned bar, unsigned bytes)
{
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
// Arrive on the barrier at the same offset in block `rank` of the cluster (rank may be our own).
__device__ __forceinline__ void mbar_arrive_cluster(unsigned bar, unsigned rank)
{
  asm volatile("{\n.reg .b32 r;\nmapa.shared::cluster.u32 r, %0, %1;\n"
               "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r];\n}\n" ::"r"(bar),
               "r"(rank)
               : "memory");
}
__device__ __forceinline__ void bulk_copy(unsigned dst, void const* src, unsigned bytes, unsigned bar)
{
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst), "l"(src),
               "r"(bytes), "r"(bar)
               : "memory");
}
__device__ __forceinline__ void bulk_copy_multicast(unsigned dst, void const* src, unsigned bytes, unsigned bar, unsigned short mask)
{
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;\n" ::"r"(
                 dst),
               "l"(src), "r"(bytes), "r"(bar), "h"(mask)
               : "memory");
}
// The rows' tensor map (row-major N x D halves, boxes of 64 x 128, 128-byte swizzle), in global memory.
__device__ CUtensorMap rows_map;

__device__ __forceinline__ void tma_load(unsigned dst, void const* map, int x, int y, unsigned bar)
{
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
               "l"(map), "r"(x), "r"(y), "r"(bar)
               : "memory");
}

__device__ __forceinline__ unsigned cluster_rank()
{
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync()
{
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

// ---------------------------------------------------------------------------------------------
// The count epilogue, from wgmma's accumulator layout: warpgroup wg, warp w % 4 holds rows
// 16 (w % 4) + lane / 4 (+ 8), element i of a 64-column half at column 8 (i / 4) + 2 (lane % 4) + (i % 2).

struct unit {
  int row_tile, col_tile;
};

__device__ __forceinline__ unsigned count_half(float const (&d)[32], float const* norms, int row0, int col0, bool diagonal,
                                               float thr)
{
  int const lane = threadIdx.x & 31;
  unsigned n     = 0;
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    int const row = row0 + (lane >> 2) + 8 * ((i >> 1) & 1);
    int const col = col0 + 8 * (i >> 2) + 2 * (lane & 3) + (i & 1);
    float const v = __ldg(norms + row) + __ldg(norms + col) - 2.0f * d[i];
    n += (v < thr && (!diagonal || row < col)) ? 1u : 0u;
  }
  return n;
}

__device__ __forceinline__ void add_count(unsigned n, unsigned long long* out)
{
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) { n += __shfl_xor_sync(0xffffffffu, n, o); }
  if ((threadIdx.x & 31) == 0 && n != 0) { atomicAdd(out, static_cast<unsigned long long>(n)); }
}

// ---------------------------------------------------------------------------------------------
// sync: the library's mainloop.

template <bool Grouped>
__global__ void __launch_bounds__(256, 1)
  count_sync(__half const* rows, float const* norms, int dims, unit const* units, int n_units, float thr, unsigned long long* out)
{
  extern __shared__ unsigned char raw[];
  unsigned char* const stages = raw + ((1024 - (smem_addr(raw) & 1023u)) & 1023u);
  unsigned const base         = smem_addr(stages);
  int const warp = threadIdx.x >> 5, wg = warp >> 2, chunks = dims / KC;
  auto load = [&](int tile_a, int tile_b, int c) {
    if (c < chunks) {
#pragma unroll
      for (int side = 0; side < 2; ++side) {
        int const first = (side == 0 ? tile_a : tile_b) * TS;
        unsigned const dst = base + (side * SYNC_STAGES + c % SYNC_STAGES) * SIDE_BYTES;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          int const piece = threadIdx.x + k * 256, r = piece >> 3, q = piece & 7;
          __half const* src = rows + static_cast<std::size_t>(first + r) * dims + c * KC + q * 8;
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst + r * 128 + ((q ^ (r & 7)) * 16)), "l"(src));
        }
      }
    }
    asm volatile("cp.async.commit_group;\n" ::);
  };
  unsigned count = 0;
  for (int u = blockIdx.x; u < n_units; u += gridDim.x) {
    unit const t = units[u];
    float total[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) { total[i] = 0.0f; }
    float(&total_first)[32]  = reinterpret_cast<float(&)[32]>(total[0]);
    float(&total_second)[32] = reinterpret_cast<float(&)[32]>(total[32]);
    float first[32], second[32];
    float(&sum_first)[32]  = Grouped ? first : total_first;
    float(&sum_second)[32] = Grouped ? second : total_second;
    load(t.row_tile, t.col_tile, 0);
    load(t.row_tile, t.col_tile, 1);
    for (int c = 0; c < chunks; ++c) {
      asm volatile("cp.async.wait_group 1;\n" ::);
      asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
      __syncthreads();
      load(t.row_tile, t.col_tile, c + 2);
      unsigned const a_at = base + (c % SYNC_STAGES) * SIDE_BYTES + wg * 64 * 128;
      unsigned const b_at = base + (SYNC_STAGES + c % SYNC_STAGES) * SIDE_BYTES;
      bool const fresh    = Grouped || c == 0;
      chunk_half(sum_first, a_at, b_at, fresh);
      wait_groups<1>();
      chunk_half(sum_second, a_at, b_at + 64 * 128, fresh);
      wait_groups<1>();
      if constexpr (Grouped) {
        pin(first);
#pragma unroll
        for (int i = 0; i < 32; ++i) { total_first[i] += first[i]; }
      }
      wait_groups<0>();
      if constexpr (Grouped) {
        pin(second);
#pragma unroll
        for (int i = 0; i < 32; ++i) { total_second[i] += second[i]; }
      }
    }
    pin(total);
    int const row0 = t.row_tile * TS + wg * 64 + (warp & 3) * 16;
    count += count_half(total_first, norms, row0, t.col_tile * TS, t.row_tile == t.col_tile, thr);
    count += count_half(total_second, norms, row0, t.col_tile * TS + 64, t.row_tile == t.col_tile, thr);
    __syncthreads();  // every warpgroup is done with the stages before the next prologue
  }
  add_count(count, out);
}

// ---------------------------------------------------------------------------------------------
// sync-bulk: the library's structure (256 threads, 3 stages, one __syncthreads per chunk, every
// chunk's products complete before the next chunk), but thread 0 copies each chunk of a tile as
// one 16 KB cp.async.bulk from the tiled rows, completing on the stage's mbarrier, instead of
// 256 threads' 16-byte cp.async from the row-major rows.

template <bool Grouped>
__global__ void __launch_bounds__(256, 1)
  count_sync_bulk(__half const* tiled, float const* norms, int dims, unit const* units, int n_units, float thr, unsigned long long* out)
{
  extern __shared__ unsigned char raw[];
  unsigned char* const stages = raw + ((1024 - (smem_addr(raw) & 1023u)) & 1023u);
  unsigned const base         = smem_addr(stages);
  unsigned const full0        = base + 2 * SYNC_STAGES * SIDE_BYTES;
  int const warp = threadIdx.x >> 5, wg = warp >> 2, chunks = dims / KC;
  std::size_t const tile_elems = static_cast<std::size_t>(chunks) * TS * KC;
  if (threadIdx.x == 0) {
    for (int s = 0; s < SYNC_STAGES; ++s) { mbar_init(full0 + 8 * s, 1); }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  int it = 0;  // chunks loaded by this block so far: the stage of chunk c of a tile pair is (it0 + c) % 3
  auto load = [&](unit t, int c, int it_c) {
    if (threadIdx.x == 0 && c < chunks) {
      unsigned const full = full0 + 8 * (it_c % SYNC_STAGES);
      mbar_expect(full, 2 * SIDE_BYTES);
      bulk_copy(base + (it_c % SYNC_STAGES) * SIDE_BYTES, tiled + t.row_tile * tile_elems + c * TS * KC, SIDE_BYTES, full);
      bulk_copy(base + (SYNC_STAGES + it_c % SYNC_STAGES) * SIDE_BYTES, tiled + t.col_tile * tile_elems + c * TS * KC, SIDE_BYTES, full);
    }
  };
  unsigned count = 0;
  for (int u = blockIdx.x; u < n_units; u += gridDim.x) {
    unit const t = units[u];
    float total[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) { total[i] = 0.0f; }
    float(&total_first)[32]  = reinterpret_cast<float(&)[32]>(total[0]);
    float(&total_second)[32] = reinterpret_cast<float(&)[32]>(total[32]);
    float first[32], second[32];
    float(&sum_first)[32]  = Grouped ? first : total_first;
    float(&sum_second)[32] = Grouped ? second : total_second;
    load(t, 0, it);
    load(t, 1, it + 1);
    for (int c = 0; c < chunks; ++c) {
      int const s = (it + c) % SYNC_STAGES;
      mbar_wait(full0 + 8 * s, ((it + c) / SYNC_STAGES) & 1);
      __syncthreads();  // every warpgroup's products of chunk c - 1 completed: its stage is refilled next
      load(t, c + 2, it + c + 2);
      unsigned const a_at = base + s * SIDE_BYTES + wg * 64 * 128;
      unsigned const b_at = base + (SYNC_STAGES + s) * SIDE_BYTES;
      bool const fresh    = Grouped || c == 0;
      chunk_half(sum_first, a_at, b_at, fresh);
      chunk_half(sum_second, a_at, b_at + 64 * 128, fresh);
      wait_groups<1>();
      if constexpr (Grouped) {
        pin(first);
#pragma unroll
        for (int i = 0; i < 32; ++i) { total_first[i] += first[i]; }
      }
      wait_groups<0>();
      if constexpr (Grouped) {
        pin(second);
#pragma unroll
        for (int i = 0; i < 32; ++i) { total_second[i] += second[i]; }
      }
    }
    it += chunks;
    pin(total);
    int const row0 = t.row_tile * TS + wg * 64 + (warp & 3) * 16;
    count += count_half(total_first, norms, row0, t.col_tile * TS, t.row_tile == t.col_tile, thr);
    count += count_half(total_second, norms, row0, t.col_tile * TS + 64, t.row_tile == t.col_tile, thr);
    __syncthreads();  // every warpgroup is done with the stages before the next prologue
  }
  add_count(count, out);
}

// ---------------------------------------------------------------------------------------------
// sync-bulk batched: sync-bulk with Stages stages and the loads Stages - 2 chunks ahead, so the
// barrier at chunk c frees chunk c - 2's stage and chunk c - 1's second half may still run
// across it: the consumers take Batch chunks as straight-line code with the halves alternating
// (as ws's batches), in 256 threads, without a producer warp.

template <bool Grouped, int Stages, int Batch>
__global__ void __launch_bounds__(256, 1)
  count_sync_batched(__half const* tiled, float const* norms, int dims, unit const* units, int n_units, float thr, unsigned long long* out)
{
  static_assert(Stages >= 3, "the refilled stage is chunk c - 2's");
  constexpr int ahead = Stages - 2;
  extern __shared__ unsigned char raw[];
  unsigned char* const stages = raw + ((1024 - (smem_addr(raw) & 1023u)) & 1023u);
  unsigned const base         = smem_addr(stages);
  unsigned const full0        = base + 2 * Stages * SIDE_BYTES;
  int const warp = threadIdx.x >> 5, wg = warp >> 2, chunks = dims / KC;
  std::size_t const tile_elems = static_cast<std::size_t>(chunks) * TS * KC;
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) { mbar_init(full0 + 8 * s, 1); }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  int it = 0;  // chunks consumed by this block so far
  auto load = [&](unit t, int c, int it_c) {
    if (threadIdx.x == 0 && c < chunks) {
      int const s         = it_c % Stages;
      unsigned const full = full0 + 8 * s;
      mbar_expect(full, 2 * SIDE_BYTES);
      bulk_copy(base + s * SIDE_BYTES, tiled + t.row_tile * tile_elems + c * TS * KC, SIDE_BYTES, full);
      bulk_copy(base + (Stages + s) * SIDE_BYTES, tiled + t.col_tile * tile_elems + c * TS * KC, SIDE_BYTES, full);
    }
  };
  unsigned count = 0;
  for (int u = blockIdx.x; u < n_units; u += gridDim.x) {
    unit const t = units[u];
    float total[64], first[32], second[32];
#pragma unroll
    for (int i = 0; i < 64; ++i) { total[i] = 0.0f; }
#pragma unroll
    for (int i = 0; i < 32; ++i) { first[i] = second[i] = 0.0f; }
    pin(total);
    pin(first);
    pin(second);
    float(&total_first)[32]  = reinterpret_cast<float(&)[32]>(total[0]);
    float(&total_second)[32] = reinterpret_cast<float(&)[32]>(total[32]);
    float(&sum_first)[32]    = Grouped ? first : total_first;
    float(&sum_second)[32]   = Grouped ? second : total_second;
    auto add = [](float(&to)[32], float(&from)[32]) {
      pin(from);
#pragma unroll
      for (int i = 0; i < 32; ++i) { to[i] += from[i]; }
    };
#pragma unroll
    for (int c = 0; c < ahead; ++c) { load(t, c, it + c); }
    int c = 0;
    auto batch = [&](auto size) {
      constexpr int B = decltype(size)::value;
#pragma unroll
      for (int k = 0; k < B; ++k) {
        int const s = (it + k) % Stages;
        mbar_wait(full0 + 8 * s, ((it + k) / Stages) & 1);
        __syncthreads();  // every warp's products of chunk c + k - 2 are done: its stage is refilled now
        load(t, c + k + ahead, it + k + ahead);
        unsigned const a_at = base + s * SIDE_BYTES + wg * 64 * 128;
        unsigned const b_at = base + (Stages + s) * SIDE_BYTES;
        bool const fresh    = Grouped || c + k == 0;
        chunk_half(sum_first, a_at, b_at, fresh);
        if (k > 0) {
          wait_groups<1>();  // the second half of chunk k - 1 is done
          if constexpr (Grouped) { add(total_second, second); }
        }
        chunk_half(sum_second, a_at, b_at + 64 * 128, fresh);
        wait_groups<1>();  // the first half of chunk k is done
        if constexpr (Grouped) { add(total_first, first); }
      }
      wait_groups<0>();
      if constexpr (Grouped) { add(total_second, second); }
      it += B;
      c += B;
    };
    while (c + Batch <= chunks) { batch(std::integral_constant<int, Batch>{}); }
    while (c < chunks) { batch(std::integral_constant<int, 1>{}); }
    pin(total);
    int const row0 = t.row_tile * TS + wg * 64 + (warp & 3) * 16;
    count += count_half(total_first, norms, row0, t.col_tile * TS, t.row_tile == t.col_tile, thr);
    count += count_half(total_second, norms, row0, t.col_tile * TS + 64, t.row_tile == t.col_tile, thr);
    __syncthreads();  // every warpgroup is done with the stages before the next prologue
  }
  add_count(count, out);
}

// ---------------------------------------------------------------------------------------------
// ws / ws+pipe / cluster2: a producer warp and two consumer warpgroups. Each block of a cluster
// of Cluster blocks takes row tile row_tile + rank of its cluster's unit, all against its column tile.

template <bool Grouped, bool Pipelined, int Cluster, int Batch = 1, bool Bulk = true, bool Lockstep = false, bool Tma = false>
__global__ void __launch_bounds__(384, 1)
  count_ws(__half const* tiled, float const* norms, int dims, unit const* units, int n_units, float thr, unsigned long long* out)
{
  extern __shared__ unsigned char raw[];
  unsigned char* const stages = raw + ((1024 - (smem_addr(raw) & 1023u)) & 1023u);
  unsigned const base         = smem_addr(stages);
  unsigned const full0        = base + 2 * WS_STAGES * SIDE_BYTES;  // full[s], then empty[s]: 8 bytes each
  unsigned const empty0       = full0 + 8 * WS_STAGES;
  int const warp = threadIdx.x >> 5, chunks = dims / KC;
  unsigned const rank = Cluster > 1 ? cluster_rank() : 0u;
  int const cluster_id = blockIdx.x / Cluster, clusters = gridDim.x / Cluster;
  if (threadIdx.x == 0) {
    for (int s = 0; s < WS_STAGES; ++s) {
      mbar_init(full0 + 8 * s, Bulk ? 1 : 128);  // the copying thread, or the 128 of the producer warpgroup
      mbar_init(empty0 + 8 * s, 8 * Cluster);  // every consumer warp of every block of the cluster
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  if constexpr (Cluster > 1) {
    cluster_sync();
  } else {
    __syncthreads();
  }
  std::size_t const tile_elems = static_cast<std::size_t>(chunks) * TS * KC;  // one tile of the tiled rows
  if (warp >= 8) {
    if constexpr (Bulk) {
      asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    } else {
      asm volatile("setmaxnreg.dec.sync.aligned.u32 56;\n");  // 16 copies' addresses: 40 spilled
    }
    if constexpr (!Bulk) {
      // ws-cp.async: the producer warpgroup's 128 threads stage the chunks from the row-major
      // rows with 16-byte cp.async, as the library does now, and signal a chunk two chunks later
      // (cp.async.wait_group, then fence.proxy.async: wgmma reads what cp.async wrote).
      static_assert(Cluster == 1, "no multicast for cp.async");
      __half const* rows = tiled;
      int const pt       = threadIdx.x - 256;
      constexpr int lag  = 2;
      int it             = 0;
      auto signal = [&](int done) {
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(full0 + 8 * (done % WS_STAGES)) : "memory");
      };
      for (int u = blockIdx.x; u < n_units; u += gridDim.x) {
        unit const t = units[u];
        for (int c = 0; c < chunks; ++c, ++it) {
          int const s = it % WS_STAGES;
          mbar_wait(empty0 + 8 * s, ((it / WS_STAGES) & 1) ^ 1);
#pragma unroll
          for (int side = 0; side < 2; ++side) {
            int const first    = (side == 0 ? t.row_tile : t.col_tile) * TS;
            unsigned const dst = base + (side * WS_STAGES + s) * SIDE_BYTES;
#pragma unroll
            for (int k = 0; k < 8; ++k) {
              int const piece = pt + k * 128, r = piece >> 3, q = piece & 7;
              __half const* src = rows + static_cast<std::size_t>(first + r) * dims + c * KC + q * 8;
              asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst + r * 128 + ((q ^ (r & 7)) * 16)), "l"(src));
            }
          }
          asm volatile("cp.async.commit_group;\n" ::);
          if (it >= lag) {
            asm volatile("cp.async.wait_group %0;\n" ::"n"(lag));
            signal(it - lag);
          }
        }
      }
      asm volatile("cp.async.wait_group 0;\n" ::);
      for (int done = it - lag < 0 ? 0 : it - lag; done < it; ++done) { signal(done); }
    } else if (Lockstep || (warp == 8 && (threadIdx.x & 31) == 0)) {
      int it = 0;
      for (int u = cluster_id; u < n_units; u += clusters) {
        if constexpr (Lockstep) {
          __syncthreads();  // the consumers finished the previous tile pair: no load runs ahead of it
          if (threadIdx.x != 256) { continue; }  // the whole producer warpgroup meets the barrier; one thread copies
        }
        unit const t = units[u];
        __half const* a = tiled + (t.row_tile + rank) * tile_elems;
        __half const* b = tiled + t.col_tile * tile_elems;
        for (int c = 0; c < chunks; ++c, ++it) {
          int const s = it % WS_STAGES;
          mbar_wait(empty0 + 8 * s, ((it / WS_STAGES) & 1) ^ 1);
          unsigned const full = full0 + 8 * s;
          mbar_expect(full, 2 * SIDE_BYTES);
          if constexpr (Tma) {
            static_assert(Cluster == 1, "no multicast with the tensor map here");
            tma_load(base + s * SIDE_BYTES, &rows_map, c * KC, t.row_tile * TS, full);
            tma_load(base + (WS_STAGES + s) * SIDE_BYTES, &rows_map, c * KC, t.col_tile * TS, full);
            continue;
          }
          bulk_copy(base + s * SIDE_BYTES, a + c * TS * KC, SIDE_BYTES, full);
          if constexpr (Cluster == 1) {
            bulk_copy(base + (WS_STAGES + s) * SIDE_BYTES, b + c * TS * KC, SIDE_BYTES, full);
          } else {
            unsigned const part = SIDE_BYTES / Cluster;
            bulk_copy_multicast(base + (WS_STAGES + s) * SIDE_BYTES + rank * part,
                                reinterpret_cast<unsigned char const*>(b + c * TS * KC) + rank * part, part, full,
                                static_cast<unsigned short>((1u << Cluster) - 1u));
          }
        }
      }
    }
  } else {
    if constexpr (Bulk) {
      asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    } else {
      asm volatile("setmaxnreg.inc.sync.aligned.u32 224;\n");
    }
    int const wg = warp >> 2;
    auto release = [&](int s) {
      __syncwarp();
      if ((threadIdx.x & 31) == 0) {
        if constexpr (Cluster == 1) {
          asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(empty0 + 8 * s) : "memory");
        } else {
#pragma unroll
          for (int r = 0; r < Cluster; ++r) { mbar_arrive_cluster(empty0 + 8 * s, r); }
        }
      }
    };
    unsigned count = 0;
    int it         = 0;
    for (int u = cluster_id; u < n_units; u += clusters) {
      if constexpr (Lockstep) { __syncthreads(); }  // with the producer warp: the previous tile pair is done
      unit const t = units[u];
      float total[64];
#pragma unroll
      for (int i = 0; i < 64; ++i) { total[i] = 0.0f; }
      float(&total_first)[32]  = reinterpret_cast<float(&)[32]>(total[0]);
      float(&total_second)[32] = reinterpret_cast<float(&)[32]>(total[32]);
      float first[32], second[32];
#pragma unroll
      for (int i = 0; i < 32; ++i) { first[i] = second[i] = 0.0f; }
      // Every accumulator is defined before the first products are issued: a register of a later
      // group set while an earlier group runs makes ptxas wait or serialize (C7517, C7514).
      pin(total);
      pin(first);
      pin(second);
      float(&sum_first)[32]  = Grouped ? first : total_first;
      float(&sum_second)[32] = Grouped ? second : total_second;
      auto add = [](float(&to)[32], float(&from)[32]) {
        pin(from);
#pragma unroll
        for (int i = 0; i < 32; ++i) { to[i] += from[i]; }
      };
      auto a_at = [&](int s) { return base + s * SIDE_BYTES + wg * 64 * 128; };
      auto b_at = [&](int s) { return base + (WS_STAGES + s) * SIDE_BYTES; };
      if constexpr (Pipelined) {
        // One group of products always in flight: the first half of chunk c + 1 runs while the
        // second half's sums of chunk c are added, and the reverse. No branch in the loop, so
        // that ptxas sees which group each wait retires (C7514 otherwise).
        int s = it % WS_STAGES;
        mbar_wait(full0 + 8 * s, (it / WS_STAGES) & 1);
        chunk_half(sum_first, a_at(s), b_at(s), true);
        for (int c = 0; c < chunks - 1; ++c) {
          chunk_half(sum_second, a_at(s), b_at(s) + 64 * 128, Grouped || c == 0);
          wait_groups<1>();  // the first half of chunk c is done
          if constexpr (Grouped) { add(total_first, first); }
          ++it;
          int const next = it % WS_STAGES;
          mbar_wait(full0 + 8 * next, (it / WS_STAGES) & 1);
          chunk_half(sum_first, a_at(next), b_at(next), Grouped);
          wait_groups<1>();  // the second half of chunk c is done
          if constexpr (Grouped) { add(total_second, second); }
          release(s);
          s = next;
        }
        chunk_half(sum_second, a_at(s), b_at(s) + 64 * 128, Grouped || chunks == 1);
        wait_groups<0>();
        if constexpr (Grouped) {
          add(total_first, first);
          add(total_second, second);
        }
        release(s);
        ++it;
      } else {
        // Batches of Batch chunks, straight-line code: within a batch the halves alternate with
        // one group in flight (the first half of chunk k runs while the second half of chunk
        // k - 1 is added, and so on); only the last half of a batch is added with nothing in
        // flight. No group is in flight across the loop's back edge, where ptxas would serialize.
        int c = 0;
        auto batch = [&](auto size) {
          constexpr int B = decltype(size)::value;
          int prev = 0;
#pragma unroll
          for (int k = 0; k < B; ++k) {
            int const s = (it + k) % WS_STAGES;
            mbar_wait(full0 + 8 * s, ((it + k) / WS_STAGES) & 1);
            bool const fresh = Grouped || c + k == 0;
            chunk_half(sum_first, a_at(s), b_at(s), fresh);
            if (k > 0) {
              wait_groups<1>();  // the second half of chunk k - 1 is done
              if constexpr (Grouped) { add(total_second, second); }
              release(prev);
            }
            chunk_half(sum_second, a_at(s), b_at(s) + 64 * 128, fresh);
            wait_groups<1>();  // the first half of chunk k is done
            if constexpr (Grouped) { add(total_first, first); }
            prev = s;
          }
          wait_groups<0>();
          if constexpr (Grouped) { add(total_second, second); }
          release(prev);
          it += B;
          c += B;
        };
        while (c + Batch <= chunks) { batch(std::integral_constant<int, Batch>{}); }
        while (c < chunks) { batch(std::integral_constant<int, 1>{}); }
      }
      pin(total);
      int const row_tile = t.row_tile + static_cast<int>(rank);
      if (row_tile <= t.col_tile) {
        int const row0 = row_tile * TS + wg * 64 + (warp & 3) * 16;
        count += count_half(total_first, norms, row0, t.col_tile * TS, row_tile == t.col_tile, thr);
        count += count_half(total_second, norms, row0, t.col_tile * TS + 64, row_tile == t.col_tile, thr);
      }
    }
    add_count(count, out);
  }
  if constexpr (Cluster > 1) { cluster_sync(); }  // no block leaves while its peer may still write to it
}

// The rows tile by tile in the stages' order: tile t, chunk c, row r, 16-byte piece q at q ^ (r % 8).
__global__ void tile_rows(uint4 const* rows, uint4* tiled, int n, int dims)
{
  int const pieces = dims / 8, chunks = dims / KC;
  for (std::size_t p = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; p < std::size_t(n) * pieces;
       p += std::size_t{gridDim.x} * blockDim.x) {
    std::size_t const row = p / pieces;
    int const qg = static_cast<int>(p % pieces), c = qg / 8, q = qg % 8;
    std::size_t const t = row / TS;
    int const r = static_cast<int>(row % TS);
    tiled[((t * chunks + c) * TS + r) * 8 + (q ^ (r & 7))] = rows[p];
  }
}

__global__ void row_norms(__half const* rows, int n, int dims, float* norms)
{
  int const row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= n) { return; }
  float s = 0;
  for (int k = threadIdx.x & 31; k < dims; k += 32) {
    float const x = __half2float(rows[static_cast<std::size_t>(row) * dims + k]);
    s = fmaf(x, x, s);
  }
  for (int o = 16; o > 0; o >>= 1) { s += __shfl_xor_sync(0xffffffffu, s, o); }
  if ((threadIdx.x & 31) == 0) { norms[row] = s; }
}

// The tensor cores' rate for this shape: 2 warpgroups of m64n64k16 from shared memory, nothing else.
__global__ void __launch_bounds__(256, 1) wgmma_peak(int iters, float* sink)
{
  extern __shared__ unsigned char raw[];
  unsigned char* const stages = raw + ((1024 - (smem_addr(raw) & 1023u)) & 1023u);
  for (int i = threadIdx.x; i < 2 * SIDE_BYTES / 4; i += 256) {
    reinterpret_cast<__half2*>(stages)[i] = __floats2half2_rn(0.001f * (i % 7), 0.002f * (i % 5));
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  unsigned const base = smem_addr(stages);
  int const wg        = threadIdx.x >> 7;
  float d0[32], d1[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) { d0[i] = d1[i] = 0; }
  for (int k = 0; k < iters; ++k) {
    chunk_half(d0, base + wg * 64 * 128, base + SIDE_BYTES, false);
    chunk_half(d1, base + wg * 64 * 128, base + SIDE_BYTES + 64 * 128, false);
    wait_groups<1>();
  }
  wait_groups<0>();
  pin(d0);
  pin(d1);
  float s = 0;
#pragma unroll
  for (int i = 0; i < 32; ++i) { s += d0[i] + d1[i]; }
  if (s == 12345.f) { sink[0] = s; }
}

// ---------------------------------------------------------------------------------------------
// Host

std::vector<unit> band_units(int tiles, int pair_rows)
{
  std::vector<unit> u;
  for (int band = 0; band < tiles; band += BAND) {
    for (int col = band; col < tiles; ++col) {
      for (int row = band; row < std::min(band + BAND, tiles); row += pair_rows) {
        if (row <= col) { u.push_back({row, col}); }
      }
    }
  }
  return u;
}

struct probe_data {
  int n, dims;
  __half *rows, *tiled;
  float* norms;
  float thr;
  std::vector<__half> host;
};

int timed_reps = 5;  // timed launches after one warm-up (--reps)

double median_ms(std::vector<float> v)
{
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class Launch>
void run(char const* name, probe_data const& p, Launch&& launch, unsigned long long* d_count, long long expected, long long slack)
{
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> ms;
  unsigned long long count = 0;
  for (int rep = 0; rep <= timed_reps; ++rep) {
    CHECK(cudaMemset(d_count, 0, sizeof(unsigned long long)));  // the kernels add to it
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, a, b));
    if (rep > 0) { ms.push_back(t); }  // the first launch warms up
    CHECK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  double const t     = median_ms(ms);
  double const pairs = 0.5 * double(p.n) * double(p.n - 1);
  char verdict[96]   = "";
  if (expected >= 0) {
    long long const diff = static_cast<long long>(count) - expected;
    std::snprintf(verdict, sizeof verdict, "  cpu %lld (%+lld, %lld near the threshold) %s", expected, diff, slack,
                  std::llabs(diff) <= slack ? "ok" : "WRONG");
  }
  std::printf("  %-26s %9.3f ms %7.1f TFLOPS  count %llu%s\n", name, t, 2.0 * p.dims * pairs / (t * 1e-3) / 1e12, count, verdict);
}

int main(int argc, char** argv)
{
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs, L2 %d MB\n", prop.name, sms, prop.l2CacheSize >> 20);

  std::size_t const sync_smem = 2 * SYNC_STAGES * SIDE_BYTES + 1024;
  std::size_t const ws_smem   = 2 * WS_STAGES * SIDE_BYTES + 1024 + 16 * WS_STAGES;
  CHECK(cudaFuncSetAttribute(count_sync<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sync_smem)));
  CHECK(cudaFuncSetAttribute(count_sync<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sync_smem)));
  CHECK(cudaFuncSetAttribute(count_sync_bulk<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sync_smem + 64)));
  CHECK(cudaFuncSetAttribute(count_sync_bulk<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sync_smem + 64)));
  std::size_t const batched3_smem = 2 * 3 * SIDE_BYTES + 1024 + 64, batched4_smem = 2 * 4 * SIDE_BYTES + 1024 + 64;
  CHECK(cudaFuncSetAttribute(count_sync_batched<true, 3, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(batched3_smem)));
  CHECK(cudaFuncSetAttribute(count_sync_batched<true, 3, 4>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(batched3_smem)));
  CHECK(cudaFuncSetAttribute(count_sync_batched<true, 4, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(batched4_smem)));
  CHECK(cudaFuncSetAttribute(count_sync_batched<true, 4, 4>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(batched4_smem)));
  CHECK(cudaFuncSetAttribute(count_ws<true, false, 1>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ws_smem)));
  CHECK(cudaFuncSetAttribute(count_ws<true, true, 1>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ws_smem)));
  CHECK(cudaFuncSetAttribute(count_ws<true, false, 1, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ws_smem)));
  CHECK(cudaFuncSetAttribute(count_ws<true, false, 1, 4>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ws_smem)));
  CHECK(cudaFuncSetAttribute(count_ws<true, false, 1, 4, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ws_smem)));
  CHECK(cudaFuncSetAttribute(count_ws<true, false, 1, 2, true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ws_smem)));
  CHECK(cudaFuncSetAttribute(count_ws<true, false, 1, 4, true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ws_smem)));
  CHECK(cudaFuncSetAttribute(count_ws<false, true, 1, 1, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ws_smem)));
  CHECK(cudaFuncSetAttribute(count_ws<true, false, 1, 2, true, false, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ws_smem)));
  CHECK(cudaFuncSetAttribute(count_ws<true, false, 1, 4, true, false, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ws_smem)));
  CHECK(cudaFuncSetAttribute(count_ws<false, true, 1, 1, true, false, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ws_smem)));
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  {
    cudaDriverEntryPointQueryResult found;
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode), 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || encode == nullptr) {
      std::printf("cuTensorMapEncodeTiled not found\n");
      return 1;
    }
  }
  CHECK(cudaFuncSetAttribute(count_ws<false, true, 1>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ws_smem)));
  CHECK(cudaFuncSetAttribute(count_ws<true, true, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ws_smem)));
  CHECK(cudaFuncSetAttribute(count_ws<false, true, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(ws_smem)));
  CHECK(cudaFuncSetAttribute(wgmma_peak, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sync_smem)));

  // The clusters of 2 that fit at once: the persistent grid of the cluster variants.
  int cluster_blocks = 0;
  {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim            = dim3(2 * sms);
    cfg.blockDim           = dim3(384);
    cfg.dynamicSmemBytes   = ws_smem;
    cudaLaunchAttribute attr;
    attr.id               = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = 2;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs             = &attr;
    cfg.numAttrs          = 1;
    int clusters          = 0;
    CHECK(cudaOccupancyMaxActiveClusters(&clusters, count_ws<true, true, 2>, &cfg));
    cluster_blocks = 2 * clusters;
    std::printf("clusters of 2 at once: %d (%d blocks)\n", clusters, cluster_blocks);
  }

  float* sink;
  CHECK(cudaMalloc(&sink, sizeof(float)));
  {
    int const iters = 20000;
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> ms;
    for (int rep = 0; rep < 6; ++rep) {
      CHECK(cudaEventRecord(a));
      wgmma_peak<<<sms, 256, sync_smem>>>(iters, sink);
      CHECK(cudaGetLastError());
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      float t = 0;
      CHECK(cudaEventElapsedTime(&t, a, b));
      if (rep > 0) { ms.push_back(t); }
    }
    double const flops = double(sms) * iters * 2 * 2 * 4 * (64.0 * 64 * 16 * 2);
    std::printf("wgmma m64n64k16 peak (2 warpgroups per SM, from shared memory): %.1f TFLOPS\n", flops / (median_ms(ms) * 1e-3) / 1e12);
  }

  int const sizes[][2] = {{1024, 256}, {2048, 960}, {1024, 4096}, {65536, 128}, {65536, 256}, {65536, 960}, {65536, 4096}};
  unsigned long long* d_count;
  CHECK(cudaMalloc(&d_count, sizeof(unsigned long long)));
  // --small: the checked sizes only; --size N D: that size only; --reps R: R timed launches.
  bool const small = argc > 1 && std::strcmp(argv[1], "--small") == 0;
  int only_n = 0, only_d = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--size") == 0 && i + 2 < argc) {
      only_n = std::atoi(argv[i + 1]);
      only_d = std::atoi(argv[i + 2]);
    }
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) { timed_reps = std::atoi(argv[i + 1]); }
  }
  for (auto const& sz : sizes) {
    probe_data p;
    p.n = sz[0];
    p.dims = sz[1];
    if (small && p.n > 4096) { continue; }
    if (only_n != 0 && (p.n != only_n || p.dims != only_d)) { continue; }
    std::size_t const elems = std::size_t(p.n) * p.dims;
    p.host.resize(elems);
    unsigned x = 12345u + p.dims;
    for (auto& h : p.host) {
      x = x * 1664525u + 1013904223u;
      h = __float2half(((x >> 8) & 0xffff) / 32768.0f - 1.0f);  // rounded to half; the CPU count takes the stored values
    }
    CHECK(cudaMalloc(&p.rows, elems * sizeof(__half)));
    CHECK(cudaMalloc(&p.tiled, elems * sizeof(__half)));
    CHECK(cudaMalloc(&p.norms, p.n * sizeof(float)));
    CHECK(cudaMemcpy(p.rows, p.host.data(), elems * sizeof(__half), cudaMemcpyHostToDevice));
    tile_rows<<<4 * sms, 256>>>(reinterpret_cast<uint4 const*>(p.rows), reinterpret_cast<uint4*>(p.tiled), p.n, p.dims);
    row_norms<<<(p.n + 7) / 8, 256>>>(p.rows, p.n, p.dims, p.norms);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    // The threshold: the 1% quantile of 20000 sampled pairs' squared distances.
    auto dist2 = [&](int i, int j) {
      double s = 0;
      for (int k = 0; k < p.dims; ++k) {
        double const d = double(__half2float(p.host[std::size_t(i) * p.dims + k])) - double(__half2float(p.host[std::size_t(j) * p.dims + k]));
        s += d * d;
      }
      return s;
    };
    std::vector<double> sample;
    unsigned y = 777u;
    for (int k = 0; k < 20000; ++k) {
      y = y * 1664525u + 1013904223u;
      int const i = (y >> 4) % p.n;
      y = y * 1664525u + 1013904223u;
      int const j = (y >> 4) % p.n;
      if (i != j) { sample.push_back(dist2(i, j)); }
    }
    std::sort(sample.begin(), sample.end());
    p.thr = static_cast<float>(sample[sample.size() / 100]);
    long long expected = -1, slack = 0;
    if (p.n <= 4096) {
      expected = 0;
      for (int i = 0; i < p.n; ++i) {
        for (int j = i + 1; j < p.n; ++j) {
          double const s = dist2(i, j);
          expected += s < p.thr;
          slack += std::fabs(s - p.thr) <= 1e-3 * p.thr;
        }
      }
    }
    std::printf("N = %d, D = %d, threshold %.3f\n", p.n, p.dims, p.thr);
    {
      CUtensorMap map;
      cuuint64_t const dim[2]    = {cuuint64_t(p.dims), cuuint64_t(p.n)};
      cuuint64_t const stride[1] = {cuuint64_t(p.dims) * sizeof(__half)};
      cuuint32_t const box[2]    = {KC, TS};
      cuuint32_t const step[2]   = {1, 1};
      CUresult const r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, p.rows, dim, stride, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
      if (r != CUDA_SUCCESS) {
        std::printf("cuTensorMapEncodeTiled failed: %d\n", int(r));
        return 1;
      }
      CHECK(cudaMemcpyToSymbol(rows_map, &map, sizeof map));
    }
    int const tiles = p.n / TS;
    std::vector<unit> singles = band_units(tiles, 1), doubles = band_units(tiles, 2);
    unit *d_singles, *d_doubles;
    CHECK(cudaMalloc(&d_singles, singles.size() * sizeof(unit)));
    CHECK(cudaMalloc(&d_doubles, doubles.size() * sizeof(unit)));
    CHECK(cudaMemcpy(d_singles, singles.data(), singles.size() * sizeof(unit), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_doubles, doubles.data(), doubles.size() * sizeof(unit), cudaMemcpyHostToDevice));
    int const ns = static_cast<int>(singles.size()), nd = static_cast<int>(doubles.size());
    auto cluster_launch = [&](auto kernel) {
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim            = dim3(cluster_blocks);
      cfg.blockDim           = dim3(384);
      cfg.dynamicSmemBytes   = ws_smem;
      cudaLaunchAttribute attr;
      attr.id               = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = 2;
      attr.val.clusterDim.y = 1;
      attr.val.clusterDim.z = 1;
      cfg.attrs             = &attr;
      cfg.numAttrs          = 1;
      CHECK(cudaLaunchKernelEx(&cfg, kernel, static_cast<__half const*>(p.tiled), static_cast<float const*>(p.norms), p.dims,
                               static_cast<unit const*>(d_doubles), nd, p.thr, d_count));
    };
    run("sync grouped (library)", p, [&] { count_sync<true><<<sms, 256, sync_smem>>>(p.rows, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("sync ungrouped", p, [&] { count_sync<false><<<sms, 256, sync_smem>>>(p.rows, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("sync-bulk grouped", p, [&] { count_sync_bulk<true><<<sms, 256, sync_smem + 64>>>(p.tiled, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("sync-bulk ungrouped", p, [&] { count_sync_bulk<false><<<sms, 256, sync_smem + 64>>>(p.tiled, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("sync-bulk 3 st., b. of 2", p, [&] { count_sync_batched<true, 3, 2><<<sms, 256, batched3_smem>>>(p.tiled, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("sync-bulk 3 st., b. of 4", p, [&] { count_sync_batched<true, 3, 4><<<sms, 256, batched3_smem>>>(p.tiled, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("sync-bulk 4 st., b. of 2", p, [&] { count_sync_batched<true, 4, 2><<<sms, 256, batched4_smem>>>(p.tiled, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("sync-bulk 4 st., b. of 4", p, [&] { count_sync_batched<true, 4, 4><<<sms, 256, batched4_smem>>>(p.tiled, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("ws grouped", p, [&] { count_ws<true, false, 1><<<sms, 384, ws_smem>>>(p.tiled, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("ws grouped, batches of 2", p, [&] { count_ws<true, false, 1, 2><<<sms, 384, ws_smem>>>(p.tiled, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("ws grouped, batches of 4", p, [&] { count_ws<true, false, 1, 4><<<sms, 384, ws_smem>>>(p.tiled, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("ws-tma grouped, b. of 2", p, [&] { count_ws<true, false, 1, 2, true, false, true><<<sms, 384, ws_smem>>>(p.rows, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("ws-tma grouped, b. of 4", p, [&] { count_ws<true, false, 1, 4, true, false, true><<<sms, 384, ws_smem>>>(p.rows, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("ws-tma+pipe ungrouped", p, [&] { count_ws<false, true, 1, 1, true, false, true><<<sms, 384, ws_smem>>>(p.rows, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("ws lockstep grouped, b. of 2", p, [&] { count_ws<true, false, 1, 2, true, true><<<sms, 384, ws_smem>>>(p.tiled, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("ws lockstep grouped, b. of 4", p, [&] { count_ws<true, false, 1, 4, true, true><<<sms, 384, ws_smem>>>(p.tiled, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("ws-cp.async grouped, b. of 4", p, [&] { count_ws<true, false, 1, 4, false><<<sms, 384, ws_smem>>>(p.rows, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("ws-cp.async+pipe ungrouped", p, [&] { count_ws<false, true, 1, 1, false><<<sms, 384, ws_smem>>>(p.rows, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("ws+pipe grouped", p, [&] { count_ws<true, true, 1><<<sms, 384, ws_smem>>>(p.tiled, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("ws+pipe ungrouped", p, [&] { count_ws<false, true, 1><<<sms, 384, ws_smem>>>(p.tiled, p.norms, p.dims, d_singles, ns, p.thr, d_count); }, d_count, expected, slack);
    run("cluster2 grouped", p, [&] { cluster_launch(count_ws<true, true, 2>); }, d_count, expected, slack);
    run("cluster2 ungrouped", p, [&] { cluster_launch(count_ws<false, true, 2>); }, d_count, expected, slack);
    CHECK(cudaFree(d_singles));
    CHECK(cudaFree(d_doubles));
    CHECK(cudaFree(p.rows));
    CHECK(cudaFree(p.tiled));
    CHECK(cudaFree(p.norms));
  }
  return 0;
}
