/// \file cell_list_traversal.cuh
/// \brief Small self sets in a periodic box, visited by cells: the one-call histogram
/// of a short-range statistic (an RDF out to r_max in a box much wider than 2 r_max) in one
/// kernel that visits only the pairs of neighbouring cells.
///
/// Every block bins the whole set (at most cell_list_max_points points) into cells of its own
/// shared memory: a count per cell by shared atomics, a CUB block scan, a scatter. It then
/// visits the pairs of its share of the points (units of `owned` consecutive indices) with the
/// points of the point's own cell (partners of larger index) and of the (3^D - 1) / 2 cells at
/// positive offsets (an offset whose first non-zero axis is +1): each unordered pair of points
/// of neighbouring cells once. The pairs of all other cells are added to the outside slot at
/// once, without being visited: each block counts those of its share of the cells, at the
/// smaller of each pair's two cells. Nothing waits for another block, so there is no grid
/// barrier beyond the output's own zeroing.
///
/// Exact: cells are at least the bin map's outside threshold wide with a margin (cell_grid_of),
/// so every pair two or more cells apart on some axis (cyclically) has a value past the
/// threshold whatever the rounding, and lands in the outside slot as if it had been visited.
/// Points outside the box [0, L] on some axis, or with a NaN coordinate, prove nothing: when
/// there is one, every block sees it while binning, and the call visits every pair instead (the
/// same values as the tile kernels, in the same slots).
#pragma once

#include <twobody/engine/engine.cuh>
#include <twobody/engine/visitors.cuh>
#include <twobody/functors.cuh>
#include <twobody/math/tile_forms.cuh>
#include <twobody/points.cuh>
#include <twobody/util/config.cuh>

#include <cub/block/block_scan.cuh>
#include <cuda/std/type_traits>

#include <cmath>

namespace twobody::detail {

/// The smallest set the one-call histogram takes the cells for (below it the tiles measured faster:
/// binning every point is one dependent step more than a small set's tile pair; bench_frames
/// floor/rdf128_reach/async/n:*/r_max:12).
inline constexpr int cell_list_min_points   = 2048;
inline constexpr int cell_list_max_points   = 4096;  ///< the largest set (its points sit in shared memory)
inline constexpr int cell_list_max_cells    = 4096;  ///< the most cells (their starts sit in shared memory)
inline constexpr int cell_list_max_per_axis = 32;    ///< keeps cell_grid_of's margin (see there)
/// The largest share of all pairs the cells may visit for the one-call histogram to take them
/// (3^D / cells: 27 of 125 cells of 5 per axis, say).
inline constexpr double cell_list_max_share = 0.25;

/// The cells of a periodic box for a bin map's reach: cells[d] per axis (all >= 3, so the 3^D
/// cells around a cell are distinct), or cells[0] == 0 where no such grid exists.
template <int D>
struct cell_grid {
  int cells[D]{};
  float inv_width[D]{};  ///< cells[d] / box[d], rounded to float
  float box[D]{};

