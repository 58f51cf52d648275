#pragma once

/// The engine's traversal of per-point sums over high-dimensional rows (sum_per_point of rows,
/// highdim_per_point.cuh): units are the 128 x 128 tile pairs of a tile_schedule; a block takes
/// the tile pair's inner products on the tensor cores (mma_tile_products), turns each into the
/// metric's approximate value v (row_terms.cuh's row_margin, within its proven margin of the
/// exact value) and adds f(v) to its row's sum. Ordered pairs run over the self schedule (each
/// unordered pair once) and add each term to both points, so the tensor-core work is that of
/// the self pairs. Sums stay in registers for the tile, are reduced over the lanes that share a
/// point, and reach the output with one atomic per point and warp (out.add).
/// A pair whose approximate value is not finite is recomputed exactly by a warp (row_exact.cuh),
/// so NaN and infinite coordinates give the same sums as on the CPU backend.

#include <twobody/math/row_rules.cuh>
#include <twobody/rows/mma_traversal.cuh>

namespace twobody::detail {

#ifdef __CUDACC__

/// Per-point sums of F (row_function) over the pairs of two staged row sets.
template <class T, row_metric_kind M, class F>
struct mma_sum_traversal {
  using core                             = row_core_t<T>;
  using policy                           = input::mma_tile;
  static constexpr int block_threads     = policy::block_threads;
  static constexpr int min_blocks_per_sm = policy::min_blocks_per_sm;
  static constexpr int TS                = policy::tile;

  struct params {
    bool both;  ///< ordered pairs on the self schedule: each term goes to i and to j
    staged_row_view<T> a, b;  ///< b == a when `both`
    int dims_padded;
    tile_schedule sched;  ///< self (both) or cross
    F f;
  };
  using temp_storage                     = typename core::temp_storage;
  static constexpr std::size_t dynamic_bytes = core::dynamic_bytes;  ///< the stages (engine.cuh)

  params const& p;
  core tiles;

  __device__ mma_sum_traversal(params const& p_, temp_storage&, unsigned char* stages)
    : p(p_), tiles(p_.a, p_.b, p_.dims_padded, stages) {}

  template <class Source, class Visitor>
  __device__ void run(Source& units, Visitor& out)
  {
    int const lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
    int const g = lane >> 2, t = lane & 3, wm = warp & 1, wn = warp >> 1;
    located_tile_pairs<Source> pairs{units, p.sched, TS};
    size_type row = 0, col = 0;
    for (unsigned long long unit = 0; pairs.next(unit, row, col);) {
      out.begin_unit();
      size_type const row_start = row * TS, col_start = col * TS;

      float acc[4][4][4];
      tiles.template products<false>(row_start, col_start, acc, pairs.after());

      float fa[4][2], fb[4][2];
      tiles.template row_factors<M>(row_start, fa);
      tiles.template col_factors<M>(col_start, fb);

      // The terms, summed per row slot (and per column slot when both points take them).
      float rs[4][2] = {}, cs[4][2] = {};
      unsigned long long pending = 0;
#pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            size_type const i = row_start + core::element_row(wm, mt, e, g);
            size_type const j = col_start + core::element_col(wn, nt, e, t);
            float v, m;
            row_margin<M>(acc[mt][nt][e], fa[mt][e >> 1], fb[nt][e & 1], 0.0f, 0.0f, v, m);
            bool const inside = i < p.a.size && j < p.b.size;
            bool const pair   = p.both ? inside && i < j : inside;
            bool const exact  = pair && !isfinite(v);
            if (exact) { pending |= 1ull << (mt * 16 + nt * 4 + e); }
            float const term = pair && !exact ? p.f(v) : 0.0f;
            rs[mt][e >> 1] += term;
            cs[nt][e & 1] += term;
          }
        }
      }

      // Rows: the 4 lanes of a quad share them; columns: the 8 quads.
#pragma unroll
      for (int k = 0; k < 4; ++k) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          rs[k][h] += __shfl_xor_sync(0xffffffffu, rs[k][h], 1);
          rs[k][h] += __shfl_xor_sync(0xffffffffu, rs[k][h], 2);
          if (p.both) {
            cs[k][h] += __shfl_xor_sync(0xffffffffu, cs[k][h], 4);
            cs[k][h] += __shfl_xor_sync(0xffffffffu, cs[k][h], 8);
            cs[k][h] += __shfl_xor_sync(0xffffffffu, cs[k][h], 16);
          }
        }
      }
#pragma unroll
      for (int k = 0; k < 4; ++k) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          size_type const i = row_start + core::element_row(wm, k, 2 * h, g);
          size_type const j = col_start + core::element_col(wn, k, h, t);
          if (t == 0 && i < p.a.size) { out.add(i, rs[k][h]); }
          if (p.both && g == 0 && j < p.b.size) { out.add(j, cs[k][h]); }
        }
      }

      // Pairs without a finite approximation: the exact value, one pair at a time by a warp.
      core::for_each_pending(pending, [&](int r, int c) {
        size_type const i = row_start + r, j = col_start + c;
        float const term  = p.f(tiles.exact_value(M, i, j));
        if (lane == 0) {
          out.add(i, term);
          if (p.both) { out.add(j, term); }
        }
      });

      if (!end_unit(out, units, unit, static_cast<unsigned long long>(TS) * TS)) { break; }
    }
    tiles.finish();
  }
};

#endif  // __CUDACC__

}  // namespace twobody::detail
