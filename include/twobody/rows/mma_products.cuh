/// \file mma_products.cuh
/// \brief The tensor-core products core of rows (mma_tile_products): a 128 x 128 tile pair's
/// inner products by mma.sync from ldmatrix fragments, or on sm_90a by wgmma from swizzled
/// stages that cp.async or the tensor memory accelerator fills, laid out alike for the traversals.
#pragma once

#include <twobody/input/mma_tile.cuh>
#include <twobody/rows/ptx.cuh>
#include <twobody/rows/tile_pair.cuh>

#include <cuda/std/type_traits>

#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__

namespace twobody::detail {

/// The tensor-core products of a 128 x 128 tile pair of two staged row sets, shared by the
/// traversals of rows: 8 warps of 64 x 32 products, chunks of 128 bytes of every row staged
/// with cp.async in `stages` buffers of dynamic shared memory (one barrier per chunk), and
/// fragments read with ldmatrix.
template <class T>
struct mma_tile_products : row_tile_pair<T> {
  using row_tile_pair<T>::a;
  using row_tile_pair<T>::b;
  using row_tile_pair<T>::dims_padded;
  using policy                       = input::mma_tile;
  static constexpr int block_threads = policy::block_threads;
  static constexpr int TS            = policy::tile;
  static constexpr int stages        = policy::stages;
  static constexpr int words         = policy::chunk_bytes / 4;  ///< 32-bit words per row chunk
  static constexpr int stride        = words + 4;                ///< padded: ldmatrix rows hit distinct banks
  static constexpr int KC            = mma_chunk_elements<T>;
  static constexpr int stage_words   = TS * stride;             ///< one side's chunk of the tile
  static_assert(block_threads == 256 && TS == 128, "the warp layout below is 2 x 4 warps of 64 x 32 products");
  static_assert(stages >= 2 && words % 8 == 0, "a chunk is whole k-steps of 8 words");
  static_assert(!cuda::std::is_same_v<T, double>,
                "double rows have no tensor-core path here: they take input::simt_rows (what input::automatic takes for them)");

  /// The stages in dynamic shared memory: a[stages][stage_words], then b[stages][stage_words].
  static constexpr std::size_t mma_sync_bytes = sizeof(std::uint32_t) * 2 * stages * stage_words;
  /// The wgmma stages (sm_90a, half and bfloat16): stage s is a's TS rows of chunk_bytes, then
  /// b's, unpadded and 128-byte swizzled, from the first 1024-byte boundary (the swizzle's atom).
  /// Stages 0 and 1 hold the accumulators' exchange, so that stage 2 can take the next tile
  /// pair's first chunk meanwhile.
  static constexpr int wgmma_side_bytes = TS * policy::chunk_bytes;
  /// Chunk c (products), c + 1 and c + 2 (loads). 96 KB: 4 stages (129 KB in all) pushed the
  /// lists of knn with k = 100 out of shared memory (352 against 217 ms at D = 128, H100; 290
  /// against 167 on an H200 with the loads by the tensor memory accelerator, which gained at
  /// most 1.3% on counts and 5% on kernel sums from a fourth stage).
  static constexpr int wgmma_stages     = 3;
  /// The stages, the alignment to 1024 bytes, and per stage (use_tma()) an mbarrier (its loads
  /// by the tensor memory accelerator complete on it) and a count of the warps done with it.
  static constexpr std::size_t wgmma_bytes = (2 * wgmma_stages * wgmma_side_bytes + 1024 + 12 * wgmma_stages + 127) / 128 * 128;
  static constexpr std::size_t dynamic_bytes = mma_sync_bytes > wgmma_bytes ? mma_sync_bytes : wgmma_bytes;
  static_assert(dynamic_bytes % 128 == 0);
  static_assert(policy::chunk_bytes == 128, "a wgmma stage row is one 128-byte swizzle atom row");
  static_assert(4 * wgmma_side_bytes >= TS * TS * sizeof(float), "the accumulators' exchange fits in stages 0 and 1");
  static_assert(policy::group_chunks == 1, "products_wgmma takes every chunk as a group");
  struct temp_storage {};

