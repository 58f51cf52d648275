#pragma once

/// The engine's traversal of high-dimensional rows on the tensor cores (input::mma_tile):
/// units are the 128 x 128 tile pairs of a tile_schedule; a block computes a tile pair's inner
/// products with mma.sync, turns each into the metric's approximate value v with a proven error
/// margin m (row_margin below), and hands the visitor every pair whose answer `v` decides for
/// certain (row_rules.cuh). The others are recomputed exactly, one warp per pair, in the order
/// that defines the metric's value (row_exact.cuh), and handed over one by one.
///
/// The margin. For |a - b|^2 = |a|^2 + |b|^2 - 2 a.b with the squared norms computed exactly
/// and rounded to float, and the tensor cores' a.b:
///  - inputs: half and bfloat16 products are exact in FP32; float is rounded to TF32 (to
///    nearest, relative error 2^-11), so each product is within 2^-10 + 2^-22 of exact;
///  - accumulation: the tensor cores add a block of k products and the accumulator with the
///    addends aligned to the largest and truncated to FP32's precision (Fasi, Higham,
///    Mikaitis and Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ CS 2021): each
///    block errs by at most (k + 2) 2^-23 (|c| + sum |p|). Over d / k blocks (k >= 4) that is
///    below 1.5 d 2^-23 S_d + 6 2^-23 S_d, S_d the sum of |a_k b_k| over those d coordinates; we
///    take (d + 16) 2^-22 S_d. The products accumulate from zero over groups of G coordinates
///    (G = 64 for half and bfloat16, 32 for TF32: input::mma_tile::group_chunks), so d = G, and
///    the n_g = ceil(D_pad / G) group sums are added in FP32 (round to nearest): at most
///    (n_g - 1) 2^-24 sum |group sum| more (Higham, recursive summation). With
///    S = sum_k |a_k b_k| <= |a| |b| <= (|a|^2 + |b|^2) / 2 that is below
///    (min(G, D_pad) + 16 + n_g / 4) 2^-22 S: at D = 4096 about 1/50 of a single accumulation
///    over all of D, whose bound grows with D_pad;
///  - so |dot~ - a.b| <= rho S with rho = (min(G, D_pad) + 16 + n_g / 4) 2^-22 (+ 2^-10 + 2^-22
///    for TF32), and
///    the squared distance errs by at most rho (|a|^2 + |b|^2), plus float roundings of the
///    norms, the sums and the exact value's own rounding (2^-20 (|a|^2 + |b|^2) + 2^-22 |v|),
///    plus D_pad 2^-100 for products the tensor cores may flush to zero (subnormal inputs);
///  - euclidean: |sqrt(x) - sqrt(y)| <= min(sqrt(|x - y|), |x - y| / sqrt(x)), plus 2^-22 v;
///  - dot_product: rho |a| |b| + 2^-22 |v| + D_pad 2^-100;
///  - cosines: rho + 2^-20 (vectors with |a| |b| < 2^-60 are always recomputed);
/// and the whole margin is multiplied by 1.25. NaN and infinite values are never certain. The
/// squared distance's margin bounds 2^-22 |v| by 3 2^-22 (|a|^2 + |b|^2) (row_margin).

#include <twobody/util/config.cuh>
#include <twobody/engine/engine.cuh>
#include <twobody/math/neighbor_keys.cuh>
#include <twobody/math/row_exact.cuh>
#include <twobody/math/row_rules.cuh>
#include <twobody/math/tile_schedule.cuh>
#include <twobody/engine/visitors.cuh>
#include <twobody/input/mma_tile.cuh>
#include <twobody/rows.cuh>

#include <cuda/std/type_traits>

#include <cstdint>