  __host__ __device__ bool usable() const { return cells[0] >= 3; }
  __host__ __device__ int total() const
  {
    int t = 1;
TWOBODY_UNROLL
    for (int d = 0; d < D; ++d) { t *= cells[d]; }
    return t;
  }
  /// The share of all pairs of points spread evenly over the box that the cells visit.
  double visited_share() const
  {
    double s = 1.0;
    for (int d = 0; d < D; ++d) { s *= 3.0 / cells[d]; }
    return s;
  }
};

/// The cells for the minimum image `f` and a bin map with an outside threshold: each at least
/// sqrt(values_outside_from(bins)) (1 + 2^-10) wide, at most cell_list_max_per_axis per axis and
/// cell_list_max_cells in all (fewer cells are wider: still past the reach).
///
/// The margin: a point in [0, L] takes cell floor(x * inv_width) (clamped to the last), off by
/// at most m 2^-23 cells (m <= 32: 2^-18 of a cell) from the exact one; a pair two cells apart
/// then lies at least w (1 - 2^-17) apart, and the functor's float minimum image, its square and
/// its sum lose at most a few 2^-24 L (L = m w) more: the value is >= w^2 (1 - 2^-15), past the
/// threshold by the margin's 2^-10 many times over.
template <int D, class Binning>
cell_grid<D> cell_grid_of(periodic_squared_euclidean<float, D> const& f, Binning const& bins)
{
  static_assert(has_outside_threshold<Binning>::value, "cells serve bin maps with an outside threshold");
  double const width = std::sqrt(static_cast<double>(values_outside_from(bins))) * (1.0 + 1.0 / 1024.0);
  if (!std::isfinite(width) || !(width > 0.0)) { return {}; }
  int m[D];
  for (int d = 0; d < D; ++d) {
    double const L = f.box[d];
    if (!std::isfinite(L) || !(L > 0.0)) { return {}; }
    double const k = std::floor(L / width);
    m[d]           = k >= cell_list_max_per_axis ? cell_list_max_per_axis : static_cast<int>(k);
    if (m[d] < 3) { return {}; }
  }
  for (;;) {
    long long total = 1;
    int widest      = 0;
    for (int d = 0; d < D; ++d) {
      total *= m[d];
      if (m[d] > m[widest]) { widest = d; }
    }
    if (total <= cell_list_max_cells) { break; }
    if (--m[widest] < 3) { return {}; }
  }
  cell_grid<D> g;
  for (int d = 0; d < D; ++d) {
    g.cells[d]     = m[d];
    g.inv_width[d] = static_cast<float>(m[d] / static_cast<double>(f.box[d]));
    g.box[d]       = f.box[d];
  }
  return g;
}

/// Point sets, functors and bin maps the cells serve: unweighted float points in 2 or 3
/// dimensions (the ones tested on the GPU), the minimum image of their periodic box, bins that
/// send every value past a threshold to the outside slot (distance_bins).
template <class Points, class F, class Binning>
inline constexpr bool cell_list_serves_v = false;
template <int D, class Binning>
inline constexpr bool cell_list_serves_v<points<float, D, false>, periodic_squared_euclidean<float, D>, Binning> =
  (D == 2 || D == 3) && has_outside_threshold<Binning>::value;

template <class Points, int BlockThreads = 1024>
struct cell_list_traversal {
  static constexpr int D = Points::dims;
  static_assert(cuda::std::is_same_v<typename Points::value_type, float> && D <= 3 && !Points::weighted,
                "the cells take unweighted float points in 1 to 3 dimensions");
  static constexpr int block_threads     = BlockThreads;
  static constexpr int min_blocks_per_sm = 1;
  static constexpr int points_per_thread = cell_list_max_points / BlockThreads;
  static constexpr int cells_per_thread  = cell_list_max_cells / BlockThreads;
  static_assert(points_per_thread * BlockThreads == cell_list_max_points &&
                cells_per_thread * BlockThreads == cell_list_max_cells);
  static constexpr int neighbourhood = D == 1 ? 3 : (D == 2 ? 9 : 27);  ///< 3^D cells around a cell, itself included
  static constexpr int centre        = (neighbourhood - 1) / 2;        ///< the cell itself, in base-3 offset order
  /// Per point: its own cell and the cells at positive offsets, each taken by `splits` threads
  /// (every splits-th point of the cell): a small set's time is the threads' chains of dependent
  /// steps, not the SM's issue rate.
  static constexpr int segments = centre + 1;
  static constexpr int splits   = 2;
  static constexpr int items    = segments * splits;  ///< threads per own point
  /// Points per unit: a thread per (point, segment, split), in a power of two.
  static constexpr int owned = BlockThreads / items >= 512 ? 512
                               : BlockThreads / items >= 256 ? 256
                               : BlockThreads / items >= 128 ? 128
                               : BlockThreads / items >= 64  ? 64
                                                             : 32;
  static_assert(owned * items <= BlockThreads);
  /// The points binned by cell (x, y, z, index), each point's place there (by index: what a
  /// unit's own points are found by) and the cells' starts (one past the last: the end), just
  /// over 96 KiB. The scatter takes the points from registers; an index-ordered copy in shared
  /// memory took 64 KiB more and every block 4096 more 16-byte stores and loads (0.1-0.2 us of a
  /// call at 2048 and 3072 points).
  static constexpr std::size_t dynamic_bytes =
    (cell_list_max_points * (sizeof(float4) + sizeof(int)) + (cell_list_max_cells + 1) * sizeof(int) + 127) / 128 * 128;
  // A block's counters take at most (owned points) x n + n^2 / 2 increments: far below 2^32.
  static_assert(static_cast<unsigned long long>(cell_list_max_points) * cell_list_max_points < (1ull << 32));

  using scan_t = cub::BlockScan<int, BlockThreads>;
  struct params {
    Points a;
    cell_grid<D> grid;
  };
  struct temp_storage {
    typename scan_t::TempStorage scan;
  };
  using point_t = point<float, D>;

  params const& p;
  temp_storage& storage;
  float4* binned;
  int* position;
  int* start;
  point_t q[points_per_thread];  ///< this thread's points to bin, loaded by the constructor

