#pragma once

/// Traversals of the engine (engine.cuh) over two point sets without an index: the tile pairs
/// of a tile schedule (every input policy that tiles), and the naive one-thread-per-point baseline.

#include <twobody/engine/engine.cuh>
#include <twobody/engine/visitors.cuh>
#include <twobody/math/periodic_box.cuh>
#include <twobody/math/tile_forms.cuh>
#include <twobody/math/tile_schedule.cuh>
#include <twobody/points.cuh>
#include <twobody/util/config.cuh>

namespace twobody::detail {

/// Everything a pair kernel needs to know about its inputs; trivially copyable.
template <class Points>
struct kernel_inputs {
  pair_mode mode;
  Points a;  ///< rows: own points, held in registers
  Points b;  ///< columns: streamed through the input policy (== a in self and ordered mode)
  bool vector_aligned;  ///< coordinate arrays 16-byte aligned (vector loads allowed)
  /// Bounding boxes of a's and b's tiles (tile_order.cuh), or null: with them, functors with
  /// tile forms (tile_forms.cuh) take the cheapest exact form per tile pair.
  tile_box<typename Points::value_type, Points::dims> const* boxes_a = nullptr;
  tile_box<typename Points::value_type, Points::dims> const* boxes_b = nullptr;
  /// > 1: the boxes of each full tile's sub-tiles follow the tiles' boxes (tile_order.cuh), one
  /// per warp of the block: the forms are then chosen per warp and column sub-tile.
  int sub_tiles = 1;
};

/// Whether a visitor's functor also has forms per sub-tile (tile_forms.cuh, has_sub_tile_forms).
template <class Visitor, class = void>
struct visitor_has_sub_tile_forms : cuda::std::false_type {};
template <class Visitor>
struct visitor_has_sub_tile_forms<Visitor, cuda::std::void_t<typename Visitor::functor_type>>
  : cuda::std::bool_constant<has_sub_tile_forms_v<typename Visitor::functor_type>> {};

/// Whether a visitor skips whole tile pairs (takes_tile_pair: the passes over windows of the bins
/// whose agent declares window_units, visitors.cuh) in kernels with tile forms.
template <class Visitor, class = void>
struct visitor_skips_tile_pairs : cuda::std::false_type {};
template <class Visitor>
struct visitor_skips_tile_pairs<Visitor, cuda::std::void_t<typename Visitor::agent_type, typename Visitor::functor_type>>
  : cuda::std::bool_constant<has_window_units<typename Visitor::agent_type>::value && has_tile_forms_v<typename Visitor::functor_type>> {};

/// Whether a visitor's agent asks for two blocks of 256 threads per SM (Agent::two_blocks_per_sm:
/// at most 128 registers), for functors without a periodic box: the minimum image's 2048-point
/// tile kernel spilled 68 bytes at 128 registers, and two blocks made the one-call periodic RDF
/// at 2^20 about 10% slower (bench_suite rdf256/one_call/1048576).
template <class Visitor, class = void>
struct visitor_wants_two_blocks : cuda::std::false_type {};
template <class Visitor>
struct visitor_wants_two_blocks<Visitor, cuda::std::void_t<typename Visitor::agent_type, typename Visitor::functor_type,
                                                           decltype(Visitor::agent_type::two_blocks_per_sm)>>
  : cuda::std::bool_constant<Visitor::agent_type::two_blocks_per_sm && !has_periodic_box<typename Visitor::functor_type>> {};

/// Whether a visitor's agent sums each pair for both points (visitors.cuh, has_column_sums).
template <class Visitor, class = void>
struct visitor_sums_columns : cuda::std::false_type {};
template <class Visitor>
struct visitor_sums_columns<Visitor, cuda::std::void_t<typename Visitor::agent_type>>
  : cuda::std::bool_constant<has_column_sums<typename Visitor::agent_type>::value> {};

/// Whether a visitor's agent acts once a unit's columns are staged (visitors.cuh,
/// has_columns_staged): the traversal calls columns_staged() right after the staging barrier.
template <class Visitor, class = void>
struct visitor_takes_staged_columns : cuda::std::false_type {};
template <class Visitor>
struct visitor_takes_staged_columns<Visitor, cuda::std::void_t<typename Visitor::agent_type>>
  : cuda::std::bool_constant<has_columns_staged<typename Visitor::agent_type>::value> {};

/// Column sources that visit the columns of one sub-tile of a staged tile (for_each_in_sub_tile).
template <class Source, class = void>
struct has_sub_tile_columns : cuda::std::false_type {};
template <class Source>
struct has_sub_tile_columns<Source, cuda::std::void_t<decltype(Source::sub_tile_columns)>>
  : cuda::std::bool_constant<Source::sub_tile_columns> {};

/// Whether a visitor's functor has tile forms (a statistic_visitor of a tile_formed functor):
/// only those kernels compile the per-unit choice and its three loops.
template <class Visitor, class = void>
struct visitor_has_tile_forms : cuda::std::false_type {};
template <class Visitor>
struct visitor_has_tile_forms<Visitor, cuda::std::void_t<typename Visitor::functor_type>>
  : cuda::std::bool_constant<has_tile_forms_v<typename Visitor::functor_type>> {};

/// This thread's own-point slot in a row tile of B threads per group (its lane in its group).
template <int B, int G>
__device__ __forceinline__ int row_lane()
{
  if constexpr (G == 1) {
    return static_cast<int>(threadIdx.x);
  } else {
    return static_cast<int>(threadIdx.x) % B;
  }
}

/// Thread slot r's own point of the row tile of row_count points at row_start (and its weight).
/// Slots past the end of a partial row tile repeat the tile's first point, so that the partial
/// tile's pairs are real points whose results are dropped (keep false). A branch, not selects:
/// with selects ptxas scheduled the hot loops of the SDH with the read-only tile and with IEEE
/// sqrt 4-5% slower (bench_suite, H100), the hot-loop PTX unchanged.
template <int B, int R, int G = 1, class Points, class T, int D>
__device__ __forceinline__ void load_own_points(Points const& a, size_type row_start, int row_count, point<T, D> (&own)[R],
                                                T (&own_w)[R])
{
  int const lane = row_lane<B, G>();
#pragma unroll
  for (int r = 0; r < R; ++r) {
    int const p = lane + r * B;
    if (p < row_count) {
      own[r]   = a.load_readonly(row_start + p);
      own_w[r] = a.weight_readonly(row_start + p);
    } else {
      own[r]   = a.load_readonly(row_start);
      own_w[r] = T(0);
    }
  }
}

/// A tile pair of self mode whose pairs count for both points (visitor_sums_columns): the column
/// tile of col_count points at col_start in chunks of 32 (with column groups, every G-th chunk per
/// group). In step k of a chunk lane l pairs its own points with the chunk's column l ^ k, so the
/// 32 lanes of a warp hold 32 different columns, and a column's sum moves to the lane that takes
/// that column next (lane l ^ k ^ (k + 1): a butterfly shuffle); after step 31 lane l holds its
/// warp's sum for column l ^ 31. (With l + k mod 32 each step's address took three integer
/// instructions instead of two.)
///
/// A diagonal tile pair (the row tile is the column tile, col_start its first point) keeps own
/// point p's pair with column q only for q > p, so each unordered pair counts once: a warp skips
/// the chunks before its first row chunk and compares only in the chunks that hold its own
/// points. (Visiting each own point's pairs in both orders instead, rows only, took the diagonal
/// tiles' blocks 1-1.5 us longer than the others at 4096 points: the SMs that held one ended
/// last.)
template <bool Diagonal, int B, int R, class Columns, class T, int D, class Visitor>
__device__ __forceinline__ void visit_tile_pair_both_ways(Columns& columns, point<T, D> const (&own)[R], size_type col_start,
                                                          int col_count, Visitor& out)
{
  constexpr int TS = B * R;
  constexpr int G  = column_groups_v<Columns>;
  static_assert(TS % 32 == 0, "column sums go by chunks of 32 columns");
  static_assert(!Diagonal || B % 32 == 0, "a diagonal tile's chunks hold whole warps' own points");
  int const l     = static_cast<int>(threadIdx.x) % 32;
  int const group = G == 1 ? 0 : static_cast<int>(threadIdx.x) / B;
  int const row   = row_lane<B, G>();  // own point r is row + r * B of the tile
  int start       = 32 * group;
  int own_last    = 0;  // Diagonal: the first point of this warp's last own chunk
  if constexpr (Diagonal) {
    int const w = row / 32;  // the warp's first own chunk: chunks before it hold no q > p
    start       = 32 * (w + ((group - w) % G + G) % G);
    own_last    = 32 * w + (R - 1) * B;
  }
  columns.stage(col_start, col_count);
  if constexpr (visitor_takes_staged_columns<Visitor>::value) { out.columns_staged(); }
  for (int first = start; first < col_count; first += 32 * G) {
    bool const full = first + 32 <= col_count;
#pragma unroll 1
    for (int kh = 0; kh < 32; kh += 8) {
      int const base = first ^ l ^ kh;  // first + (l ^ kh): first is a multiple of 32
      // (Full chunks and the last, partial one in loops of their own: padding columns read
      // column `first` and count nothing.)
      auto steps = [&](auto keep_all, auto compare_rows) {
#pragma unroll
        for (int kl = 0; kl < 8; ++kl) {
          int const q      = base ^ kl;  // column (l ^ k) of the chunk, k = kh + kl
          bool const valid = keep_all || q < col_count;
          out.template pair_both_ways<R>(own, columns.at(valid ? q : first).coords(),
                                         [&](int r) { return valid && (!compare_rows || q > row + r * B); });
          if (kl < 7) {
            out.pass_columns(kl ^ (kl + 1));
          } else if (kh < 24) {
            out.pass_columns((kh + 7) ^ (kh + 8));
          }
        }
      };
      if (Diagonal && first <= own_last) {
        steps(cuda::std::false_type{}, cuda::std::true_type{});
      } else if (full) {
        steps(cuda::std::true_type{}, cuda::std::false_type{});
      } else {
        steps(cuda::std::false_type{}, cuda::std::false_type{});
      }
    }
    out.end_columns(col_start + first + (l ^ 31), first + (l ^ 31) < col_count);
  }
}

/// The pairs of one tile pair into `out`: thread slot r's own point own[r] (own point
/// row_start + threadIdx.x + r * B of a row tile of row_count points) against the column tile of
/// col_count points at col_start, staged by `columns`. A diagonal tile pair (the same tile on
/// both sides, self and ordered mode) takes the balanced scheme. Shared by every traversal that
/// tiles (one launch's tile schedule; the frames of a batch). With column groups (B threads per
/// group) each group takes its share of the columns, or every G-th step of a diagonal tile.
template <int B, int R, class Columns, class T, int D, class Weight, class Visitor>
__device__ __forceinline__ void visit_tile_pair(Columns& columns, pair_mode mode, bool diagonal, point<T, D> const (&own)[R],
                                                Weight&& weight, size_type row_start, int row_count, size_type col_start,
                                                int col_count, Visitor& out)
{
  constexpr int TS   = B * R;
  constexpr int G    = column_groups_v<Columns>;  // the column source's groups (shared_tile's ColumnGroups)
  using stored       = typename Columns::stored;
  int const lane     = row_lane<B, G>();
  int const first_k  = 1 + (G == 1 ? 0 : static_cast<int>(threadIdx.x) / B);
  if constexpr (visitor_sums_columns<Visitor>::value) {
    if (mode == pair_mode::self) {
      if (diagonal) {
        visit_tile_pair_both_ways<true, B, R>(columns, own, row_start, row_count, out);
      } else {
        visit_tile_pair_both_ways<false, B, R>(columns, own, col_start, col_count, out);
      }
      return;
    }
  }
  if (diagonal) {
    columns.stage(row_start, row_count);
    if constexpr (visitor_takes_staged_columns<Visitor>::value) { out.columns_staged(); }
    if (mode == pair_mode::self) {
      for (int k = first_k; k <= TS / 2; k += G) {
        out.template step<R>([&](int r, auto&& use) {
          int const p = lane + r * B;
          int const q = diagonal_partner(p, k, TS);
          if (diagonal_self_pair(p, q, k, TS, row_count)) {
            // Keep self mode's promise (a_i, a_j) with i < j, so non-symmetric functors see one order.
            stored const s       = columns.at(q);
            point<T, D> const sc = s.coords();
            if (q > p) {
              use(own[r], sc, row_start + p, row_start + q, weight(r, s), true);
            } else {
              use(sc, own[r], row_start + q, row_start + p, weight(r, s), true);
            }
          }
        });
      }
    } else {  // ordered: every q != p
      for (int k = first_k; k < TS; k += G) {
        out.template step<R>([&](int r, auto&& use) {
          int const p = lane + r * B;
          int const q = diagonal_partner(p, k, TS);
          if (p < row_count && q < row_count) {
            stored const s = columns.at(q);
            use(own[r], s.coords(), row_start + p, row_start + q, weight(r, s), true);
          }
        });
      }
    }
  } else {
    // Full row tiles keep every pair; the last, partial row tile (cross and ordered mode, or
    // A smaller than a tile) evaluates every slot as a full tile does and drops the padding's
    // results: a branch around each pair made these tile pairs 2-3x slower.
    int j = 0;
    if constexpr (G > 1) { j = columns.first_column(col_count); }
    if (row_count == TS) {
      columns.for_each(col_start, col_count, [&](stored const& s) {
        out.template step<R>([&](int r, auto&& use) {
          use(own[r], s.coords(), row_start + lane + r * B, col_start + j, weight(r, s), true);
        });
        ++j;
      });
    } else {
      columns.for_each(col_start, col_count, [&](stored const& s) {
        out.template step<R>([&](int r, auto&& use) {
          int const p = lane + r * B;
          use(own[r], s.coords(), row_start + p, col_start + j, weight(r, s), p < row_count);
        });
        ++j;
      });
    }
  }
}

/// Units are tile pairs (flat indices of a tile_schedule). An input policy says how column points
/// reach the threads; thread t of a block holds own points row_start + t + r * B, r < R, in
/// registers, kept while consecutive units stay on one row tile.
///
/// Off-diagonal tile pairs visit every (own, column) pair; diagonal tiles of self mode use the
/// balanced scheme of Pitaksirianan et al. Sec. 3.4.1: own point p pairs with (p + k) mod TS
/// for k = 1..TS/2 (the last step only for p < TS/2), so every thread does the same work and
/// each unordered pair is visited once. In self mode pairs come as (a_i, a_j) with i < j. In
/// cross and ordered mode the padding of a partial row tile is visited too (keep false):
/// functors must be free of side effects.
template <class Input, class Points>
struct tile_traversal {
  static constexpr int block_threads     = Input::block_threads;
  static constexpr int min_blocks_per_sm = min_blocks_per_sm_v<Input>;
  static constexpr int G                 = column_groups_v<Input>;
  static constexpr int B                 = row_threads_v<Input>;  ///< threads per column group (own-point slots)
  static constexpr int R                 = Input::points_per_thread;
  static constexpr int TS                = B * R;
  using T                                = typename Points::value_type;
  static constexpr int D                 = Points::dims;
  static constexpr bool W                = Points::weighted;
  using source                           = typename Input::template column_source<Points>;
  using stored                           = typename source::stored;