namespace twobody::detail {

/// Per-point terms of a staged row set, computed once per point (prepare_rows_kernel).
struct row_term {
  float sq;       ///< |a|^2, the exact value rounded to float
  float len;      ///< |a|
  float inv_len;  ///< 1 / |a| (cosines)
  float weight;   ///< w (1 for unweighted sets)
};

/// One row set on the device as the traversal reads it: rows padded with zeros to `dims_padded`
/// (a multiple of the chunk), the per-point terms, and the exact squared norms.
template <class T>
struct staged_row_view {
  T const* data             = nullptr;
  row_term const* terms     = nullptr;
  double const* exact_norms = nullptr;
  size_type size            = 0;
  void const* tensor_map    = nullptr;  ///< the rows' CUtensorMap in device memory (row_tensor_map.cuh), or null
};

/// Elements of T per staged chunk of a row.
template <class T>
inline constexpr int mma_chunk_elements = input::mma_tile::chunk_bytes / int(sizeof(T));

/// rho of the margin (see the file comment), for rows padded to dims_padded and products
/// accumulated in groups (mma_tile_products::products<true>).
template <class T>
inline float mma_relative_error(int dims_padded)
{
  int const group_dims = input::mma_tile::group_chunks * mma_chunk_elements<T>;
  int const groups     = (dims_padded + group_dims - 1) / group_dims;
  double rho = (static_cast<double>(dims_padded < group_dims ? dims_padded : group_dims) + 16.0 + groups / 4.0) * 0x1p-22;
  if constexpr (cuda::std::is_same_v<T, float>) { rho += 0x1p-10 + 0x1p-22; }
  return static_cast<float>(rho);
}

#ifdef __CUDACC__

/// One warp per point: its exact squared norm (row_exact.cuh's order) and the float terms.
template <class T>
__global__ void prepare_rows_kernel(T const* data, size_type n, int dims_padded, float const* weights, row_term* terms,
                                    double* exact_norms)
{
  size_type const i = (static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (i >= n) { return; }
  T const* p     = data + i * dims_padded;
  double const s = exact_sum_warp(p, p, dims_padded, true);
  bool outside_float = false;  // double rows: an element the FP32 products' margin does not cover (simt_row_products.cuh)
  if constexpr (cuda::std::is_same_v<T, double>) {
    bool mine = false;
    for (int k = static_cast<int>(threadIdx.x & 31u); k < dims_padded; k += 32) {
      double const x = fabs(p[k]);
      mine           = mine || (x != 0.0 && !(x >= 0x1p-50 && x < 0x1p50));  // NaN too
    }
    outside_float = __any_sync(0xffffffffu, mine);
  }
  if ((threadIdx.x & 31u) == 0) {
    double const len = sqrt(s);
    float const w    = weights != nullptr ? weights[i] : 1.0f;
    float const nan  = __int_as_float(0x7fc00000);
    // NaN terms make every approximate value of the row NaN: never certain, each pair recomputed.
    terms[i]       = outside_float ? row_term{nan, nan, nan, w}
                                   : row_term{static_cast<float>(s), static_cast<float>(len), static_cast<float>(1.0 / len), w};
    exact_norms[i] = s;
  }
}

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

/// The per-point factor of a metric's approximate value: |a|^2 (squared, euclidean),
/// |a| (dot product), 1 / |a| (cosines).
template <row_metric_kind M>
__device__ __forceinline__ float row_factor(row_term const& t)
{
  if constexpr (M == row_metric_kind::squared_euclidean || M == row_metric_kind::euclidean) {
    return t.sq;
  } else if constexpr (M == row_metric_kind::dot_product) {
    return t.len;
  } else {
    return t.inv_len;
  }
}

/// The approximate value of metric M from the tensor cores' dot product and the two points'
/// factors, and its error margin (file comment).
template <row_metric_kind M>
__device__ __forceinline__ void row_margin(float dot, float fa, float fb, float rho, float abs_term, float& v, float& m)
{
  constexpr float rel = 0x1p-22f;
  if constexpr (M == row_metric_kind::squared_euclidean) {
    // One fma per pair: |s| <= (2 + rho) (|a|^2 + |b|^2) (Cauchy-Schwarz and the bound on dot),
    // so 2^-22 |s| <= 3 2^-22 (|a|^2 + |b|^2), and the factor 1.25 goes into the two constants
    // (rounded up), which the compiler computes once per kernel. Looser than the term in |s| by
    // about 1% of the margin at D = 128 (rho is about 144 2^-22 there).
    float const norms = fa + fb;
    v                 = fmaf(-2.0f, dot, norms);
    m                 = fmaf(__fmul_ru(1.25f, __fadd_ru(rho, 0x1p-20f + 3.0f * rel)), norms, __fmul_ru(1.25f, abs_term));
    return;
  }
  if constexpr (M == row_metric_kind::euclidean) {
    float const norms = fa + fb;
    float const s     = fmaf(-2.0f, dot, norms);
    float const ms    = fmaf(rho + 0x1p-20f, norms, fmaf(rel, fabsf(s), abs_term));
    v                 = sqrtf(fmaxf(s, 0.0f));
    m                 = fminf(sqrtf(ms), ms / v) + rel * v;  // v == 0: ms / v is inf, sqrt(ms) stands
  } else if constexpr (M == row_metric_kind::dot_product) {
    v = dot;
    m = fmaf(rho, fa * fb, fmaf(rel, fabsf(dot), abs_term));
  } else {
    float const inv = fa * fb;
    float const c   = dot * inv;
    v               = M == row_metric_kind::cosine_similarity ? c : 1.0f - c;
    m               = inv < 0x1p60f ? rho + 0x1p-20f : __int_as_float(0x7f800000);  // tiny vectors: always exact
  }
  m *= 1.25f;
}

/// The tile pair a traversal takes after the current one, where it knows it: the products of
/// the current one may load the next one's first chunk while their own are exchanged and
/// visited (mma_tile_products, wgmma loaded by the tensor memory accelerator).
struct next_tile_pair {
  size_type row_start = 0, col_start = 0;
  bool known = false;
};

/// A traversal's units as tile pairs of a tile_schedule, each located once, and the one after
/// the current where the source tells it (has_peek): the tile pair products() may load ahead.
template <class Source>
struct located_tile_pairs {
  Source& units;
  tile_schedule const& sched;
  size_type tile;
  unsigned long long peeked = ~0ull;  ///< the unit after() located (no unit is ~0)
  size_type peeked_row = 0, peeked_col = 0;

  /// The next unit and its tile pair's row and column tiles, as Source::next.
  __device__ bool next(unsigned long long& unit, size_type& row, size_type& col)
  {
    if (!units.next(unit)) { return false; }
    if (unit == peeked) {
      row = peeked_row;
      col = peeked_col;
    } else {
      sched.locate(static_cast<size_type>(unit), row, col);  // once per tile pair of D-long products
    }
    return true;
  }

  /// The tile pair of the unit after the current one, if the source tells it.
  __device__ next_tile_pair after()
  {
    next_tile_pair n;
    if constexpr (has_peek<Source>::value) {
      if (units.peek(peeked)) {
        sched.locate(static_cast<size_type>(peeked), peeked_row, peeked_col);
        n = next_tile_pair{peeked_row * tile, peeked_col * tile, true};
      }
    }
    return n;
  }
};

/// What the products cores of rows share (mma_tile_products here, simt_row_products in
/// simt_row_products.cuh): the two staged sets, the element layout of a block's 128 x 128
/// products (8 warps of 64 x 32, each lane holding the m16n8 fragments of 4 x 4 blocks), the
/// points' metric factors in that layout, the pending-pair loop and the exact evaluation.
template <class T>
struct row_tile_pair {
  staged_row_view<T> const& a;
  staged_row_view<T> const& b;
  int dims_padded;

  __device__ row_tile_pair(staged_row_view<T> const& a_, staged_row_view<T> const& b_, int dims)
    : a(a_), b(b_), dims_padded(dims)
  {
  }

  /// The tile rows and columns of accumulator element acc[mt][nt][e] of lane (g, t) of warp
  /// (wm, wn): the m16n8 fragment layout, c0/c1 on row g, c2/c3 on row g + 8, columns 2t, 2t + 1.
  __device__ static int element_row(int wm, int mt, int e, int g) { return wm * 64 + mt * 16 + g + (e >> 1) * 8; }
  __device__ static int element_col(int wn, int nt, int e, int t) { return wn * 32 + nt * 8 + 2 * t + (e & 1); }

  /// A lane's products (or partial sums) in that layout set to zero.
  __device__ static void zero(float (&x)[4][4][4])
  {
#pragma unroll
    for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
      for (int nt = 0; nt < 4; ++nt) {
#pragma unroll
        for (int e = 0; e < 4; ++e) { x[mt][nt][e] = 0.0f; }
      }
    }
  }

  /// The metric's factors (row_factor) of the lane's rows of the tile from row_start: fa[k][h]
  /// for element e = 2h of row block k (a row past the set repeats its last point).
  template <row_metric_kind M>
  __device__ void row_factors(size_type row_start, float (&fa)[4][2]) const
  {
    int const lane = static_cast<int>(threadIdx.x & 31u), wm = static_cast<int>(threadIdx.x >> 5) & 1;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        size_type const i = row_start + element_row(wm, k, 2 * h, lane >> 2);
        fa[k][h]          = row_factor<M>(a.terms[i < a.size ? i : a.size - 1]);
      }
    }
  }

  /// The same for the lane's columns of the tile from col_start: fb[k][h] for element e = h of
  /// column block k.
  template <row_metric_kind M>
  __device__ void col_factors(size_type col_start, float (&fb)[4][2]) const
  {
    int const lane = static_cast<int>(threadIdx.x & 31u), wn = static_cast<int>(threadIdx.x >> 5) >> 1;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        size_type const j = col_start + element_col(wn, k, h, lane & 3);
        fb[k][h]          = row_factor<M>(b.terms[j < b.size ? j : b.size - 1]);
      }
    }
  }

  /// The tile row and column of bit mt * 16 + nt * 4 + e of a `pending` mask of lane `lane` of
  /// warp (wm, wn): accumulator element acc[mt][nt][e].
  __device__ static void pending_element(int bit, int wm, int wn, int lane, int& row, int& col)
  {
    int const mt = bit >> 4, nt = (bit >> 2) & 3, e = bit & 3;
    row = element_row(wm, mt, e, lane >> 2);
    col = element_col(wn, nt, e, lane & 3);
  }

  /// Every pair marked in the lanes' `pending` masks (bit mt * 16 + nt * 4 + e of lane L's
  /// accumulator element), one at a time by the whole warp: fn(row, col) with the pair's tile
  /// row and column. Empties the masks.
  template <class Fn>
  __device__ static void for_each_pending(unsigned long long& pending, Fn&& fn)
  {
    int const lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
    int const wm = warp & 1, wn = warp >> 1;
    for (;;) {
      unsigned const who = __ballot_sync(0xffffffffu, pending != 0);
      if (who == 0) { break; }
      int const leader             = __ffs(static_cast<int>(who)) - 1;
      unsigned long long const pm = __shfl_sync(0xffffffffu, pending, leader);
      int const bit                = __ffsll(static_cast<long long>(pm)) - 1;
      if (lane == leader) { pending &= pending - 1; }
      int row = 0, col = 0;
      pending_element(bit, wm, wn, leader, row, col);
      fn(row, col);
    }
  }

  /// The exact values of metric M for pairs q < count of (i[q], j[q]), by the whole warp (every
  /// lane gets them; the pairs' memory round trips overlap: exact_sums_warp).
  template <int B>
  __device__ void exact_values(row_metric_kind m, size_type const (&i)[B], size_type const (&j)[B], int count, float (&v)[B]) const
  {
    T const* ra[B];
    T const* rb[B];
#pragma unroll
    for (int q = 0; q < B; ++q) {
      ra[q] = a.data + (q < count ? i[q] : i[0]) * dims_padded;
      rb[q] = b.data + (q < count ? j[q] : j[0]) * dims_padded;
    }
    double s[B];
    exact_sums_warp<B>(ra, rb, count, dims_padded, sums_products(m), s);
    bool const cos_ = m == row_metric_kind::cosine_similarity || m == row_metric_kind::cosine_distance;
#pragma unroll
    for (int q = 0; q < B; ++q) {
      if (q < count) { v[q] = metric_from_sum(m, s[q], cos_ ? a.exact_norms[i[q]] : 0.0, cos_ ? b.exact_norms[j[q]] : 0.0); }
    }
  }

  /// The exact value of metric M for (i, j), by the whole warp (every lane gets it).
  __device__ float exact_value(row_metric_kind m, size_type i, size_type j) const
  {
    size_type const is[1] = {i}, js[1] = {j};
    float v[1];
    exact_values<1>(m, is, js, 1, v);
    return v[0];
  }
};

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
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(stage_barrier(s)) : "memory");
        stage_releases()[s] = 0;
      }
      asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
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
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(src));
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
    asm volatile("cp.async.commit_group;\n" ::);
