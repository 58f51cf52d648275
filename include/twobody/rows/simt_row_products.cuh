#pragma once

/// The inner products of a 128 x 128 tile pair of rows on the CUDA cores (input::simt_rows):
/// the products core that mma_traversal takes in place of the tensor cores' mma_tile_products,
/// with the same element layout, so the margin, the certainty test, the visitor and the exact
/// recomputation are the same code.
///
/// Each thread owns the 8 rows x 8 columns of the m16n8 fragment layout (row_tile_pair) and
/// computes them by FP32 fma, one coordinate at a time, from rows staged in shared memory as
/// float, transposed (coordinate-major) and permuted so a thread's 8 rows and 8 columns are
/// contiguous: two 16-byte loads each per coordinate for 64 fma. It is also double rows' core
/// (row_core_t, rows/mma_traversal.cuh).
///
/// The margin: half and bfloat16 values are exact in float, and each fma rounds once, so the
/// sum over D coordinates errs by at most gamma_D S = D 2^-24 S / (1 - D 2^-24),
/// S = sum |a_k b_k| (Higham, Accuracy and Stability of Numerical Algorithms, 3.1);
/// rho = (D_pad + 16) 2^-24 bounds it for D_pad < 2^20 (with the margin's factor 1.25).
/// Double rows are rounded to float when staged: each factor errs by at most 2^-24 relative,
/// each product by (2 + 2^-24) 2^-24, so the sum by gamma_(D+2) S, and rho = (D_pad + 18) 2^-24.
/// That holds for elements that are zero or of magnitude in [2^-50, 2^50), whose products and
/// sums stay normal floats; a row with any other element has NaN terms (prepare_rows_kernel),
/// so each of its pairs is recomputed exactly.

#include <twobody/input/simt_rows.cuh>
#include <twobody/rows/tile_pair.cuh>

#include <cstdint>

namespace twobody::detail {

#ifdef __CUDACC__

template <class T>
struct simt_row_products : row_tile_pair<T> {
  using row_tile_pair<T>::a;
  using row_tile_pair<T>::b;
  using row_tile_pair<T>::dims_padded;
  using policy                       = input::simt_rows;
  static constexpr int block_threads = policy::block_threads;
  static constexpr int TS            = policy::tile;
  /// Bytes of each stored row per staged chunk: 16 coordinates of double rows (so that a stage,
  /// and the scratch, hold as many floats as float rows' do), else the policy's.
  static constexpr int chunk_bytes   = sizeof(T) == 8 ? 2 * policy::chunk_bytes : policy::chunk_bytes;
  static constexpr int KC            = chunk_bytes / int(sizeof(T));  ///< coordinates per staged chunk
  static constexpr int stride        = TS + 4;                        ///< floats per staged coordinate
  static constexpr int stage_floats  = KC * stride;                   ///< one side's chunk
  static constexpr int pieces        = TS * chunk_bytes / 16 / block_threads;  ///< 16-byte loads per thread and side
  static_assert(block_threads == 256 && TS == 128, "the thread layout below is 2 x 4 warps of 64 x 32 products");
  static_assert(mma_chunk_elements<T> % KC == 0, "rows are staged with the padding of the tensor-core tile");

  /// Two stages of both sides in dynamic shared memory: a[0], b[0], a[1], b[1], stage_floats each.
  static constexpr std::size_t dynamic_bytes = (sizeof(float) * 4 * stage_floats + 127) / 128 * 128;
  struct temp_storage {};

  float* smem;

  __device__ float* stage(int side, int st) const { return smem + (2 * st + side) * stage_floats; }

  /// Words free between products() calls until the next one's first barrier (it stores chunk 0
  /// into a[0] and b[0] before it): a[1] and b[1] (knn's first-tile bounds take 17 words a row).
  static constexpr int scratch_words = 2 * stage_floats;
  __device__ std::uint32_t* scratch() const { return reinterpret_cast<std::uint32_t*>(stage(0, 1)); }

  __device__ simt_row_products(staged_row_view<T> const& a_, staged_row_view<T> const& b_, int dims, unsigned char* stages)
    : row_tile_pair<T>(a_, b_, dims), smem(reinterpret_cast<float*>(stages))
  {
  }

  /// Nothing is loaded ahead (products()).
  __device__ void finish() {}

  /// rho of the margin of these products (file comment).
  static float relative_error(int dims)
  {
    return static_cast<float>((static_cast<double>(dims) + (sizeof(T) == 8 ? 18.0 : 16.0)) * 0x1p-24);
  }