  struct params {
    kernel_inputs<Points> in;
    tile_schedule sched;
  };
  using temp_storage = typename source::temp_storage;
  /// A column tile too large for static shared memory takes the launch's dynamic (engine.cuh).
  static constexpr std::size_t dynamic_bytes = dynamic_bytes_v<source>;

  // References to the kernel's parameters (constant memory): copies would hold them in registers.
  kernel_inputs<Points> const& in;
  tile_schedule const& sched;
  source columns;

  __device__ tile_traversal(params const& p, temp_storage& storage, unsigned char* dynamic = nullptr)
    : in(p.in), sched(p.sched), columns(storage, dynamic, p.in.b, p.in.vector_aligned)
  {
  }

  /// Whether Visitor's kernels take the sub-tile pools (visit_by_sub_tiles): forms per sub-tile
  /// pair, and passes over windows of the bins deciding per sub-tile pair which pass counts it
  /// (smaller boxes span fewer slots: fewer passes visit each pair).
  template <class Visitor>
  static constexpr bool sub_tile_pools = has_sub_tile_columns<source>::value && G == 1 && B / 32 > 1 &&
                                         (visitor_has_sub_tile_forms<Visitor>::value || visitor_skips_tile_pairs<Visitor>::value);

  /// Kernels of 256 threads keep two blocks per SM (128 registers) where the pools' kernels take
  /// up to 4 points per thread (the pool's bookkeeping took the 1024-point tile's RDF kernel to
  /// 129) and where the agent asks for it (visitor_wants_two_blocks).
  template <class Visitor>
  static constexpr int min_blocks_with()
  {
    bool const two = (sub_tile_pools<Visitor> && R <= 4) || visitor_wants_two_blocks<Visitor>::value;
    return two && block_threads == 256 && min_blocks_per_sm < 2 ? 2 : min_blocks_per_sm;
  }