#endif
  }

  /// Four 8 x 4-word matrices from shared memory, lane l giving the address of row l % 8 of
  /// matrix l / 8; lane (g, t) gets word t of row g of each (the m16n8 fragment layout, for
  /// 16-bit pairs and TF32 words alike).
  __device__ static void ldmatrix_x4(std::uint32_t const* row, std::uint32_t (&r)[4])
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

  /// The warp's A fragments (4 row blocks of 16) and B fragments (4 column blocks of 8) of
  /// k-step ks from the lane's ldmatrix rows a and b of a stage, as mma operands.
  __device__ static void fragments(std::uint32_t const* a, std::uint32_t const* b, int ks, std::uint32_t (&af)[4][4],
                                   std::uint32_t (&bf)[4][2])
  {
#pragma unroll
    for (int mt = 0; mt < 4; ++mt) {
      ldmatrix_x4(a + mt * 16 * stride + ks * 8, af[mt]);
#pragma unroll
      for (int k = 0; k < 4; ++k) { af[mt][k] = mma_step<T>::operand(af[mt][k]); }
    }
#pragma unroll
    for (int np = 0; np < 2; ++np) {
      std::uint32_t r[4];
      ldmatrix_x4(b + np * 16 * stride + ks * 8, r);
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
      wait_stage(stage_barrier(s), (tma_phases >> s) & 1u);
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
      asm volatile("cp.async.wait_group %0;\n" ::"n"(stages - 2));
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
      wgmma_pin(from);
#pragma unroll
      for (int i = 0; i < 32; ++i) { to[i] += from[i]; }
    };
    // The operands' descriptors: the stages' first descriptor plus offsets in 16-byte units
    // (the address field, 14 bits, holds every shared-memory address without a carry out). The
    // warpgroup comes from lane 0, so that the compiler keeps the descriptors warp-uniform, in
    // uniform registers: computed per thread, they were moved into uniform registers before
    // every wgmma (the cp.async mainloop took 376 SASS instructions a chunk so, 310 without).
    int const warpgroup            = __shfl_sync(0xffffffffu, warp >> 2, 0);
    std::uint64_t const first_desc = wgmma_descriptor(base);
    auto a_desc = [&](int s) { return first_desc + static_cast<unsigned>((2 * s * TS + warpgroup * 64) * policy::chunk_bytes / 16); };
    auto b_desc = [&](int s) { return first_desc + static_cast<unsigned>((2 * s + 1) * TS * policy::chunk_bytes / 16); };
    // The 4 k-steps of stage s for the warpgroup's 64 rows against one half's 64 columns, as one group.
    auto half = [&](float(&d)[32], std::uint64_t a_rows, std::uint64_t b_half, bool fresh) {
      wgmma_fence(d);
#pragma unroll
      for (int ks = 0; ks < words / 8; ++ks) {  // 32 bytes of each row per k-step
        wgmma_m64n64k16(d, a_rows + 2u * ks, b_half + 2u * ks, !(fresh && ks == 0));
      }
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
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
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(full), "r"(bytes) : "memory");
        tma_load(base + static_cast<unsigned>(2 * s * wgmma_side_bytes), a.tensor_map, c * KC, static_cast<int>(rows), full);
        tma_load(base + static_cast<unsigned>((2 * s + 1) * wgmma_side_bytes), b.tensor_map, c * KC, static_cast<int>(cols), full);
      };
      // Every accumulator is defined before the first products are issued: one set while an
      // earlier group runs makes ptxas wait or serialize the products (C7517, C7514).
#pragma unroll
      for (int i = 0; i < 32; ++i) { first[i] = second[i] = 0.0f; }
      wgmma_pin(total);
      wgmma_pin(first);
      wgmma_pin(second);
      // Every thread's ordinary accesses to the stages (the last exchange, the scratch) come
      // before the copy engine's writes there; the barrier also shows the mbarriers' init.
      asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
      __syncthreads();
      bool const loaded_ahead = ahead.known;
      if (loaded_ahead && (ahead.row_start != row_start || ahead.col_start != col_start)) { __trap(); }  // a traversal's bug
      if (threadIdx.x == 0) {
        for (int c = loaded_ahead ? 1 : 0; c < wgmma_stages && c < chunks; ++c) { load(row_start, col_start, c, tma_stage_of(c)); }
      }
      ahead = next;
      auto wait_loaded = [&](int s) {
        wait_stage(barriers + 8u * s, (tma_phases >> s) & 1u);
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
          unsigned before = 0;
          asm volatile("atom.acq_rel.cta.shared::cta.add.u32 %0, [%1], 1;\n" : "=r"(before) : "r"(releases + 4u * s) : "memory");
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
            asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");  // chunk c - 1's second half is done
            if constexpr (Grouped) { add(total_second, second); }
            release(c - 1, tma_stage_of(k - 1));
          }
          half(sum_second, a_desc(s), b_desc(s) + half_desc, fresh);
          if constexpr (Grouped) {  // ungrouped, nothing is added: both halves stay in flight
            asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");  // chunk c's first half is done
            add(total_first, first);
          }
        }
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
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
        asm volatile("cp.async.commit_group;\n" ::);
      };