  /// Where tile row r (the m16n8 layout's wm * 64 + 8 i + g) is stored: wm * 64 + 8 g + i, so
  /// that lane g's rows i = 0..7 are contiguous.
  __device__ static int row_slot(int r) { return (r & ~63) | ((r & 7) << 3) | ((r >> 3) & 7); }
  /// Where tile column c (wn * 32 + 8 nt + 2 t + h) is stored: wn * 32 + 8 t + 2 nt + h.
  __device__ static int col_slot(int c) { return (c & ~31) | (((c >> 1) & 3) << 3) | (((c >> 3) & 3) << 1) | (c & 1); }

  /// 16-byte pieces of chunk c of the tile's rows (clamped to the set, as mma_tile_products).
  __device__ void load(staged_row_view<T> const& side, size_type first, int c, uint4 (&v)[pieces]) const
  {
    constexpr int per_row = chunk_bytes / 16;
#pragma unroll
    for (int k = 0; k < pieces; ++k) {
      int const piece = static_cast<int>(threadIdx.x) + k * block_threads;
      size_type row   = first + piece / per_row;
      if (row >= side.size) { row = side.size - 1; }
      v[k] = *reinterpret_cast<uint4 const*>(side.data + row * dims_padded + static_cast<size_type>(c) * KC +
                                             (piece % per_row) * (16 / int(sizeof(T))));
    }
  }

  /// The pieces as floats into a stage, coordinate-major, rows at their slots.
  template <bool Rows>
  __device__ static void store(uint4 const (&v)[pieces], float* stage)
  {
    constexpr int per_row = chunk_bytes / 16, per_piece = 16 / int(sizeof(T));
#pragma unroll
    for (int k = 0; k < pieces; ++k) {
      int const piece = static_cast<int>(threadIdx.x) + k * block_threads;
      int const r     = piece / per_row;
      int const slot  = Rows ? row_slot(r) : col_slot(r);
      T const* x      = reinterpret_cast<T const*>(&v[k]);
#pragma unroll
      for (int e = 0; e < per_piece; ++e) { stage[((piece % per_row) * per_piece + e) * stride + slot] = as_float(x[e]); }
    }
  }

  /// acc[mt][nt][e]: the inner products of the lane's elements (row_tile_pair's layout). The
  /// next tile pair is not loaded ahead here (its loads are the CUDA cores' own instructions).
  template <bool Grouped = true>
  __device__ void products(size_type row_start, size_type col_start, float (&acc)[4][4][4], next_tile_pair = {})
  {
    int const lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
    int const a_at = (warp & 1) * 64 + (lane >> 2) * 8, b_at = (warp >> 1) * 32 + (lane & 3) * 8;
    this->zero(acc);
    int const chunks = dims_padded / KC;
    uint4 va[pieces], vb[pieces];
    load(a, row_start, 0, va);
    load(b, col_start, 0, vb);
    store<true>(va, stage(0, 0));
    store<false>(vb, stage(1, 0));
    __syncthreads();
    for (int c = 0; c < chunks; ++c) {
      int const st = c & 1;
      if (c + 1 < chunks) {  // the next chunk's loads in flight while this one is computed
        load(a, row_start, c + 1, va);
        load(b, col_start, c + 1, vb);
      }
      float const* As = stage(0, st) + a_at;
      float const* Bs = stage(1, st) + b_at;
#pragma unroll 4
      for (int k = 0; k < KC; ++k) {
        float4 const a0 = *reinterpret_cast<float4 const*>(As + k * stride);
        float4 const a1 = *reinterpret_cast<float4 const*>(As + k * stride + 4);
        float4 const b0 = *reinterpret_cast<float4 const*>(Bs + k * stride);
        float4 const b1 = *reinterpret_cast<float4 const*>(Bs + k * stride + 4);
        float const x[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};  // rows 8 i + g: i = 2 mt + (e >> 1)
        float const y[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};  // columns: 2 nt + (e & 1)
#pragma unroll
        for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
          for (int nt = 0; nt < 4; ++nt) {
#pragma unroll
            for (int e = 0; e < 4; ++e) { acc[mt][nt][e] = fmaf(x[2 * mt + (e >> 1)], y[2 * nt + (e & 1)], acc[mt][nt][e]); }
          }
        }
      }
      if (c + 1 < chunks) {  // the other stage was last read before the previous barrier
        store<true>(va, stage(0, st ^ 1));
        store<false>(vb, stage(1, st ^ 1));
      }
      __syncthreads();
    }
  }
};

#endif  // __CUDACC__

}  // namespace twobody::detail