  /// The block's count of drawn sub-tile pool tickets.
  __device__ static int& sub_tile_tickets()
  {
    __shared__ int tickets;
    return tickets;
  }

  /// A full off-diagonal tile pair of ordered points with sub-tile boxes (tile_order.cuh): its
  /// S x S sub-tile pairs (S = one sub-tile per warp) are a pool the block's warps draw from;
  /// for each, a warp loads the row sub-tile's points into `own` (clobbered: the caller reloads
  /// them) and takes the cheapest form for that sub-tile pair (forms of smaller boxes: more of
  /// the minimum image's pairs take the open-box or fixed form, more are counted outside at
  /// once). Forms differ in cost, so warps with fixed sub-tiles did unequal work and waited at
  /// the next staging barrier (H100: barrier stalls 0.58 per issue); the pool balances them. The
  /// branch is warp-uniform, and the loops over a sub-tile's columns have no barrier.
  /// The pool's tickets (sub_tile_tickets(), zeroed by run before the first staging barrier):
  /// each warp draws until its first empty ticket, so a pool hands out tickets 0 .. S^2 + S - 1,
  /// and the warp that draws the last one zeroes the count for the next pool (every other warp
  /// has drawn its last ticket of this pool; the next staging barrier orders the store).
  template <class Visitor>
  __device__ __forceinline__ void visit_by_sub_tiles(Visitor& out, size_type row, size_type col, size_type row_start,
                                                     size_type col_start, point<T, D> (&own)[R], T (&own_w)[R],
                                                     unsigned long long cullable, bool decide_each)
  {
    constexpr int S     = B / 32;  // sub-tiles per tile: one per warp
    constexpr int items = S * S;
    // (Passes count a tile pair all outside in one pass only: per sub-tile pair, below.)
    if constexpr (!visitor_skips_tile_pairs<Visitor>::value) {
      if (out.counted_outside(in.boxes_a[row], in.boxes_b[col], cullable, threadIdx.x == 0)) { return; }
    }
    // The sub-tiles' boxes (after the tiles' boxes, tile_order.cuh), rows then columns, in shared
    // memory: read per drawn ticket without holding pointers in registers.
    __shared__ tile_box<T, D> sub_boxes[2 * S];
    columns.stage_with(col_start, TS, [&] {
      if (threadIdx.x < 2 * S) {
        int const t = static_cast<int>(threadIdx.x);
        sub_boxes[t] = t < S ? in.boxes_a[(in.a.size + TS - 1) / TS + row * S + t] : in.boxes_b[(in.b.size + TS - 1) / TS + col * S + t - S];
      }
    });
    int const lane = static_cast<int>(threadIdx.x % 32);
    constexpr unsigned long long sub_pairs = 32ull * R * 32ull * R;  // a row sub-tile x a column sub-tile
    auto weight = [&](int r, stored const& s) {
      if constexpr (W) {
        return own_w[r] * s.weight();
      } else {
        return unweighted{};
      }
    };
    for (;;) {
      int ticket = 0;
      if (lane == 0) {
        ticket = atomicAdd(&sub_tile_tickets(), 1);
        if (ticket == items + S - 1) { sub_tile_tickets() = 0; }
      }
      ticket = __shfl_sync(0xffffffffu, ticket, 0);
      if (ticket >= items) { break; }
      int const w = ticket / S, k = ticket % S;
      if constexpr (visitor_skips_tile_pairs<Visitor>::value) {
        // This pass's decision for this sub-tile pair (whole in a window, or its own share).
        if (decide_each && !out.takes_tile_pair(sub_boxes[w], sub_boxes[S + k])) { continue; }
      }
      int const base = 32 * w + lane;  // row sub-tile w: positions 32 w + lane + B r of the row tile
#pragma unroll
      for (int r = 0; r < R; ++r) {
        own[r] = in.a.load_readonly(row_start + base + r * B);
        if constexpr (W) { own_w[r] = in.a.weight_readonly(row_start + base + r * B); }
      }
      out.in_tile_pair(sub_boxes[w], sub_boxes[S + k], cullable != 0 ? sub_pairs : 0ull, lane == 0, [&](auto& v) {
        columns.for_each_in_sub_tile(k, [&](int j, stored const& s) {
          v.template step<R>([&](int r, auto&& use) {
            use(own[r], s.coords(), row_start + base + r * B, col_start + j, weight(r, s), true);
          });
        });
      });
    }
  }