  /// Whether these products take wgmma: compiled for sm_90a, 16-bit inputs, and rows long
  /// enough that the tensor cores, not the per-pair epilogue, bound the time.
  static constexpr bool wgmma_types = cuda::std::is_same_v<T, __half> || cuda::std::is_same_v<T, __nv_bfloat16>;
  __device__ bool use_wgmma() const
  {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    return wgmma_types && dims_padded >= policy::wgmma_min_dims;
#else
    return false;
#endif
  }

  std::uint32_t* smem;  ///< dynamic_bytes of dynamic shared memory
  unsigned tma_phases = 0;  ///< use_tma(): bit s, the parity of stage s's next completed load
  next_tile_pair ahead;     ///< use_tma(): the tile pair whose first chunk is loading into stage 2, if known

  __device__ mma_tile_products(staged_row_view<T> const& a_, staged_row_view<T> const& b_, int dims, unsigned char* stages_)
    : row_tile_pair<T>(a_, b_, dims), smem(reinterpret_cast<std::uint32_t*>(stages_))
  {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    if (use_tma() && threadIdx.x == 0) {  // seen by the other threads after products_wgmma's first barrier
      for (int s = 0; s < wgmma_stages; ++s) {
        ptx::mbarrier_init<1>(stage_barrier(s));
        stage_releases()[s] = 0;
      }
      ptx::fence_mbarrier_init();
    }
#endif
  }

  /// The stage of chunk c where the tensor memory accelerator loads the stages: chunk 0 takes
  /// stage 2, which the accumulators' exchange leaves alone (products_wgmma).
  __host__ __device__ static constexpr int tma_stage_of(int c) { return (c + 2) % wgmma_stages; }

  /// Whether products_wgmma loads its stages with the tensor memory accelerator: both sets have
  /// a tensor map (row_tensor_map.cuh). Otherwise its 256 threads stage them with cp.async.
  /// From tma_min_dims padded coordinates on. Before the next tile pair's first chunk was loaded
  /// ahead (next_tile_pair), that was 256: at D = 128, where a tile pair has 2 chunks to hide
  /// its first loads behind, the tensor memory accelerator measured 1-2% slower than cp.async,
  /// at D = 256 2-6% faster (H200).
  static constexpr int tma_min_dims = 128;
  __device__ bool use_tma() const
  {
    return use_wgmma() && dims_padded >= tma_min_dims && a.tensor_map != nullptr && b.tensor_map != nullptr;
  }

  /// The shared-memory address of stage s's mbarrier, past the wgmma stages.
  __device__ unsigned stage_barrier(int s) const
  {
    return static_cast<unsigned>(__cvta_generic_to_shared(wgmma_base())) + 2u * wgmma_stages * wgmma_side_bytes + 8u * s;
  }

  /// Per stage, how many warp releases it has had (past the mbarriers): the warp
  /// whose release makes it a multiple of 8 is the last one done with the stage's chunk, and
  /// refills it.
  __device__ unsigned* stage_releases() const
  {
    return reinterpret_cast<unsigned*>(wgmma_base() + 2 * wgmma_stages * wgmma_side_bytes / 4 + 2 * wgmma_stages);
  }

  /// rho of the margin of these products (file comment).
  static float relative_error(int dims) { return mma_relative_error<T>(dims); }

  /// The wgmma stages' start: the first 1024-byte boundary (the swizzle's atom) in the stages.
  __device__ std::uint32_t* wgmma_base() const
  {
    unsigned const raw = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    return smem + (((raw + 1023u) & ~1023u) - raw) / 4;
  }

  /// Words free between products() calls until the next one's first barrier. Before it, the
  /// cp.async prologues load chunks 0 and 1 only, into stages 0 and 1, so the scratch is stage
  /// 2's a; the tensor memory accelerator may be loading the next tile pair's first chunk into
  /// stage 2 (next_tile_pair) and loads nothing else before it, so there it is stage 0's a.
  static constexpr int scratch_words = 4096;
  __device__ std::uint32_t* scratch() const
  {
    if constexpr (wgmma_types) {
      if (use_wgmma()) { return wgmma_base() + (use_tma() ? 0 : 2 * wgmma_stages - 2) * (wgmma_side_bytes / 4); }
    }
    return smem + (stages - 1) * stage_words;
  }
  static_assert(stages == 3 && scratch_words <= stage_words && 4 * scratch_words <= wgmma_side_bytes,
                "scratch() is a stage's a in either layout");