#pragma unroll
      for (int c = 0; c < wgmma_stages - 1; ++c) { load(c); }
      for (int c = 0; c < chunks; ++c) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(wgmma_stages - 2));
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // cp.async wrote it; wgmma reads it
        __syncthreads();  // chunk c is in; every warpgroup's products of chunk c - 1 completed
        load(c + wgmma_stages - 1);
        int const s      = c % wgmma_stages;
        bool const fresh = Grouped || c == 0;
        // A chunk's products all complete before the next chunk's barrier, so the stage refilled
        // at chunk c (chunk c - 1's) is free.
        half(sum_first, a_desc(s), b_desc(s), fresh);
        half(sum_second, a_desc(s), b_desc(s) + half_desc, fresh);
        asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");  // the first half is done
        if constexpr (Grouped) { add(total_first, first); }
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");  // nothing in flight across iterations
        if constexpr (Grouped) { add(total_second, second); }
      }
    }
    if constexpr (!Grouped) {
      wgmma_pin(total_first);
      wgmma_pin(total_second);
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

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  /// Box (x, y) of the tensor map at `map` (device memory) into shared memory at `dst`,
  /// completing on the mbarrier at `bar`.
  __device__ static void tma_load(unsigned dst, void const* map, int x, int y, unsigned bar)
  {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
                 "l"(map), "r"(x), "r"(y), "r"(bar)
                 : "memory");
  }

  /// Waits until the phase of the mbarrier at `bar` with this parity has completed.
  __device__ static void wait_stage(unsigned bar, unsigned parity)
  {
    asm volatile("{\n.reg .pred done;\nTWOBODY_WAIT_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra TWOBODY_WAIT_%=;\n}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
  }

  /// A shared-memory matrix descriptor of wgmma for K-major rows of 128 bytes in the 128-byte
  /// swizzle: the start address, the stride between groups of 8 rows (1024 bytes), swizzle mode 1.
  __device__ static std::uint64_t wgmma_descriptor(unsigned at)
  {
    return static_cast<std::uint64_t>((at & 0x3ffffu) >> 4) | (std::uint64_t{1} << 16) | (std::uint64_t{1024 >> 4} << 32) |
           (std::uint64_t{1} << 62);
  }

  /// wgmma_pin keeps the compiler from moving reads or writes of the accumulators across the
  /// asynchronous products; wgmma_fence adds wgmma.fence, which orders the registers' earlier
  /// accesses before the next products.
  template <int N>
  __device__ static void wgmma_pin(float (&d)[N])
  {
#pragma unroll
    for (int i = 0; i < N; ++i) { asm volatile("" : "+f"(d[i])::"memory"); }
  }
  template <int N>
  __device__ static void wgmma_fence(float (&d)[N])
  {
    wgmma_pin(d);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  }

  /// d = a b^T (+ d where accumulate) for the warpgroup's 64 x 64 block, K = 16.
  __device__ static void wgmma_m64n64k16(float (&d)[32], std::uint64_t da, std::uint64_t db, bool accumulate)
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
};

template <class T>
struct simt_row_products;  // simt_row_products.cuh

/// The products core the row traversals take by default (input::automatic): the tensor cores,
/// and for double rows FP32 on the CUDA cores (simt_row_products.cuh). FP64 on the tensor cores
/// would be no faster on an H100 (67 TFLOPS, as FP32 fma) and would only narrow the margin, so
/// recompute fewer pairs; TF32 on the tensor cores would widen it to 2^-10.
template <class T>
using row_core_t = cuda::std::conditional_t<cuda::std::is_same_v<T, double>, simt_row_products<T>, mma_tile_products<T>>;

/// The pending pairs of lanes 0 .. lane of the warp, given each lane's own count `mine`
/// (an inclusive sum over the lanes).
__device__ __forceinline__ int pending_through_lane(int mine, int lane)
{
  int below = mine;
#pragma unroll
  for (int o = 1; o < 32; o *= 2) {
    int const y = __shfl_up_sync(0xffffffffu, below, o);
    if (lane >= o) { below += y; }
  }
  return below;
}

/// The pairs marked in the warps' `pending` masks (bit mt * 16 + nt * 4 + e of the core's
/// layout), handed B at a time to fn(count, rows, cols) (count <= B pairs, rows and cols in the
/// tile pair) by a whole warp: each warp lists its pairs in the core's scratch, and each warp
/// takes an even share of the block's list, B entries at a time, so that a tile pair waits on
/// about total / (8 B) batches of recomputations rather than on the warp with the most (each
/// batch waits on reads of rows from memory). A warp with more pairs than its share of the scratch
/// keeps them and takes them itself, one at a time. Block-wide (one barrier); empties the
/// masks. The scratch must be free: nothing reads it after the previous barrier.
template <int B, class Core, class Fn>
__device__ void for_each_pending_batch_of_block(Core const& tiles, unsigned long long& pending, Fn&& fn)
{
  constexpr int warps = Core::block_threads / 32;
  constexpr int cap   = (Core::scratch_words - warps) / warps;  ///< list entries per warp
  int const lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
  std::uint32_t* const list   = tiles.scratch();
  std::uint32_t* const counts = list + warps * cap;
  int const mine  = __popcll(static_cast<long long>(pending));
  int const below = pending_through_lane(mine, lane);
  int const listed = __shfl_sync(0xffffffffu, below, 31);
  bool const fits  = listed <= cap;
  if (fits) {
    int at = warp * cap + below - mine;
    for (unsigned long long bits = pending; bits != 0; bits &= bits - 1) {
      int row = 0, col = 0;
      Core::pending_element(__ffsll(static_cast<long long>(bits)) - 1, warp & 1, warp >> 1, lane, row, col);
      list[at++] = static_cast<std::uint32_t>(row * Core::TS + col);
    }
    pending = 0;
  }
  if (lane == 0) { counts[warp] = fits ? static_cast<std::uint32_t>(listed) : 0u; }
  __syncthreads();
  int total = 0;
#pragma unroll
  for (int w = 0; w < warps; ++w) { total += static_cast<int>(counts[w]); }
  // Warp `warp` takes its even share of the list, B entries at a time: each warp then waits on
  // about total / 8 recomputations. (Strided batches of B consecutive entries left a few warps
  // with the most: knn at k = 10 slower; entries warp + 8 (B b + q) measured 3-4% slower for knn
  // than these shares.)
  int const share_end = total * (warp + 1) / warps;
  for (int k = total * warp / warps; k < share_end; k += B) {
    int const count = share_end - k < B ? share_end - k : B;
    int w = 0, i = k;  // entry k: the i-th of warp w's list
    while (i >= static_cast<int>(counts[w])) { i -= static_cast<int>(counts[w++]); }
    int rows[B], cols[B];
#pragma unroll
    for (int q = 0; q < B; ++q) {
      rows[q] = cols[q] = 0;
      if (q < count) {
        std::uint32_t const rc = list[w * cap + i];
        rows[q]                = static_cast<int>(rc / Core::TS);
        cols[q]                = static_cast<int>(rc % Core::TS);
        for (++i; q + 1 < count && i >= static_cast<int>(counts[w]); i = 0) { ++w; }  // the next listed entry
      }
    }
    fn(count, rows, cols);
  }
  Core::for_each_pending(pending, [&](int row, int col) {
    int rows[B] = {row}, cols[B] = {col};
    fn(1, rows, cols);
  });
}

/// The exact values of metric `m` of a batch of `count` <= B pairs (i[q], j[q]) in the sets, by
/// the whole warp: fn(q, v) for each pair q < count. Counts the pairs in `*refined` where it is
/// set (benchmarks).
template <int B, class Core, class Fn>
__device__ __forceinline__ void for_each_exact_in_batch(Core const& tiles, row_metric_kind m, size_type const (&i)[B],
                                                        size_type const (&j)[B], int count, unsigned long long* refined, Fn&& fn)
{
  float v[B];
  tiles.exact_values(m, i, j, count, v);
  if ((threadIdx.x & 31u) == 0 && refined != nullptr) { atomicAdd(refined, static_cast<unsigned long long>(count)); }
#pragma unroll
  for (int q = 0; q < B; ++q) {
    if (q < count) { fn(q, v[q]); }
  }
}

