/// \file rows.cuh
/// \brief High-dimensional point sets: n points of D coordinates stored row-major (an n x D
/// matrix with a leading dimension), in `float`, `__half`, `__nv_bfloat16` or `double`, for
/// embeddings, descriptors and other data of 1 to thousands of dimensions (docs/highdim.md).
///
///     auto x = twobody::make_rows(n, 128, d_embeddings);          // n x 128, ld = 128
///     auto close = twobody::count_pairs(twobody::self_pairs(x),
///                                       twobody::within(twobody::euclidean{}, 0.5f));
///
/// Pair sets are the usual ones (self_pairs, cross_pairs, ordered_pairs). The statistics of
/// rows (highdim.cuh) compute a tile pair's inner products on the tensor cores (double rows: in
/// FP32 on the CUDA cores) and give the same answers as the exact evaluation that defines them
/// (math/row_exact.cuh).
#pragma once

#include <twobody/points.cuh>
#include <twobody/util/error.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cuda/std/type_traits>

#include <string>

namespace twobody {

/// Element types a row set may hold.
template <class T>
inline constexpr bool is_row_element_v = cuda::std::is_same_v<T, float> || cuda::std::is_same_v<T, __half> ||
                                         cuda::std::is_same_v<T, __nv_bfloat16> || cuda::std::is_same_v<T, double>;

/// A view of `size` points of `dims` coordinates: point i is data[i * ld + k], k < dims.
/// Weighted sets add w_i w_j per pair (counts and histograms are then sums, in double).
template <class T, bool Weighted = false>
struct rows {
  static_assert(is_row_element_v<T>, "twobody::rows<T>: T must be float, __half, __nv_bfloat16 or double");
  using value_type               = T;
  static constexpr bool weighted = Weighted;

  T const* data          = nullptr;
  float const* weights   = nullptr;  ///< used only when Weighted
  size_type size         = 0;
  int dims               = 0;
  size_type ld           = 0;  ///< elements between the starts of consecutive points (>= dims)
};

/// True for row sets (rows<T, W>), false for points and other sets.
template <class S>
inline constexpr bool is_rows_v = false;
template <class T, bool W>
inline constexpr bool is_rows_v<rows<T, W>> = true;

/// Unweighted view of an n x dims row-major matrix with leading dimension ld (0: ld = dims).
template <class T>
rows<T> make_rows(size_type n, int dims, T const* data, size_type ld = 0)
{
  rows<T> r;
  r.data = data;
  r.size = n;
  r.dims = dims;
  r.ld   = ld == 0 ? dims : ld;
  return r;
}

/// Weighted view: the weight of pair (i, j) is w[i] * w[j].
template <class T>
rows<T, true> make_weighted_rows(size_type n, int dims, T const* data, float const* w, size_type ld = 0)
{
  rows<T, true> r;
  r.data    = data;
  r.weights = w;
  r.size    = n;
  r.dims    = dims;
  r.ld      = ld == 0 ? dims : ld;
  return r;
}

}  // namespace twobody