  __device__ std::uint32_t* stage_a(int s) const { return smem + s * stage_words; }
  __device__ std::uint32_t* stage_b(int s) const { return smem + (stages + s) * stage_words; }

  /// Chunk c of the tile's rows (clamped to the set: rows past the end repeat its last point,
  /// whose pairs are dropped) into the stage at `dst`, 16 bytes per cp.async.
  /// Swizzled: rows of `words` words, piece q of row r at piece q ^ (r % 8) (wgmma's 128-byte swizzle).
  template <bool Swizzled = false>
  __device__ void load_chunk(staged_row_view<T> const& side, size_type first, int c, std::uint32_t* dst)
  {
#pragma unroll
    for (int k = 0; k < TS * words / 4 / block_threads; ++k) {
      int const piece = static_cast<int>(threadIdx.x) + k * block_threads;
      int const r = piece / (words / 4), q = piece % (words / 4);
      size_type row = first + r;
      if (row >= side.size) { row = side.size - 1; }
      T const* src = side.data + row * dims_padded + static_cast<size_type>(c) * KC + q * (16 / int(sizeof(T)));
      std::uint32_t* const at = Swizzled ? dst + r * words + ((q ^ (r & 7)) * 4) : dst + r * stride + q * 4;
      unsigned const to = static_cast<unsigned>(__cvta_generic_to_shared(at));
#if __CUDA_ARCH__ >= 800
      ptx::cp_async_16(to, src);
#else
      *reinterpret_cast<uint4*>(at) = *reinterpret_cast<uint4 const*>(src);
      (void)to;
#endif
    }
  }

  /// Chunk c of both sides into stage c % stages (nothing past the last chunk), as one cp.async
  /// group: every call commits one, so `stages - 2` pending groups mean chunk c - stages + 2 landed.
  __device__ void load_stage(size_type row_start, size_type col_start, int c, int chunks)
  {
    if (c < chunks) {
      load_chunk(a, row_start, c, stage_a(c % stages));
      load_chunk(b, col_start, c, stage_b(c % stages));
    }
#if __CUDA_ARCH__ >= 800
    ptx::cp_async_commit_group();
#endif
  }


  /// The warp's A fragments (4 row blocks of 16) and B fragments (4 column blocks of 8) of
  /// k-step ks from the lane's ldmatrix rows a and b of a stage, as mma operands.
  __device__ static void fragments(std::uint32_t const* a, std::uint32_t const* b, int ks, std::uint32_t (&af)[4][4],
                                   std::uint32_t (&bf)[4][2])
  {
#pragma unroll
    for (int mt = 0; mt < 4; ++mt) {
      ptx::ldmatrix_x4(a + mt * 16 * stride + ks * 8, af[mt]);
#pragma unroll
      for (int k = 0; k < 4; ++k) { af[mt][k] = mma_step<T>::operand(af[mt][k]); }
    }
#pragma unroll
    for (int np = 0; np < 2; ++np) {
      std::uint32_t r[4];
      ptx::ldmatrix_x4(b + np * 16 * stride + ks * 8, r);
      bf[2 * np][0]     = mma_step<T>::operand(r[0]);
      bf[2 * np][1]     = mma_step<T>::operand(r[1]);
      bf[2 * np + 1][0] = mma_step<T>::operand(r[2]);
      bf[2 * np + 1][1] = mma_step<T>::operand(r[3]);
    }
  }

  /// acc[mt][nt][e]: the inner products of the warp's 64 x 32 block of the tile pair. Grouped:
  /// each group of policy::group_chunks chunks is accumulated from zero, then added to acc in
  /// FP32, which the margin (mma_relative_error) assumes; ungrouped (kernel sums, which need no
  /// margin): one accumulation over all of D, 64 registers fewer.
  /// `next`, where known, is the tile pair of the next call: the tensor memory accelerator
  /// then loads its first chunk during this call's exchange and the visits after it (the caller
  /// calls finish() before its block exits).
  template <bool Grouped = true>
  __device__ void products(size_type row_start, size_type col_start, float (&acc)[4][4][4], next_tile_pair next = {})
  {
    if constexpr (wgmma_types) {
      if (use_wgmma()) {
        products_wgmma<Grouped>(row_start, col_start, acc, next);
        return;
      }
    }
    (void)next;
    products_mma_sync<Grouped>(row_start, col_start, acc);
  }

