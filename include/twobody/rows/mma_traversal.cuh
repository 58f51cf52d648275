/// \file mma_traversal.cuh
/// \brief The engine's traversal of high-dimensional rows (input::mma_tile, or input::simt_rows
/// on the CUDA cores): units are the 128 x 128 tile pairs of a tile_schedule; a block takes a
/// tile pair's inner products from its products core, turns each into the metric's approximate
/// value with its proven margin (row_terms.cuh), hands the visitor every pair whose answer the
/// value decides for certain (row_rules.cuh), and recomputes the others exactly (pending.cuh),
/// one warp per pair, in the order that defines the metric's value (row_exact.cuh).
#pragma once

#include <twobody/engine/engine.cuh>
#include <twobody/engine/visitors.cuh>
#include <twobody/math/neighbor_keys.cuh>
#include <twobody/math/row_exact.cuh>
#include <twobody/math/row_rules.cuh>
#include <twobody/math/tile_schedule.cuh>
#include <twobody/rows.cuh>
#include <twobody/rows/mma_products.cuh>
#include <twobody/rows/pending.cuh>
#include <twobody/rows/row_terms.cuh>
#include <twobody/rows/tile_pair.cuh>
#include <twobody/util/config.cuh>

#include <cuda/std/type_traits>

#include <cstdint>

#ifdef __CUDACC__

namespace twobody::detail {

template <class T>
struct simt_row_products;  // simt_row_products.cuh

/// The products core the row traversals take by default (input::automatic): the tensor cores,
/// and for double rows FP32 on the CUDA cores (simt_row_products.cuh). FP64 on the tensor cores
/// would be no faster on an H100 (67 TFLOPS, as FP32 fma) and would only narrow the margin, so
/// recompute fewer pairs; TF32 on the tensor cores would widen it to 2^-10.
template <class T>
using row_core_t = cuda::std::conditional_t<cuda::std::is_same_v<T, double>, simt_row_products<T>, mma_tile_products<T>>;

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

}  // namespace twobody::detail

#endif  // __CUDACC__