  /// The units of `units`, their pairs into `out` (engine.cuh). The state lives in locals of this
  /// one loop, as the hand-written kernel had it: held in members of the traversal, the same
  /// loop compiled to 148 registers instead of 120 (SDH, shared_tile<256, 8>, sm_90).
  template <class Source, class Visitor>
  __device__ void run(Source& units, Visitor& out)
  {
    point<T, D> own[R];
    T own_w[R] = {};  // (set with the row; initialized so the front end sees no read before a write)
    size_type loaded_row = -1;
    int row_count        = 0;
    size_type row = 0, col = 0;
    auto weight = [&](int r, stored const& s) {
      if constexpr (W) {
        return own_w[r] * s.weight();
      } else {
        return unweighted{};
      }
    };

    if constexpr (sub_tile_pools<Visitor>) {
      if (threadIdx.x == 0) { sub_tile_tickets() = 0; }  // before the first staging barrier
    }

    // A static split's units are consecutive: locate the first, then step through the schedule
    // (this loop form also compiled to the fewest registers). Units drawn at run time are located.
    if constexpr (Source::consecutive) {
      if (units.any()) { sched.locate(static_cast<size_type>(units.first()), row, col); }
    }
    for (unsigned long long unit = 0; units.next(unit);) {
      if constexpr (!Source::consecutive) { sched.locate(static_cast<size_type>(unit), row, col); }
      out.begin_unit();

      size_type const row_start = row * TS;
      bool decide_each = false;  // passes: decide per sub-tile pair (visit_by_sub_tiles)
      if constexpr (visitor_skips_tile_pairs<Visitor>::value) {
        // A pass over a window of the bins skips the tile pairs it counts nothing of, before
        // loading their points. (Only those kernels compile this: moved into every kernel's loop,
        // it took the SDH's 2048-point tile kernel from 129 to 144 registers.)
        bool takes = true;
        if (in.boxes_a != nullptr) {
          if constexpr (sub_tile_pools<Visitor>) {
            // Full off-diagonal tile pairs go by sub-tile pairs: one whose slots lie whole in a
            // window is counted whole by that window's pass; any other is staged by each pass
            // whose window meets it, and its sub-tile pairs are decided on their own boxes
            // (visit_by_sub_tiles: smaller boxes span fewer slots, so fewer passes count each).
            bool const by_sub_tiles = in.sub_tiles == B / 32 && !sched.is_diagonal(row, col) &&
                                      in.a.size - row_start >= TS && in.b.size - col * TS >= TS;
            int const decision = by_sub_tiles ? out.tile_pair_decision(in.boxes_a[row], in.boxes_b[col])
                                              : (out.takes_tile_pair(in.boxes_a[row], in.boxes_b[col]) ? 1 : 0);
            takes       = decision != 0;
            decide_each = decision == 2;
          } else {
            takes = out.takes_tile_pair(in.boxes_a[row], in.boxes_b[col]);
          }
        }
        if (!takes) {
          if (!end_unit(out, units, unit, 0)) { break; }
          if constexpr (Source::consecutive) { sched.advance(row, col); }
          continue;
        }
      }
      if (row != loaded_row) {
        if (loaded_row >= 0) { out.end_row(loaded_row * TS, row_count); }
        loaded_row = row;
        row_count  = static_cast<int>(in.a.size - row_start < TS ? in.a.size - row_start : TS);
        load_own_points<B, R, G>(in.a, row_start, row_count, own, own_w);
      }
      size_type const col_start = col * TS;
      int const col_count       = static_cast<int>(in.b.size - col_start < TS ? in.b.size - col_start : TS);

      bool const diagonal            = sched.is_diagonal(row, col);
      unsigned long long const bound = static_cast<unsigned long long>(row_count) * static_cast<unsigned long long>(col_count);
      auto visit = [&](auto& v) {
        visit_tile_pair<B, R>(columns, in.mode, diagonal, own, weight, row_start, row_count, col_start, col_count, v);
      };
      if constexpr (visitor_has_tile_forms<Visitor>::value && !visitor_sums_columns<Visitor>::value) {
        if (in.boxes_a != nullptr) {
          // Whole off-diagonal tile pairs of unweighted points may be counted at once.
          unsigned long long const cullable = (diagonal || W) ? 0ull : bound;
          bool by_sub_tiles = false;
          if constexpr (sub_tile_pools<Visitor>) {
            by_sub_tiles = in.sub_tiles == B / 32 && !diagonal && row_count == TS && col_count == TS;
            if constexpr (visitor_skips_tile_pairs<Visitor>::value && !visitor_has_sub_tile_forms<Visitor>::value) {
              // A pass counting a tile pair whole takes it whole (the pool's reloads are for
              // deciding per sub-tile pair; (r_p, pi), 65536 bins: 0.867 s by the pool, 0.81 s whole).
              by_sub_tiles = by_sub_tiles && decide_each;
            }
            if (by_sub_tiles) {
              visit_by_sub_tiles(out, row, col, row_start, col_start, own, own_w, cullable, decide_each);
              load_own_points<B, R, G>(in.a, row_start, row_count, own, own_w);  // the pool clobbered them
            }
          }
          if (!by_sub_tiles) { out.in_tile_pair(in.boxes_a[row], in.boxes_b[col], cullable, threadIdx.x == 0, visit); }
        } else {
          visit(out);
        }
      } else {
        visit(out);
      }
      if (!end_unit(out, units, unit, bound)) { break; }
      if constexpr (Source::consecutive) { sched.advance(row, col); }
    }
    if (loaded_row >= 0) { out.end_row(loaded_row * TS, row_count); }
  }
};

/// Baseline: one thread per point of A, partners read one at a time from global memory, self
/// mode walks j > i (a divergent triangle). Units are (block of A, chunk of partners), so that
/// the output agent can flush between chunks; launched with one block per block of A and the
/// static split, block b takes exactly its own units.
template <class Input, class Points>
struct naive_traversal {
  static constexpr int block_threads     = Input::block_threads;
  static constexpr int min_blocks_per_sm = 0;  // the compiler's register budget (the baseline as it always ran)
  static constexpr int B                 = Input::block_threads;
  using T                                = typename Points::value_type;
  static constexpr int D                 = Points::dims;
  static constexpr bool W                = Points::weighted;

