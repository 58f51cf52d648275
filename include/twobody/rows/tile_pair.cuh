/// \file tile_pair.cuh
/// \brief What the products cores of rows share: the tile pair a traversal takes next
/// (next_tile_pair, located_tile_pairs) and row_tile_pair, the two staged sets with the element
/// layout of a block's 128 x 128 products, the points' factors in it, the pending-pair loop
/// and the exact evaluation.
#pragma once

#include <twobody/engine/engine.cuh>
#include <twobody/math/row_exact.cuh>
#include <twobody/math/tile_schedule.cuh>
#include <twobody/rows/row_terms.cuh>

#include <cstdint>

#ifdef __CUDACC__

namespace twobody::detail {

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

}  // namespace twobody::detail

#endif  // __CUDACC__