/// for_each_pending_batch_of_block with the pairs' exact values of metric `m`: fn(r, c, i, j, v)
/// for each pair, by the whole warp (r, c in the tile pair, i, j in the sets, v the exact value).
/// Counts the pairs in `*refined` where it is set (benchmarks).
template <int B, class Core, class Fn>
__device__ void for_each_pending_exact_of_block(Core const& tiles, unsigned long long& pending, row_metric_kind m,
                                                size_type row_start, size_type col_start, unsigned long long* refined, Fn&& fn)
{
  for_each_pending_batch_of_block<B>(tiles, pending, [&](int count, int const (&r)[B], int const (&c)[B]) {
    size_type i[B], j[B];
#pragma unroll
    for (int q = 0; q < B; ++q) {
      i[q] = row_start + r[q];
      j[q] = col_start + c[q];
    }
    for_each_exact_in_batch<B>(tiles, m, i, j, count, refined, [&](int q, float v) { fn(r[q], c[q], i[q], j[q], v); });
  });
}

/// Traversal of the tile pairs of two staged row sets: the products from Core (the tensor
/// cores' mma_tile_products, or simt_row_products on the CUDA cores), each turned into a value
/// and its margin, certain pairs to the visitor, the others recomputed exactly.
template <class T, row_metric_kind M, class Rule, bool Weighted, class Core = row_core_t<T>>
struct mma_traversal {
  using core                             = Core;
  using policy                           = typename core::policy;
  static constexpr int block_threads     = policy::block_threads;
  static constexpr int min_blocks_per_sm = policy::min_blocks_per_sm;
  static constexpr int TS                = policy::tile;

  struct params {
    pair_mode mode;
    staged_row_view<T> a, b;  ///< b == a in self and ordered mode
    int dims_padded;
    tile_schedule sched;
    float rho;
    float abs_term;
    Rule rule;
    unsigned long long* refined = nullptr;  ///< if set, counts the pairs recomputed exactly (benchmarks)
  };
  using temp_storage = typename core::temp_storage;

  /// The queue of held-back recomputations (visitors that take pairs in any order): a tile pair's
  /// uncertain pairs are listed there, and the block recomputes them only when the queue holds
  /// `queue_flush_at` or more (or at the end), `queue_batch` pairs per warp at a time. Recomputed
  /// after each tile pair instead, a long row's few uncertain pairs held the whole block: at
  /// D = 4096 one recomputation per warp, a chain of dependent FP64 sums, while the other warps
  /// and the tensor cores waited at the next barrier (count 52 against 39 ms without uncertain
  /// pairs under ncu, H200).
  /// 32-bit indices: 512 pairs in 4 KB. Against 256 pairs of 64-bit indices recomputed at 128:
  /// counts 1.09x at D = 4096, 0.99x at D = 960, histograms 1.00-1.03x (H200). Sets of 2^32 rows
  /// or more recompute after each tile pair (queue_fits).
  struct queued_pair {
    std::uint32_t i, j;
  };
  static constexpr int queue_capacity = 512;
  static constexpr int queue_flush_at = 256;
  static constexpr int queue_batch    = 4;
  static constexpr int warps          = block_threads / 32;
  static constexpr std::size_t queue_bytes = (sizeof(std::uint32_t) * warps + sizeof(queued_pair) * queue_capacity + 127) / 128 * 128;
  /// The stages (engine.cuh), then the queue: the warps' counts, then the pairs.
  static constexpr std::size_t dynamic_bytes = core::dynamic_bytes + queue_bytes;
  static_assert(core::dynamic_bytes % 16 == 0 && sizeof(std::uint32_t) * warps % alignof(queued_pair) == 0);

  params const& p;
  core tiles;
  std::uint32_t* queue_counts;  ///< per warp, the uncertain pairs it lists
  queued_pair* queue;
  int queued = 0;  ///< pairs in the queue (the same in every thread)

  __device__ mma_traversal(params const& p_, temp_storage&, unsigned char* stages)
    : p(p_), tiles(p_.a, p_.b, p_.dims_padded, stages),
      queue_counts(reinterpret_cast<std::uint32_t*>(stages + core::dynamic_bytes)),
      queue(reinterpret_cast<queued_pair*>(stages + core::dynamic_bytes + sizeof(std::uint32_t) * warps)) {}

  __device__ static int element_row(int wm, int mt, int e, int g) { return core::element_row(wm, mt, e, g); }
  __device__ static int element_col(int wn, int nt, int e, int t) { return core::element_col(wn, nt, e, t); }

  /// Whether (i, j) is one of the set's pairs (and not padding of a partial tile).
  __device__ __forceinline__ bool is_pair(size_type i, size_type j) const
  {
    bool const inside = i < p.a.size && j < p.b.size;
    switch (p.mode) {
      case pair_mode::self: return inside && i < j;
      case pair_mode::ordered: return inside && i != j;
      default: return inside;
    }
  }

  /// Whether every element of tile pair (row, col) is one of the set's pairs.
  __device__ __forceinline__ bool whole_tile(size_type row, size_type col) const
  {
    bool const inside = (row + 1) * TS <= p.a.size && (col + 1) * TS <= p.b.size;
    switch (p.mode) {
      case pair_mode::self: return inside && row < col;
      case pair_mode::ordered: return inside && row != col;
      default: return inside;
    }
  }

  /// Pair (i, j) at its exact value `exact` (the metric's, from exact_values), visited by the warp.
  template <class Visitor>
  __device__ void visit_exact(Visitor& out, size_type i, size_type j, float exact)
  {
    float const v     = exact_answer_value(p.rule, exact);
    bool const leader = (threadIdx.x & 31u) == 0;
    if constexpr (has_warp_visits<Visitor>::value) {
      if constexpr (Weighted) {
        out.visit_by_warp(v, v, i, j, static_cast<double>(p.a.terms[i].weight) * static_cast<double>(p.b.terms[j].weight), leader);
      } else {
        out.visit_by_warp(v, v, i, j, unweighted{}, leader);
      }
    } else if (leader) {
      if constexpr (Weighted) {
        out.visit(0, v, v, i, j, static_cast<double>(p.a.terms[i].weight) * static_cast<double>(p.b.terms[j].weight), true);
      } else {
        out.visit(0, v, v, i, j, unweighted{}, true);
      }
    }
  }

  /// Pairs a warp recomputes at once (their round trips overlap): 4 for float rows (counts 12-13%
  /// faster at D = 32 and 128, TF32 leaves 0.2-0.3% of the pairs to recompute), 1 for 16-bit rows
  /// (4, with 16 slices of each pair's rows in flight, made their counts 7% slower at D <= 128 and
  /// 19% at D = 960, where pairs to recompute are few and the batch's registers cost the whole
  /// kernel; bench_highdim count/twobody/*/uniform/N:65536/D:*).
  static constexpr int recompute_batch = sizeof(T) == 4 ? 4 : 1;

  /// The pairs marked in the warps' `pending` masks, recomputed exactly and visited, shared out
  /// over the block's warps `recompute_batch` at a time (for_each_pending_batch_of_block).
  /// Empties the masks.
  template <class Visitor>
  __device__ void visit_pending(Visitor& out, unsigned long long& pending, size_type row_start, size_type col_start)
  {
    for_each_pending_exact_of_block<recompute_batch>(tiles, pending, exact_metric_v<Rule, M>, row_start, col_start, p.refined,
                                                     [&](int, int, size_type i, size_type j, float v) { visit_exact(out, i, j, v); });
  }

