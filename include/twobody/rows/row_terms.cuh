/// \file row_terms.cuh
/// \brief The per-point terms of staged rows (squared norm, length, inverse length, weight),
/// the kernel that computes them, and each metric's approximate value from the tensor cores'
/// dot product with its proven error margin (row_margin), which decides which pairs the row
/// traversals must recompute exactly.
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

#include <twobody/input/mma_tile.cuh>
#include <twobody/math/row_exact.cuh>
#include <twobody/math/row_metric_kind.cuh>
#include <twobody/math/row_rules.cuh>
#include <twobody/points.cuh>
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

#endif  // __CUDACC__

}  // namespace twobody::detail
