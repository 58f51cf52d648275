/// \file mma_nearest_traversal.cuh
/// \brief The tensor-core traversal of k nearest neighbours of rows (output::nearest_lists).
#pragma once

#include <twobody/math/neighbor_keys.cuh>
#include <twobody/rows/mma_traversal.cuh>

#include <cstdint>

#ifdef __CUDACC__

namespace twobody::detail {

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

}  // namespace twobody::detail

#endif  // __CUDACC__