  /// Recomputes the queued pairs and visits them: each warp an even share, queue_batch pairs
  /// at a time (their chains of sums and round trips to memory overlap). Block-wide (two
  /// barriers); returns the pairs visited, block-uniform.
  template <class Visitor>
  __device__ int recompute_queue(Visitor& out)
  {
    int const warp = static_cast<int>(threadIdx.x >> 5);
    __syncthreads();  // every warp's pairs are listed
    int const n = queued, end = n * (warp + 1) / warps;
    for (int k = n * warp / warps; k < end; k += queue_batch) {
      int const count = end - k < queue_batch ? end - k : queue_batch;
      size_type i[queue_batch], j[queue_batch];
#pragma unroll
      for (int q = 0; q < queue_batch; ++q) {
        queued_pair const e = queue[q < count ? k + q : k];
        i[q]                = e.i;
        j[q]                = e.j;
      }
      for_each_exact_in_batch<queue_batch>(tiles, exact_metric_v<Rule, M>, i, j, count, p.refined,
                                           [&](int q, float v) { visit_exact(out, i[q], j[q], v); });
    }
    __syncthreads();  // the queue is read before it is listed into again
    queued = 0;
    return n;
  }

  /// The pairs marked in the warps' `pending` masks, listed in the queue (recompute_queue
  /// empties it when it holds too many to add them, and after adding when it holds
  /// queue_flush_at or more); a tile pair with more than the queue holds is recomputed at once
  /// (visit_pending). Block-wide; empties the masks; returns the queued pairs of earlier tile
  /// pairs visited, block-uniform.
  template <class Visitor>
  __device__ int queue_pending(Visitor& out, unsigned long long& pending, size_type row_start, size_type col_start)
  {
    int const lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
    int const mine  = __popcll(static_cast<long long>(pending));
    int const below = pending_through_lane(mine, lane);
    if (lane == 31) { queue_counts[warp] = static_cast<std::uint32_t>(below); }
    __syncthreads();
    int total = 0, before = 0;
#pragma unroll
    for (int w = 0; w < warps; ++w) {
      int const c = static_cast<int>(queue_counts[w]);
      total += c;
      before += w < warp ? c : 0;
    }
    int visited = 0;
    if (total == 0) { return visited; }
    if (queued + total > queue_capacity) { visited += recompute_queue(out); }  // (its first barrier: the counts are read)
    if (total > queue_capacity) {
      visit_pending(out, pending, row_start, col_start);
      return visited;
    }
    int at = queued + before + below - mine;
    for (unsigned long long bits = pending; bits != 0; bits &= bits - 1) {
      int row = 0, col = 0;
      core::pending_element(__ffsll(static_cast<long long>(bits)) - 1, warp & 1, warp >> 1, lane, row, col);
      queue[at++] = queued_pair{static_cast<std::uint32_t>(row_start + row), static_cast<std::uint32_t>(col_start + col)};
    }
    pending = 0;
    queued += total;
    if (queued >= queue_flush_at) { visited += recompute_queue(out); }
    return visited;
  }

  /// Whether the queue's 32-bit indices hold both sets' rows.
  __device__ bool queue_fits() const
  {
    constexpr size_type rows = size_type(1) << 32;
    return p.a.size <= rows && p.b.size <= rows;
  }

  template <class Source, class Visitor>
  __device__ void run(Source& units, Visitor& out)
  {
    int const lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
    int const g = lane >> 2, t = lane & 3, wm = warp & 1, wn = warp >> 1;
    constexpr bool hold_back = takes_visits_in_any_order<Visitor>::value;
    located_tile_pairs<Source> pairs{units, p.sched, TS};
    size_type row = 0, col = 0;
    for (unsigned long long unit = 0; pairs.next(unit, row, col);) {
      out.begin_unit();
      size_type const row_start = row * TS, col_start = col * TS;

      float acc[4][4][4];
      tiles.products(row_start, col_start, acc, pairs.after());

      // The points' factors (and weights) of the lane's rows (element e = 2h) and columns (e = h).
      float fa[4][2], fb[4][2], wa[4][2], wb[4][2];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          size_type i = row_start + element_row(wm, k, 2 * h, g);
          size_type j = col_start + element_col(wn, k, h, t);
          i           = i < p.a.size ? i : p.a.size - 1;
          j           = j < p.b.size ? j : p.b.size - 1;
          row_term const ta = p.a.terms[i], tb = p.b.terms[j];
          fa[k][h] = row_factor<M>(ta);
          fb[k][h] = row_factor<M>(tb);
          wa[k][h] = ta.weight;
          wb[k][h] = tb.weight;
        }
      }

      // Certain pairs to the visitor; the others marked (bit mt * 16 + nt * 4 + e) for exact
      // recomputation. A tile pair whose every element is a pair (inside both sets, off the
      // diagonal) skips the per-element test: two copies of the loop, one branch per tile pair.
      unsigned long long pending = 0;
      auto classify = [&](auto whole) {
#pragma unroll
        for (int mt = 0; mt < 4; ++mt) {
          out.template step<16>([&](int r, auto&& use) {
            int const nt = r >> 2, e = r & 3;
            size_type const i = row_start + element_row(wm, mt, e, g);
            size_type const j = col_start + element_col(wn, nt, e, t);
            float v, m;
            row_margin<M>(acc[mt][nt][e], fa[mt][e >> 1], fb[nt][e & 1], p.rho, p.abs_term, v, m);
            bool const pair    = decltype(whole)::value || is_pair(i, j);
            bool const certain = p.rule.certain(v, m);
            if (pair & !certain) { pending |= 1ull << (mt * 16 + r); }
            if constexpr (Weighted) {
              use(v, v, i, j, static_cast<double>(wa[mt][e >> 1]) * static_cast<double>(wb[nt][e & 1]), pair & certain);
            } else {
              use(v, v, i, j, unweighted{}, pair & certain);
            }
          });
        }
      };
      if (whole_tile(row, col)) {
        classify(cuda::std::true_type{});
      } else {
        classify(cuda::std::false_type{});
      }

      // The uncertain pairs: queued (the unit's bound then counts the queued pairs of earlier
      // units that it visits), or one at a time by a whole warp, shared out over the block's warps.
      unsigned long long bound = static_cast<unsigned long long>(TS) * TS;
      if (hold_back && queue_fits()) {
        bound += static_cast<unsigned long long>(queue_pending(out, pending, row_start, col_start));
      } else {
        visit_pending(out, pending, row_start, col_start);
      }

      if (!end_unit(out, units, unit, bound)) { break; }
    }
    tiles.finish();
    if constexpr (hold_back) {
      if (queued > 0) {  // the rest, as one more unit
        out.begin_unit();
        out.end_unit(static_cast<unsigned long long>(recompute_queue(out)));
      }
    }
  }
};