  /// Zeroes the cells' counts and issues the loads of this thread's points: their round trip to L2
  /// then passes while the output agent sets up (its zeroing and grid-barrier arrival).
  __device__ cell_list_traversal(params const& p_, temp_storage& s, unsigned char* dynamic)
    : p(p_),
      storage(s),
      binned(reinterpret_cast<float4*>(dynamic)),
      position(reinterpret_cast<int*>(dynamic + cell_list_max_points * sizeof(float4))),
      start(position + cell_list_max_points)
  {
    for (int c = threadIdx.x; c <= cell_list_max_cells; c += BlockThreads) { start[c] = 0; }
    int const n = static_cast<int>(p.a.size);
TWOBODY_UNROLL
    for (int k = 0; k < points_per_thread; ++k) {
      int const i = threadIdx.x + k * BlockThreads;
      if (i < n) { q[k] = p.a.load_readonly(i); }
    }
  }

  /// Cell coordinates of `q`; false where a coordinate is outside [0, box] or NaN.
  __device__ __forceinline__ bool cell_of(point_t const& q, int (&c)[D]) const
  {
    bool inside = true;
TWOBODY_UNROLL
    for (int d = 0; d < D; ++d) {
      inside       = inside && q.x[d] >= 0.f && q.x[d] <= p.grid.box[d];
      int const k  = __float2int_rz(q.x[d] * p.grid.inv_width[d]);
      c[d]         = k < p.grid.cells[d] - 1 ? k : p.grid.cells[d] - 1;
    }
    return inside;
  }
  __device__ __forceinline__ int linear(int const (&c)[D]) const
  {
    int k = c[0];
TWOBODY_UNROLL
    for (int d = 1; d < D; ++d) { k = k * p.grid.cells[d] + c[d]; }
    return k;
  }
  /// The cell at offset number v (base 3, axis 0 first: digit o + 1 for offset o) from c, cyclically.
  __device__ __forceinline__ int neighbour(int const (&c)[D], int v) const
  {
    int n[D];
TWOBODY_UNROLL
    for (int d = D - 1; d >= 0; --d) {
      int const o = v % 3 - 1;
      v /= 3;
      int k = c[d] + o;
      k     = k < 0 ? k + p.grid.cells[d] : (k >= p.grid.cells[d] ? k - p.grid.cells[d] : k);
      n[d]  = k;
    }
    return linear(n);
  }
  __device__ __forceinline__ void decode(int k, int (&c)[D]) const
  {
TWOBODY_UNROLL
    for (int d = D - 1; d >= 0; --d) {
      c[d] = k % p.grid.cells[d];
      k /= p.grid.cells[d];
    }
  }
  __device__ __forceinline__ static point_t point_of(float4 const& q)
  {
    point_t r;
    float const v[3] = {q.x, q.y, q.z};
TWOBODY_UNROLL
    for (int d = 0; d < D; ++d) { r.x[d] = v[d]; }
    return r;
  }
  /// q and index i as a binned entry (x, y, z, index).
  __device__ __forceinline__ static float4 entry_of(point_t const& q, int i)
  {
    float v[3] = {0.f, 0.f, 0.f};
TWOBODY_UNROLL
    for (int d = 0; d < D; ++d) { v[d] = q.x[d]; }
    return make_float4(v[0], v[1], v[2], __int_as_float(i));
  }

  /// Bins every point into the cells (block-wide). Returns whether some point lies in no cell.
  __device__ bool bin_points()
  {
    int const n = static_cast<int>(p.a.size);
    __syncthreads();  // (the constructor's zeroing before the counts)
    // Cell and rank in the cell, packed (cell * 2^rank_bits + rank), -1 for none: the points stay
    // in registers until the scatter, which leaves few for these.
    constexpr int rank_bits = 12;
    static_assert(cell_list_max_cells <= (1 << rank_bits) && cell_list_max_points <= (1 << rank_bits));
    int slot[points_per_thread];
    bool stray = false;
TWOBODY_UNROLL
    for (int k = 0; k < points_per_thread; ++k) {
      int const i = threadIdx.x + k * BlockThreads;
      slot[k]     = -1;
      if (i < n) {
        int c[D];
        if (cell_of(q[k], c)) {
          int const cell = linear(c);
          slot[k]        = cell << rank_bits | atomicAdd(start + cell, 1);
        } else {
          stray = true;
        }
      }
    }
    if (__syncthreads_or(stray ? 1 : 0) != 0) { return true; }
    // The counts' exclusive sum (its barriers order the reads before the writes); one cell per
    // thread where they fit.
    int in_cells = 0;
    if (p.grid.total() < BlockThreads) {  // (start[total], the end, is then among them)
      int count = start[threadIdx.x];
      scan_t(storage.scan).ExclusiveSum(count, count, in_cells);
      start[threadIdx.x] = count;
    } else {
      int counts[cells_per_thread];
TWOBODY_UNROLL
      for (int k = 0; k < cells_per_thread; ++k) { counts[k] = start[threadIdx.x * cells_per_thread + k]; }
      scan_t(storage.scan).ExclusiveSum(counts, counts, in_cells);
TWOBODY_UNROLL
      for (int k = 0; k < cells_per_thread; ++k) { start[threadIdx.x * cells_per_thread + k] = counts[k]; }
    }
    if (threadIdx.x == 0) { start[cell_list_max_cells] = in_cells; }
    __syncthreads();
TWOBODY_UNROLL
    for (int k = 0; k < points_per_thread; ++k) {
      if (slot[k] >= 0) {
        int const i  = threadIdx.x + k * BlockThreads;
        int const at = start[slot[k] >> rank_bits] + (slot[k] & ((1 << rank_bits) - 1));
        binned[at]   = entry_of(q[k], i);
        position[i]  = at;
      }
    }
    __syncthreads();
    return false;
  }

