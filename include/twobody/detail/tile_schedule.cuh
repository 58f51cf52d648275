#pragma once

#include <twobody/points.cuh>

#ifndef __CUDACC_RTC__
#include <cmath>
#endif

namespace twobody::detail {

/// The work of one launch as a flat list of tile pairs (row tile of A, column tile of B),
/// split into equal contiguous ranges, one per block (a persistent grid: balanced to within
/// one tile pair however skewed the triangle is).
///   self:    rows i, columns j >= i (upper triangle with its diagonal), row-major;
///   cross:   all (i, j) of A tiles x B tiles, row-major;
///   ordered: like cross over A x A; the diagonal tiles skip i == j.
/// Row-major order keeps a block on one row tile for long runs, so its own points stay in
/// registers between column tiles.
///
/// In cross and ordered mode a partial last row tile (|A| not a multiple of the tile) is
/// interleaved: flat order runs in groups of `rows` tile pairs, rows - 1 of the full rows in
/// row-major order, then one tile pair of the last row. Each block's range then holds its share
/// of that row, which costs more per pair (masked own points) and, kept at the end, made the
/// one block holding it the tail of every launch.
struct tile_schedule {
  pair_mode mode   = pair_mode::self;
  size_type tile   = 1;  ///< points per tile (both sides)
  size_type rows   = 0;  ///< tiles of A
  size_type cols   = 0;  ///< tiles of B
  size_type total  = 0;  ///< tile pairs
  bool interleaved = false;  ///< the partial last row is spread over the flat order

  __host__ __device__ static size_type tiles_of(size_type n, size_type tile) { return n <= 0 ? 0 : (n + tile - 1) / tile; }

  __host__ __device__ static tile_schedule make(pair_mode mode, size_type na, size_type nb, size_type tile)
  {
    tile_schedule s;
    s.mode = mode;
    s.tile = tile;
    s.rows = tiles_of(na, tile);
    s.cols = mode == pair_mode::cross ? tiles_of(nb, tile) : s.rows;
    s.total = mode == pair_mode::self ? s.rows * (s.rows + 1) / 2 : s.rows * s.cols;
    s.interleaved = mode != pair_mode::self && s.rows > 1 && s.cols > 0 && na % tile != 0;
    return s;
  }

  /// First tile pair of row i in self mode.
  __host__ __device__ size_type row_offset(size_type i) const { return i * rows - i * (i - 1) / 2; }

  /// Flat index -> (row, column).
  __host__ __device__ void locate(size_type f, size_type& row, size_type& col) const
  {
    if (interleaved) {
      size_type const group = f / rows, k = f - group * rows;
      if (k == rows - 1) {  // the group's tile pair of the partial last row
        row = rows - 1;
        col = group;
        return;
      }
      f = group * (rows - 1) + k;  // index among the full rows' tile pairs
    }
    if (mode != pair_mode::self) {
      row = f / cols;
      col = f - row * cols;
      return;
    }
    // Solve row_offset(i) <= f < row_offset(i + 1) in floating point, then correct by +-1.
    double const b = 2.0 * static_cast<double>(rows) + 1.0;
    double const disc = b * b - 8.0 * static_cast<double>(f);
    size_type i = static_cast<size_type>((b - sqrt(disc > 0.0 ? disc : 0.0)) * 0.5);
    if (i < 0) { i = 0; }
    if (i >= rows) { i = rows - 1; }
    while (i > 0 && row_offset(i) > f) { --i; }
    while (i + 1 < rows && row_offset(i + 1) <= f) { ++i; }
    row = i;
    col = i + (f - row_offset(i));
  }

  /// The tile pair after (row, col) in flat order.
  __host__ __device__ void advance(size_type& row, size_type& col) const
  {
    if (interleaved) {  // once per tile pair: the divisions cost nothing next to its pairs
      size_type const full = row * cols + col;  // index among the full rows' tile pairs
      size_type const f = row == rows - 1 ? col * rows + rows - 1 : full / (rows - 1) * rows + full % (rows - 1);
      locate(f + 1, row, col);
      return;
    }
    if (++col == cols) {
      ++row;
      col = mode == pair_mode::self ? row : 0;
    }
  }

  /// Tile pair range [begin, end) of block b out of g blocks.
  __host__ __device__ size_type begin_of(size_type b, size_type g) const
  {
    size_type const q = total / g;
    size_type const r = total - q * g;
    return q * b + (b < r ? b : r);
  }

  __host__ __device__ bool is_diagonal(size_type row, size_type col) const
  {
    return mode != pair_mode::cross && row == col;
  }
};

/// Diagonal tiles: own point p pairs with (p + k) mod ts at step k (Pitaksirianan et al.,
/// Sec. 3.4.1). In self mode steps k = 1..ts/2 visit every unordered pair of the tile once
/// (the last step only for p < ts/2); in ordered mode steps k = 1..ts-1 visit every q != p.
__host__ __device__ inline int diagonal_partner(int p, int k, int ts)
{
  int const q = p + k;
  return q >= ts ? q - ts : q;
}
__host__ __device__ inline bool diagonal_self_pair(int p, int q, int k, int ts, int count)
{
  return p < count && q < count && (k < ts / 2 || p < ts / 2);
}

}  // namespace twobody::detail