/// Tensor-core traversal for k nearest neighbours (output::nearest_lists): a unit is a tile of
/// 128 rows of A against one segment of B's column tiles. For each column tile the block takes
/// the products; every partner whose score (the value, negated where larger is nearer) minus
/// its margin can still reach its row's bound is offered: as the interval of its score to
/// nearest_candidates_visitor (k <= 48), which evaluates exactly only the candidates still in
/// the running, or recomputed exactly by a whole warp to nearest_lists_visitor. Either way the
/// lists end with the exact k nearest (ties by index) of all partners. Pairs are those of cross
/// mode (all of B) or ordered mode (all j != i).
template <class T, row_metric_kind M>
struct mma_nearest_traversal {
  using core                             = row_core_t<T>;
  using policy                           = input::mma_tile;
  static constexpr int block_threads     = policy::block_threads;
  static constexpr int min_blocks_per_sm = policy::min_blocks_per_sm;
  static constexpr int TS                = policy::tile;
  static constexpr bool larger_nearer    = larger_is_nearer_kind(M);
  /// Partners come to nearest_candidates_visitor as intervals of their scores (launch_nearest).
  static constexpr bool offers_intervals = true;
  /// Euclidean neighbours are filtered on squared distances (no square root or division per
  /// pair); the offers still carry the exact Euclidean values.
  static constexpr bool squared_filter         = M == row_metric_kind::euclidean;
  static constexpr row_metric_kind filter_metric = squared_filter ? row_metric_kind::squared_euclidean : M;

  /// A squared value above which no exact Euclidean value can reach `bound`: [lo, hi] holds
  /// float(S), so S >= pred(lo); lo > succ(round_up(succ(bound)^2)) gives S > succ(bound)^2,
  /// sqrt(S) > succ(bound), and float(sqrt(S)) > bound. +inf stays +inf; rows past the set
  /// (-inf) stay below everything.
  __device__ static float squared_reach(float bound)
  {
    if (!(bound >= 0.0f)) { return bound; }
    float const b = next_up(bound);
    return next_up(__fmul_ru(b, b));
  }

  /// [lo, hi] holding float(S) of a squared sum S taken to the Euclidean value float(sqrt(S)):
  /// S lies in [pred(lo), succ(hi)], so float(sqrt(S)) in [rd(sqrt(pred(lo))), ru(sqrt(succ(hi)))]
  /// (0 from below where lo <= 0; +inf stays +inf).
  __device__ static float euclidean_below(float lo) { return lo > 0.0f ? __fsqrt_rd(__uint_as_float(__float_as_uint(lo) - 1u)) : 0.0f; }
  __device__ static float euclidean_above(float hi) { return __fsqrt_ru(next_up(hi)); }

  /// succ(x) for x >= 0 (+inf stays +inf).
  __device__ static float next_up(float x)
  {
    return x < cuda::std::numeric_limits<float>::infinity() ? __uint_as_float(__float_as_uint(x) + 1u) : x;
  }

  /// Whether (i, j) is one of the partners: inside both sets, and not the point itself in ordered mode.
  __device__ bool is_partner(size_type i, size_type j) const
  {
    return i < p.a.size && j < p.b.size && (p.mode == pair_mode::cross || i != j);
  }

  struct params {
    pair_mode mode;
    staged_row_view<T> a, b;  ///< b == a in ordered mode
    int dims_padded;
    float rho;
    float abs_term;
    int segments;            ///< units per row tile
    size_type segment_tiles;  ///< column tiles per segment (the last may have fewer)
    int k;                    ///< neighbours per point
    unsigned long long* refined = nullptr;  ///< if set, counts the pairs recomputed exactly (benchmarks)
  };
  using temp_storage                     = typename core::temp_storage;
  static constexpr std::size_t dynamic_bytes = core::dynamic_bytes;  ///< the stages (engine.cuh)
  static constexpr int minima_per_row        = 16;  ///< threads holding a row's products: 4 warps x 4 lanes
  static constexpr int recompute_batch       = 4;   ///< partners a warp recomputes at once
  static_assert(TS * (minima_per_row + 1) <= core::scratch_words, "the first tile's bounds fit in the core's scratch");

  params const& p;
  core tiles;

  /// A unit's first column tile finds its lists empty (every partner would be recomputed and
  /// offered: a whole tile per row, most of all the recomputations). This caps the bounds from
  /// the tile itself: each of the 16 threads holding a row's products gives the least upper end
  /// (score + margin, rounded up) of its partners; at least k partners are then no worse than the
  /// k-th least of these 16, so no partner above it can be among the k nearest (for Euclidean
  /// rows filtered on squared values the cap is the Euclidean ru(sqrt(succ(E))), which every such
  /// partner's exact value stays within). Nothing changes for k > 16. Uses the core's scratch.
  __device__ void cap_bounds(size_type row_start, size_type col_start, float const (&acc)[4][4][4], float const (&fa)[4][2],
                             float const (&fb)[4][2], float (&bound)[4][2])
  {
    constexpr float inf = cuda::std::numeric_limits<float>::infinity();
    int const lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
    int const g = lane >> 2, t = lane & 3, wm = warp & 1, wn = warp >> 1;
    float* minima = reinterpret_cast<float*>(tiles.scratch());
    float* caps   = minima + TS * minima_per_row;
#pragma unroll
    for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float least = inf;
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
#pragma unroll
          for (int q = 0; q < 2; ++q) {
            int const e       = 2 * h + q;
            size_type const i = row_start + core::element_row(wm, mt, e, g);
            size_type const j = col_start + core::element_col(wn, nt, e, t);
            float v, m;
            row_margin<filter_metric>(acc[mt][nt][e], fa[mt][h], fb[nt][q], p.rho, p.abs_term, v, m);
            if (is_partner(i, j)) { least = fminf(least, __fadd_ru(larger_nearer ? -v : v, m)); }  // NaN ends are skipped
          }
        }
        minima[core::element_row(wm, mt, 2 * h, g) * minima_per_row + wn * 4 + t] = least;
      }
    }
    __syncthreads();
    if (threadIdx.x < TS) {
      float const* mine = minima + threadIdx.x * minima_per_row;
      float cap         = inf;
      for (int a = 0; a < minima_per_row; ++a) {  // the k-th least (ties by slot)
        float const x = mine[a];
        int below     = 0;
        for (int b = 0; b < minima_per_row; ++b) { below += (mine[b] < x || (mine[b] == x && b < a)) ? 1 : 0; }
        if (below == p.k - 1) { cap = x; }
      }
      if constexpr (squared_filter) { cap = euclidean_above(cap); }  // a bound on float(S): on float(sqrt(S)) then
      caps[threadIdx.x] = cap;
    }
    __syncthreads();
