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
  size_type band   = 0;      ///< > 0: flat order runs band by band of this many tile rows (with_bands)

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

  /// The same tile pairs in bands of `rows_per_band` tile rows: band after band, and within a
  /// band column after column (each column's rows in order). A persistent grid that takes every
  /// gridDim.x-th unit (strided_units) then works at any moment on a compact patch of about
  /// rows_per_band x (blocks / rows_per_band) tile pairs, whose row and column tiles it reads
  /// from DRAM once and shares in L2; row-major order would read a new column tile per tile pair.
  /// No interleaving of a partial last row: for the traversals of rows, every tile pair costs the same.
  __host__ __device__ tile_schedule with_bands(size_type rows_per_band) const
  {
    tile_schedule s = *this;
    s.band          = rows_per_band > 0 ? rows_per_band : 0;
    s.interleaved   = false;
    return s;
  }

  /// First tile pair of row i in self mode.
  __host__ __device__ size_type row_offset(size_type i) const { return i * rows - i * (i - 1) / 2; }

  /// Flat index -> (row, column).
  __host__ __device__ void locate(size_type f, size_type& row, size_type& col) const
  {
    if (band > 0) {
      locate_in_bands(f, row, col);
      return;
    }
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
    row = self_row_of(f);
    col = row + (f - row_offset(row));
  }

  /// Flat index of tile pair (row, col): the inverse of locate.
  __host__ __device__ size_type index_of(size_type row, size_type col) const
  {
    if (band > 0) {
      size_type const first = row - row % band, h = band_height(first), r = row - first;
      if (mode != pair_mode::self) { return first * cols + col * h + r; }
      size_type const c = col - first, corner = h * (h + 1) / 2;
      return row_offset(first) + (c < h ? c * (c + 1) / 2 + r : corner + (c - h) * h + r);
    }
    if (mode == pair_mode::self) { return row_offset(row) + (col - row); }
    size_type const full = row * cols + col;
    if (!interleaved) { return full; }
    return row == rows - 1 ? col * rows + rows - 1 : full / (rows - 1) * rows + full % (rows - 1);
  }

  /// The tile pair after (row, col) in flat order.
  __host__ __device__ void advance(size_type& row, size_type& col) const
  {
    if (interleaved || band > 0) {  // once per tile pair: the divisions cost nothing next to its pairs
      locate(index_of(row, col) + 1, row, col);
      return;
    }
    if (++col == cols) {
      ++row;
      col = mode == pair_mode::self ? row : 0;
    }
  }

  /// The row i with row_offset(i) <= f < row_offset(i + 1) (self mode): solved in floating
  /// point, then corrected by +-1.
  __host__ __device__ size_type self_row_of(size_type f) const
  {
    if (rows < 2048) {
      // Fewer than 2048 tile rows: every term is an integer below 2^24 (exact in float) and every
      // row offset fits 32 bits. A small set's blocks each locate one tile pair; in double, with
      // 64-bit offsets, that was about 60 of the 376 instructions each warp of the 4096-point
      // RDF kernel runs once (ncu, H200).
      int const n       = static_cast<int>(rows);
      int const g       = static_cast<int>(f);
      float const b     = static_cast<float>(2 * n + 1);
      float const disc  = b * b - 8.0f * static_cast<float>(g);
      int i             = static_cast<int>((b - sqrtf(disc > 0.0f ? disc : 0.0f)) * 0.5f);
      i                 = i < 0 ? 0 : (i >= n ? n - 1 : i);
      auto offset       = [n](int r) { return r * n - r * (r - 1) / 2; };
      while (i > 0 && offset(i) > g) { --i; }
      while (i + 1 < n && offset(i + 1) <= g) { ++i; }
      return i;
    }
    double const b    = 2.0 * static_cast<double>(rows) + 1.0;
    double const disc = b * b - 8.0 * static_cast<double>(f);
    size_type i       = static_cast<size_type>((b - sqrt(disc > 0.0 ? disc : 0.0)) * 0.5);
    if (i < 0) { i = 0; }
    if (i >= rows) { i = rows - 1; }
    while (i > 0 && row_offset(i) > f) { --i; }
    while (i + 1 < rows && row_offset(i + 1) <= f) { ++i; }
    return i;
  }

  /// Tile rows in the band that starts at tile row `first` (the last band may be shorter).
  __host__ __device__ size_type band_height(size_type first) const { return rows - first < band ? rows - first : band; }

  __host__ __device__ void locate_in_bands(size_type f, size_type& row, size_type& col) const
  {
    if (mode != pair_mode::self) {  // a band is h rows x all columns, column after column
      size_type const first = f / (band * cols) * band, h = band_height(first), local = f - first * cols;
      col = local / h;
      row = first + (local - col * h);
      return;
    }
    // A self band holds the same tile pairs as its rows in row-major order: find the band from
    // the row-major row of f, then the corner triangle (columns first .. first + h - 1, rows up to
    // the diagonal) and the full columns after it.
    size_type const i = self_row_of(f), first = i - i % band, h = band_height(first);
    size_type const local = f - row_offset(first), corner = h * (h + 1) / 2;
    if (local < corner) {
      size_type c = static_cast<size_type>((sqrt(8.0 * static_cast<double>(local) + 1.0) - 1.0) * 0.5);
      while (c > 0 && c * (c + 1) / 2 > local) { --c; }
      while ((c + 1) * (c + 2) / 2 <= local) { ++c; }
      row = first + (local - c * (c + 1) / 2);
      col = first + c;
      return;
    }
    size_type const rest = local - corner, c = rest / h;
    row = first + (rest - c * h);
    col = first + h + c;
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
