#pragma once

/// The engine's traversal of low-dimensional points (points<float, D>) for k nearest
/// neighbours (output::nearest_lists), on the CUDA cores: a unit is a tile of 128 points of A
/// against one segment of B's tiles of 128. Both tiles are staged in shared memory; warp w owns
/// rows 16w .. 16w + 15, each lane evaluates the metric for 4 columns of a row, and the partners
/// whose value reaches the row's bound are offered one at a time. The metric's value is the
/// answer itself (as on the CPU backend), so nothing is recomputed.

#include <twobody/engine/engine.cuh>
#include <twobody/math/neighbor_keys.cuh>
#include <twobody/points.cuh>

#include <cmath>

namespace twobody::detail {

#ifdef __CUDACC__

template <class Points, class Metric>
struct nearest_point_traversal {
  static constexpr int block_threads     = 256;
  static constexpr int min_blocks_per_sm = 1;
  static constexpr int TS                = 128;
  static constexpr int D                 = Points::dims;
  static constexpr bool larger_nearer    = larger_is_nearer<Metric>;
  static constexpr bool offers_intervals = false;  ///< its offers carry the metric's own values
  static_assert(TS == 16 * (block_threads / 32) && TS == 4 * 32, "8 warps of 16 rows, 4 columns per lane");

  struct params {
    pair_mode mode;
    Points a, b;  ///< b == a in ordered mode
    Metric metric;
    int segments;
    size_type segment_tiles;
  };
  struct temp_storage {
    float rows[D][TS];
    float cols[D][TS];
  };

  params const& p;
  temp_storage& s;

  __device__ nearest_point_traversal(params const& p_, temp_storage& storage) : p(p_), s(storage) {}

  __device__ static void stage(Points const& side, size_type first, float (&dst)[D][TS])
  {
    for (int q = static_cast<int>(threadIdx.x); q < D * TS; q += block_threads) {
      int const d = q / TS, r = q % TS;
      size_type const i = first + r;
      dst[d][r]         = i < side.size ? side.coords[d][i] : 0.0f;
    }
  }

  template <class Source, class Visitor>
  __device__ void run(Source& units, Visitor& out)
  {
    int const lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
    size_type const col_tiles = (p.b.size + TS - 1) / TS;
    for (unsigned long long unit = 0; units.next(unit);) {
      size_type const row_start = static_cast<size_type>(unit / p.segments) * TS;
      int const segment         = static_cast<int>(unit % p.segments);
      stage(p.a, row_start, s.rows);
      out.begin_unit(row_start, segment);  // (its barrier publishes the staged rows)

      size_type const first = segment * p.segment_tiles;
      size_type const last  = first + p.segment_tiles < col_tiles ? first + p.segment_tiles : col_tiles;
      for (size_type ct = first; ct < last; ++ct) {
        size_type const col_start = ct * TS;
        __syncthreads();  // the previous tile's columns are read
        stage(p.b, col_start, s.cols);
        __syncthreads();
        point<float, D> b[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) {
#pragma unroll
          for (int d = 0; d < D; ++d) { b[c].x[d] = s.cols[d][lane + 32 * c]; }
        }
        for (int rr = 0; rr < 16; ++rr) {
          int const r       = warp * 16 + rr;
          size_type const i = row_start + r;
          if (i >= p.a.size) { break; }  // (warp-uniform)
          point<float, D> a;
#pragma unroll
          for (int d = 0; d < D; ++d) { a.x[d] = s.rows[d][r]; }
          float const bound = out.bound(r);
          float score[4];
          unsigned pending  = 0;
#pragma unroll
          for (int c = 0; c < 4; ++c) {
            size_type const j = col_start + lane + 32 * c;
            float const v     = static_cast<float>(p.metric(a, b[c]));
            score[c]          = larger_nearer ? -v : v;
            bool const pair   = j < p.b.size && (p.mode == pair_mode::cross || i != j);
            if (pair && !isnan(v) && !(score[c] > bound)) { pending |= 1u << c; }
          }
          for (;;) {
            unsigned const who = __ballot_sync(0xffffffffu, pending != 0);
            if (who == 0) { break; }
            int const leader = __ffs(static_cast<int>(who)) - 1;
            int const c      = __ffs(static_cast<int>(__shfl_sync(0xffffffffu, pending, leader))) - 1;
            float mine       = score[0];
#pragma unroll
            for (int q = 1; q < 4; ++q) { mine = c == q ? score[q] : mine; }
            float const sc = __shfl_sync(0xffffffffu, mine, leader);
            if (lane == leader) { pending &= pending - 1; }
            out.offer(r, sc, col_start + leader + 32 * c);
          }
        }
      }
      out.end_unit();
    }
  }
};

#endif  // __CUDACC__

}  // namespace twobody::detail