#pragma unroll
    for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) { bound[mt][h] = fminf(bound[mt][h], caps[core::element_row(wm, mt, 2 * h, g)]); }
    }
    __syncthreads();  // the caps are read before the scratch takes the pending list (for_each_pending_batch_of_block)
  }

  __device__ mma_nearest_traversal(params const& p_, temp_storage&, unsigned char* stages)
    : p(p_), tiles(p_.a, p_.b, p_.dims_padded, stages) {}

  template <class Source, class Visitor>
  __device__ void run(Source& units, Visitor& out)
  {
    int const lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
    int const g = lane >> 2, t = lane & 3, wm = warp & 1, wn = warp >> 1;
    size_type const col_tiles = (p.b.size + TS - 1) / TS;
    for (unsigned long long unit = 0; units.next(unit);) {
      size_type const row_start = static_cast<size_type>(unit / p.segments) * TS;
      int const segment         = static_cast<int>(unit % p.segments);
      out.begin_unit(row_start, segment);
      // Exact scores (smaller is nearer) of partners j of tile row r, by a whole warp.
      auto exact = [&](int r, auto const& j, int count, auto& v) {
        constexpr int B = cuda::std::extent_v<cuda::std::remove_reference_t<decltype(j)>>;
        size_type i[B];
#pragma unroll
        for (int q = 0; q < B; ++q) { i[q] = row_start + r; }
        for_each_exact_in_batch<B>(tiles, M, i, j, count, p.refined, [&](int q, float x) { v[q] = larger_nearer ? -x : x; });
      };

      float fa[4][2];
      tiles.template row_factors<M>(row_start, fa);

      size_type const first = segment * p.segment_tiles;
      size_type const last  = first + p.segment_tiles < col_tiles ? first + p.segment_tiles : col_tiles;
      for (size_type ct = first; ct < last; ++ct) {
        size_type const col_start = ct * TS;
        float acc[4][4][4];
        tiles.products(row_start, col_start, acc, next_of(units, row_start, ct + 1 < last ? ct + 1 : size_type(-1), col_tiles));

        float fb[4][2], bound[4][2];
        tiles.template col_factors<M>(col_start, fb);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
#pragma unroll
          for (int h = 0; h < 2; ++h) { bound[k][h] = out.bound(core::element_row(wm, k, 2 * h, g)); }
        }
        if (ct == first && p.k <= minima_per_row) { cap_bounds(row_start, col_start, acc, fa, fb, bound); }
        if constexpr (squared_filter) {
#pragma unroll
          for (int k = 0; k < 4; ++k) {
#pragma unroll
            for (int h = 0; h < 2; ++h) { bound[k][h] = squared_reach(bound[k][h]); }
          }
        }

        // Partners that may reach their row's bound (or whose approximation is not finite). A
        // tile pair whose every element is a partner (inside both sets, not the diagonal tile in
        // ordered mode) skips the per-element test: two copies of the loop, one branch per tile pair.
        unsigned long long pending = 0;
        auto filter = [&](auto whole) {
#pragma unroll
          for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
            for (int nt = 0; nt < 4; ++nt) {
#pragma unroll
              for (int e = 0; e < 4; ++e) {
                size_type const i = row_start + core::element_row(wm, mt, e, g);
                size_type const j = col_start + core::element_col(wn, nt, e, t);
                float v, m;
                row_margin<filter_metric>(acc[mt][nt][e], fa[mt][e >> 1], fb[nt][e & 1], p.rho, p.abs_term, v, m);
                float const lowest = __fsub_rd(larger_nearer ? -v : v, m);
                // `|` and `&`, not `||` and `&&`: no branch region per element.
                bool const may     = !(lowest > bound[mt][e >> 1]) | !isfinite(v);
                bool const partner = decltype(whole)::value || is_partner(i, j);
                if (partner & may) { pending |= 1ull << (mt * 16 + nt * 4 + e); }
              }
            }
          }
        };
        bool const inside = row_start + TS <= p.a.size && col_start + TS <= p.b.size;
        if (inside && (p.mode == pair_mode::cross || row_start != col_start)) {
          filter(cuda::std::true_type{});
        } else {
          filter(cuda::std::false_type{});
        }

        // Partners by whole warps, shared out over the block's warps (a warp with many partners
        // to recompute held the others at the next tile's first barrier: 28% of the stall
        // samples at k = 10, D = 128), `recompute_batch` at a time so that their round trips to
        // memory overlap: the exact values, then the offers (any warp may offer to any row's
        // list: the lists take concurrent offers).
        if constexpr (Visitor::takes_intervals) {
          offer_intervals(pending, acc, fa, fb, col_start, out, exact);
        } else {
          for_each_pending_exact_of_block<recompute_batch>(tiles, pending, M, row_start, col_start, p.refined,
                                                           [&](int r, int, size_type, size_type j, float v) {
                                                             if (!isnan(v)) { out.offer(r, larger_nearer ? -v : v, j); }
                                                           });
        }
      }
      if constexpr (Visitor::takes_intervals) {
        out.end_unit(exact);
      } else {
        out.end_unit();
      }
    }
    tiles.finish();
  }

  /// The tile pair after (row_start, column tile ct) of the unit: column tile `next_ct` of the
  /// same rows where it is one of the unit's (not size_type(-1)), else the first of the next unit
  /// where the source tells it and that unit has column tiles.
  template <class Source>
  __device__ next_tile_pair next_of(Source const& units, size_type row_start, size_type next_ct, size_type col_tiles) const
  {
    if (next_ct != size_type(-1)) { return next_tile_pair{row_start, next_ct * TS, true}; }
    next_tile_pair n;
    if constexpr (has_peek<Source>::value) {
      unsigned long long u = 0;
      if (units.peek(u)) {
        size_type const first = static_cast<size_type>(u % p.segments) * p.segment_tiles;
        if (first < col_tiles) { n = next_tile_pair{static_cast<size_type>(u / p.segments) * TS, first * TS, true}; }
      }
    }
    return n;
  }

  /// The pending partners as intervals [lo, hi] of their scores (nearest_candidates_visitor):
  /// each lane appends its offers to its rows' candidates (Visitor::place, put). The rows merge them
  /// only when an offer found no slot (then that offer comes again) and at the unit's end: a
  /// merge after every tile pair waited on its busiest row, and a bound a few tile pairs old lets
  /// few more partners through. Block-wide; empties the masks.
  template <class Visitor, class Exact>
  __device__ void offer_intervals(unsigned long long& pending, float const (&acc)[4][4][4], float const (&fa)[4][2],
                                  float const (&fb)[4][2], size_type col_start, Visitor& out, Exact& exact)
  {
    constexpr float inf = cuda::std::numeric_limits<float>::infinity();
    int const lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
    for (;;) {
      if (pending != 0) {
        // The products and factors of the lane's elements, to be read at the pending bits' places.
        alignas(16) float held[64 + 16];
#pragma unroll
        for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
          for (int nt = 0; nt < 4; ++nt) {
#pragma unroll
            for (int e = 0; e < 4; ++e) { held[mt * 16 + nt * 4 + e] = acc[mt][nt][e]; }
          }
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            held[64 + mt * 2 + h] = fa[mt][h];
            held[72 + mt * 2 + h] = fb[mt][h];
          }
        }
        unsigned long long waiting = 0;
        for (unsigned long long bits = pending; bits != 0; bits &= bits - 1) {
          int const bit = __ffsll(static_cast<long long>(bits)) - 1;
          int row = 0, col = 0;
          core::pending_element(bit, warp & 1, warp >> 1, lane, row, col);
          int const at = out.place(row);
          if (at < 0) {
            waiting |= bits & (0ull - bits);
            continue;
          }
          float v, m;
          row_margin<filter_metric>(held[bit], held[64 + (bit >> 4) * 2 + ((bit >> 1) & 1)], held[72 + ((bit >> 2) & 3) * 2 + (bit & 1)],
                                    p.rho, p.abs_term, v, m);
          float const score = larger_nearer ? -v : v;
          float lo = __fsub_rd(score, m), hi = __fadd_ru(score, m);
          if (!isfinite(v) || !(lo <= hi)) {  // no bound from the approximation
            lo = -inf;
            hi = inf;
          }
          if constexpr (squared_filter) {  // [lo, hi] holds float(S): the Euclidean value's interval
            lo = euclidean_below(lo);
            hi = euclidean_above(hi);
          }
          out.put(row, at, lo, hi, static_cast<std::uint32_t>(col_start + col));
        }
        pending = waiting;
      }
      if (__syncthreads_or(pending != 0) == 0) { break; }  // every offer found a slot
      out.merge(exact);
      __syncthreads();  // merged before the next round's offers
    }
  }
};

#endif  // __CUDACC__

}  // namespace twobody::detail