  struct params {
    kernel_inputs<Points> in;
    size_type chunk;   ///< partners per unit
    size_type chunks;  ///< units per block of A
  };
  struct temp_storage {};

  params const& p;

  __device__ naive_traversal(params const& p_, temp_storage&) : p(p_) {}

  template <class Source, class Visitor>
  __device__ void run(Source& units, Visitor& out)
  {
    static_assert(Source::consecutive, "the naive traversal runs on the static split (a block's own units)");
    if (!units.any()) { return; }
    kernel_inputs<Points> const& in = p.in;
    size_type const block_first     = static_cast<size_type>(units.first() / p.chunks) * B;
    size_type const i               = block_first + threadIdx.x;
    size_type const nb              = in.b.size;
    bool const valid                = i < in.a.size;
    point<T, D> const own           = valid ? in.a[i] : point<T, D>{};
    T const own_w                   = valid ? in.a.weight(i) : T(0);
    size_type j0                    = 0;
    for (unsigned long long unit = 0; units.next(unit); j0 += p.chunk) {
      out.begin_unit();
      size_type const j1 = j0 + p.chunk < nb ? j0 + p.chunk : nb;
      if (valid) {
        size_type j = (in.mode == pair_mode::self && j0 <= i) ? i + 1 : j0;
        for (; j < j1; ++j) {
          if (in.mode == pair_mode::ordered && j == i) { continue; }
          if constexpr (W) {
            out.visit(0, own, in.b[j], i, j, own_w * in.b.weight(j), true);
          } else {
            out.visit(0, own, in.b[j], i, j, unweighted{}, true);
          }
        }
      }
      // Bound: B own points times the chunk's partners (in self mode those past the block's first point).
      size_type const from = in.mode == pair_mode::self && j0 <= block_first ? block_first + 1 : j0;
      if (!end_unit(out, units, unit, static_cast<unsigned long long>(B) * static_cast<unsigned long long>(j1 > from ? j1 - from : 0))) {
        break;
      }
    }
    size_type const rows = in.a.size - block_first;
    out.end_row(block_first, static_cast<int>(rows < B ? rows : B));
  }
};

}  // namespace twobody::detail