  /// Waits for a first chunk loaded ahead for a tile pair that no call took (a traversal that
  /// stopped early): no copy may still write to the block's shared memory when it exits.
  __device__ void finish()
  {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    if (ahead.known) {
      constexpr int s = tma_stage_of(0);
      ptx::mbarrier_wait_parity(stage_barrier(s), (tma_phases >> s) & 1u);
      tma_phases ^= 1u << s;
      ahead.known = false;
    }
#endif
  }

  /// products() with mma.sync: every warp its 64 x 32 block from ldmatrix fragments.
  template <bool Grouped>
  __device__ void products_mma_sync(size_type row_start, size_type col_start, float (&acc)[4][4][4])
  {
    int const lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
    int const wm = warp & 1, wn = warp >> 1;
    // ldmatrix rows of this lane: A matrices (rows +0/+8, words +0/+4), B matrices (words +0/+4, rows +0/+8).
    int const q = lane >> 3, r8 = lane & 7;
    int const a_off = (wm * 64 + r8 + (q & 1) * 8) * stride + (q >> 1) * 4;
    int const b_off = (wn * 32 + r8 + (q >> 1) * 8) * stride + (q & 1) * 4;

    float grp[4][4][4];
    float(&sum)[4][4][4] = Grouped ? grp : acc;
    this->zero(acc);
    int const chunks = dims_padded / KC;
#pragma unroll
    for (int c = 0; c < stages - 1; ++c) { load_stage(row_start, col_start, c, chunks); }
    for (int c = 0; c < chunks; ++c) {
#if __CUDA_ARCH__ >= 800
      ptx::cp_async_wait_group<stages - 2>();
#endif
      __syncthreads();  // chunk c is in; every warp is done with chunk c - 1, whose stage is refilled next
      load_stage(row_start, col_start, c + stages - 1, chunks);
      std::uint32_t const* As = stage_a(c % stages);
      std::uint32_t const* Bs = stage_b(c % stages);
      // The fragments of k-step ks + 1 are read while the tensor cores work on ks (two sets).
      std::uint32_t af[2][4][4], bf[2][4][2];
      fragments(As + a_off, Bs + b_off, 0, af[0], bf[0]);
#pragma unroll
      for (int ks = 0; ks < words / 8; ++ks) {
        if (ks + 1 < words / 8) { fragments(As + a_off, Bs + b_off, ks + 1, af[(ks + 1) & 1], bf[(ks + 1) & 1]); }
        // A group's first k-step starts its sums from zero.
        bool const fresh = Grouped && ks == 0 && c % policy::group_chunks == 0;
#pragma unroll
        for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
          for (int nt = 0; nt < 4; ++nt) {
            if (fresh) {
              mma_step<T>::template run<true>(sum[mt][nt], af[ks & 1][mt], bf[ks & 1][nt]);
            } else {
              mma_step<T>::run(sum[mt][nt], af[ks & 1][mt], bf[ks & 1][nt]);
            }
          }
        }
      }
      if constexpr (Grouped) {
        if (c % policy::group_chunks == policy::group_chunks - 1 || c == chunks - 1) {
#pragma unroll
          for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
            for (int nt = 0; nt < 4; ++nt) {
#pragma unroll
              for (int e = 0; e < 4; ++e) { acc[mt][nt][e] += grp[mt][nt][e]; }
            }
          }
        }
      }
    }
    __syncthreads();  // every warp is done with the stages before the next tile pair refills them
  }

  /// products() with wgmma (sm_90a): warpgroup w takes rows 64 w .. 64 w + 63 against all 128
  /// columns (m64n64k16 on each half, both operands from the swizzled stages), four k-steps per chunk, and
  /// the group sums are added as in products_mma_sync. Warp v of the block then holds the
  /// products of rows 16 v .. 16 v + 15, each lane in the m16n8 layout of every 8-column block;
  /// an exchange through the stages gives every warp its 64 x 32 block of products_mma_sync's
  /// layout, so the traversals read both cores alike (one float4 per lane and 16 x 8 block).
  template <bool Grouped>
  __device__ void products_wgmma(size_type row_start, size_type col_start, float (&acc)[4][4][4], next_tile_pair next)
  {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    int const lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
    // The stages from the first 1024-byte boundary: a of stage s at 2 s * side, its b at (2 s + 1) * side.
    std::uint32_t* const words_at = wgmma_base();
    unsigned const base           = static_cast<unsigned>(__cvta_generic_to_shared(words_at));
    auto side_words = [&](int side, int s) { return words_at + (2 * s + side) * (wgmma_side_bytes / 4); };

    float(&total)[64] = reinterpret_cast<float(&)[64]>(acc);  // wgmma's element order until the exchange
#pragma unroll
    for (int i = 0; i < 64; ++i) { total[i] = 0.0f; }
    int const chunks = dims_padded / KC;
    // Each chunk's products in two halves of 64 columns (m64n64k16, one commit group each), so
    // that one half's group sums are added while the other half's products run. Ungrouped, the
    // halves accumulate into the totals themselves.
    float first[32], second[32];
    float(&total_first)[32]  = reinterpret_cast<float(&)[32]>(total[0]);
    float(&total_second)[32] = reinterpret_cast<float(&)[32]>(total[32]);
    float(&sum_first)[32]    = Grouped ? first : total_first;
    float(&sum_second)[32]   = Grouped ? second : total_second;
    auto add = [](float(&to)[32], float(&from)[32]) {
      ptx::wgmma_pin(from);
#pragma unroll
      for (int i = 0; i < 32; ++i) { to[i] += from[i]; }
    };
    // The operands' descriptors: the stages' first descriptor plus offsets in 16-byte units
    // (the address field, 14 bits, holds every shared-memory address without a carry out). The
    // warpgroup comes from lane 0, so that the compiler keeps the descriptors warp-uniform, in
    // uniform registers: computed per thread, they were moved into uniform registers before
    // every wgmma (the cp.async mainloop took 376 SASS instructions a chunk so, 310 without).
    int const warpgroup            = __shfl_sync(0xffffffffu, warp >> 2, 0);
    std::uint64_t const first_desc = ptx::wgmma_descriptor(base);
    auto a_desc = [&](int s) { return first_desc + static_cast<unsigned>((2 * s * TS + warpgroup * 64) * policy::chunk_bytes / 16); };
    auto b_desc = [&](int s) { return first_desc + static_cast<unsigned>((2 * s + 1) * TS * policy::chunk_bytes / 16); };
    // The 4 k-steps of stage s for the warpgroup's 64 rows against one half's 64 columns, as one group.
    auto half = [&](float(&d)[32], std::uint64_t a_rows, std::uint64_t b_half, bool fresh) {
      ptx::wgmma_fence(d);
#pragma unroll
      for (int ks = 0; ks < words / 8; ++ks) {  // 32 bytes of each row per k-step
        ptx::wgmma_m64n64k16<T>(d, a_rows + 2u * ks, b_half + 2u * ks, !(fresh && ks == 0));
      }
      ptx::wgmma_commit_group();
    };
    constexpr unsigned half_desc = 64u * policy::chunk_bytes / 16;  // the second half's columns in a b stage

    if (use_tma()) {
      // The tensor memory accelerator loads the stages, and no block barrier separates the
      // chunks: a warp waits for its chunk's stage on the stage's mbarrier, and the last of the
      // 8 warps to be done with a stage refills it with the chunk wgmma_stages later. So the two
      // warpgroups are held to each other only by the stages: counts 1.04-1.18x faster at
      // D >= 256 (H200). Chunk c takes stage (c + 2) % 3, so that chunk 0 takes stage 2, which
      // the exchange leaves alone: where the next tile pair is known, the last warp done with
      // this one's last chunk in stage 2 loads the next one's chunk 0 there, and that load runs
      // during the exchange and the visits. The probe scripts/probes/wgmma_mainloop.cu, where a
      // producer warp refills the stages and loads on across tile pairs, made its mainloop
      // 1.36-1.55x faster.
      unsigned const barriers = stage_barrier(0);  // stage s's at barriers + 8 s
      unsigned const releases = static_cast<unsigned>(__cvta_generic_to_shared(stage_releases()));
      // One thread: chunk c of both sides' tiles from `rows` and `cols` into stage s, boxes of
      // 64 elements x 128 rows, 128-byte swizzled. Rows past the set's end read as zeros; their
      // pairs are dropped.
      auto load = [&](size_type rows, size_type cols, int c, int s) {
        unsigned const full  = barriers + 8u * s;
        unsigned const bytes = 2 * wgmma_side_bytes;
        ptx::mbarrier_arrive_expect_tx(full, bytes);
        ptx::tma_load(base + static_cast<unsigned>(2 * s * wgmma_side_bytes), a.tensor_map, c * KC, static_cast<int>(rows), full);
        ptx::tma_load(base + static_cast<unsigned>((2 * s + 1) * wgmma_side_bytes), b.tensor_map, c * KC, static_cast<int>(cols), full);
      };
      // Every accumulator is defined before the first products are issued: one set while an
      // earlier group runs makes ptxas wait or serialize the products (C7517, C7514).
#pragma unroll
      for (int i = 0; i < 32; ++i) { first[i] = second[i] = 0.0f; }
      ptx::wgmma_pin(total);
      ptx::wgmma_pin(first);
      ptx::wgmma_pin(second);
      // Every thread's ordinary accesses to the stages (the last exchange, the scratch) come
      // before the copy engine's writes there; the barrier also shows the mbarriers' init.
      ptx::fence_proxy_async_shared();
      __syncthreads();
      bool const loaded_ahead = ahead.known;
      if (loaded_ahead && (ahead.row_start != row_start || ahead.col_start != col_start)) { __trap(); }  // a traversal's bug
      if (threadIdx.x == 0) {
        for (int c = loaded_ahead ? 1 : 0; c < wgmma_stages && c < chunks; ++c) { load(row_start, col_start, c, tma_stage_of(c)); }
      }
      ahead = next;
      auto wait_loaded = [&](int s) {
        ptx::mbarrier_wait_parity(barriers + 8u * s, (tma_phases >> s) & 1u);
        tma_phases ^= 1u << s;
      };
      // This warp's products of chunk c (in stage s) completed: the warp whose release is the
      // stage's 8th refills it (with the next tile pair's chunk 0 after this one's last chunk in
      // stage 2). The count is acquire-release (every warp's products of the stage completed
      // before the copy engine writes there), on the shared-memory address: the same count
      // through a generic address measured 1-4% slower at D >= 960, and a relaxed count with an
      // empty mbarrier waited on by the 8th 2-16% slower at D = 4096 (H200).
      auto release = [&](int c, int s) {
        __syncwarp();
        if (lane == 0) {
          unsigned const before = ptx::atomic_inc_acq_rel_shared(releases + 4u * s);
          if (before % 8u == 7u) {
            if (c + wgmma_stages < chunks) {
              load(row_start, col_start, c + wgmma_stages, s);
            } else if (next.known && s == tma_stage_of(0)) {
              load(next.row_start, next.col_start, 0, s);
            }
          }
        }
      };
      // Batches of up to 3 chunks from a multiple of 3 as straight-line code, so that every
      // chunk's stage, its descriptors and its mbarrier are known at compile time: the batch
      // loop takes 174 SASS instructions a chunk per thread, against 248 when each chunk's stage
      // was computed at run time (sm_90a). The first half of chunk k runs while the second half
      // of chunk k - 1 is added. No group is in flight across the loop's back edge, where ptxas
      // would serialize every wgmma (C7514).
      auto batch = [&](int c0, auto size) {
        constexpr int B = decltype(size)::value;
#pragma unroll
        for (int k = 0; k < B; ++k) {
          int const c = c0 + k, s = tma_stage_of(k);
          bool const fresh = Grouped || c == 0;  // every chunk is a group (policy::group_chunks == 1)
          wait_loaded(s);
          half(sum_first, a_desc(s), b_desc(s), fresh);
          if (k > 0) {
            ptx::wgmma_wait_group<1>();  // chunk c - 1's second half is done
            if constexpr (Grouped) { add(total_second, second); }
            release(c - 1, tma_stage_of(k - 1));
          }
          half(sum_second, a_desc(s), b_desc(s) + half_desc, fresh);
          if constexpr (Grouped) {  // ungrouped, nothing is added: both halves stay in flight
            ptx::wgmma_wait_group<1>();  // chunk c's first half is done
            add(total_first, first);
          }
        }
        ptx::wgmma_wait_group<0>();
        if constexpr (Grouped) { add(total_second, second); }
        release(c0 + B - 1, tma_stage_of(B - 1));
      };
      // Batches of 3, then 2 or 1. (The last 4 chunks as 2 + 2 instead of 3 + 1, with a second
      // copy of the batch's code, made the counts at D = 128 and 256 2-4% slower, H200.)
      int c = 0;
      for (; c + 3 <= chunks; c += 3) { batch(c, cuda::std::integral_constant<int, 3>{}); }
      if (c + 2 == chunks) {
        batch(c, cuda::std::integral_constant<int, 2>{});
      } else if (c + 1 == chunks) {
        batch(c, cuda::std::integral_constant<int, 1>{});
      }
    } else {
      // cp.async by all 256 threads, and a block barrier per chunk.
      auto load = [&](int c) {
        if (c < chunks) {
          load_chunk<true>(a, row_start, c, side_words(0, c % wgmma_stages));
          load_chunk<true>(b, col_start, c, side_words(1, c % wgmma_stages));
        }
        ptx::cp_async_commit_group();
      };
#pragma unroll
      for (int c = 0; c < wgmma_stages - 1; ++c) { load(c); }
      for (int c = 0; c < chunks; ++c) {
        ptx::cp_async_wait_group<wgmma_stages - 2>();
        ptx::fence_proxy_async_shared();  // cp.async wrote it; wgmma reads it
        __syncthreads();  // chunk c is in; every warpgroup's products of chunk c - 1 completed
        load(c + wgmma_stages - 1);
        int const s      = c % wgmma_stages;
        bool const fresh = Grouped || c == 0;
        // A chunk's products all complete before the next chunk's barrier, so the stage refilled
        // at chunk c (chunk c - 1's) is free.
        half(sum_first, a_desc(s), b_desc(s), fresh);
        half(sum_second, a_desc(s), b_desc(s) + half_desc, fresh);
        ptx::wgmma_wait_group<1>();  // the first half is done
        if constexpr (Grouped) { add(total_first, first); }
        ptx::wgmma_wait_group<0>();  // nothing in flight across iterations
        if constexpr (Grouped) { add(total_second, second); }
      }
    }
    if constexpr (!Grouped) {
      ptx::wgmma_pin(total_first);
      ptx::wgmma_pin(total_second);
    }
    // The exchange: warp v's 16 blocks of 16 x 8 (row block v, column block j) to the stages,
    // then each warp reads the 16 blocks of its 64 x 32 (row blocks 4 wm + mt, column blocks 4 wn + nt).
    __syncthreads();  // every warpgroup's last products completed before the stages are overwritten
    float4* xs = reinterpret_cast<float4*>(words_at);
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      xs[(warp * 16 + j) * 32 + lane] = make_float4(total[4 * j], total[4 * j + 1], total[4 * j + 2], total[4 * j + 3]);
    }
    __syncthreads();
    int const wm = warp & 1, wn = warp >> 1;
#pragma unroll
    for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
      for (int nt = 0; nt < 4; ++nt) {
        float4 const x = xs[((4 * wm + mt) * 16 + 4 * wn + nt) * 32 + lane];
        acc[mt][nt][0] = x.x;
        acc[mt][nt][1] = x.y;
        acc[mt][nt][2] = x.z;
        acc[mt][nt][3] = x.w;
      }
    }
    __syncthreads();  // every warp has its products before the next tile pair refills the stages
#else
    (void)row_start;
    (void)col_start;
    (void)acc;
    __trap();  // use_wgmma() is false where wgmma was not compiled
#endif
  }

};

}  // namespace twobody::detail

#endif  // __CUDACC__