  /// Point i (a) against share `split` of segment `seg` of its neighbourhood: 0 its own cell
  /// (partners of larger index), s > 0 the cell at the s-th positive offset (all its points).
  template <class Visitor>
  __device__ __forceinline__ void visit_cells(int i, point_t const& a, int seg, int split, Visitor& out) const
  {
    int c[D];
    cell_of(a, c);
    int const k     = seg == 0 ? linear(c) : neighbour(c, centre + seg);
    int const begin = start[k] + split, end = start[k + 1];
#pragma unroll 4
    for (int j = begin; j < end; j += splits) {
      float4 const b  = binned[j];
      int const index = __float_as_int(b.w);
      out.visit(0, a, point_of(b), i, index, unweighted{}, seg != 0 || index > i);
    }
  }

  /// Point i (a) against share `share` (of `items`) of its partners of larger index, read from L2
  /// (some point lies in no cell: a set the cells prove nothing for, not a fast path).
  template <class Visitor>
  __device__ __forceinline__ void visit_all(int i, point_t const& a, int share, Visitor& out) const
  {
    int const n        = static_cast<int>(p.a.size);
    int const partners = n - 1 - i;
    int const length   = (partners + items - 1) / items;
    int const begin    = i + 1 + share * length;
    int const end      = begin + length < n ? begin + length : n;
    for (int j = begin; j < end; ++j) { out.visit(0, a, p.a.load_readonly(j), i, j, unweighted{}, true); }
  }

  /// The pairs no block visits, to the outside slot: those of each cell with the points of cells
  /// of larger index that are not its neighbours. A warp per cell of this block's share (the
  /// grid's warps take the cells in turn), a lane per neighbour: lane `centre` adds the cell's
  /// points times the points of all later cells, the others take away those of their neighbour
  /// if it is later. The warp's sum (mod 2^32, of a count below 2^32) is the cell's.
  template <class Visitor>
  __device__ void count_unvisited(Visitor& out) const
  {
    int const total    = p.grid.total();
    int const in_cells = start[cell_list_max_cells];
    int const lane     = static_cast<int>(threadIdx.x & 31);
    int const warps    = gridDim.x * (BlockThreads / 32);
    unsigned unvisited = 0;
    for (int k = blockIdx.x * (BlockThreads / 32) + static_cast<int>(threadIdx.x / 32); k < total; k += warps) {
      unsigned const count = static_cast<unsigned>(start[k + 1] - start[k]);
      if (count == 0) { continue; }  // (warp-uniform)
      int c[D];
      decode(k, c);
      if (lane == centre) {
        unvisited += count * static_cast<unsigned>(in_cells - start[k + 1]);
      } else if (lane < neighbourhood) {
        int const m = neighbour(c, lane);
        if (m > k) { unvisited -= count * static_cast<unsigned>(start[m + 1] - start[m]); }
      }
    }
TWOBODY_UNROLL
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) { unvisited += __shfl_xor_sync(0xffffffffu, unvisited, lane_mask); }
    if (lane == 0 && unvisited != 0) { out.count_outside(unvisited); }
  }

  template <class Units, class Visitor>
  __device__ void run(Units& units, Visitor& out)
  {
    int const n      = static_cast<int>(p.a.size);
    bool const stray = bin_points();
    unsigned long long unit;
    while (units.next(unit)) {
      out.begin_unit();
      int const item = static_cast<int>(threadIdx.x);  // (one item per thread: owned * items <= BlockThreads)
      int const i    = static_cast<int>(unit) * owned + item % owned;
      int const part = item / owned;
      if (item < owned * items && i < n) {
        if (stray) {
          visit_all(i, p.a.load_readonly(i), part, out);
        } else {
          point_t const own = point_of(binned[position[i]]);
          visit_cells(i, own, part % segments, part / segments, out);
        }
      }
      // Every counter took at most one increment per pair of the unit's points.
      if (!end_unit(out, units, unit, static_cast<unsigned long long>(owned) * static_cast<unsigned long long>(n))) { return; }
    }
    if (!stray) { count_unvisited(out); }
  }
};

}  // namespace twobody::detail
