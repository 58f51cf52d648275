#pragma once

/// Visitors: what the engine (engine.cuh) does with the pairs a traversal visits.
///  - statistic_visitor: f(a, b) into a statistic agent (reduction, histogram, per-point sum);
///  - join_visitor: an emitter e(a, b, i, j, record) -> bool into a record agent (pages of a
///    direct output buffer, the two passes, a record counter).
///
/// A traversal hands pairs over in one of two ways:
///  - step<R>(pair_of): a block-wide step of R pairs per thread (all 32 lanes of every warp call
///    it together, so warp-wide agents may vote). pair_of(r, use) calls use(a, b, i, j, w, keep)
///    for thread slot r's pair if that pair exists; keep false marks padding (evaluated, then
///    dropped: cheaper than a branch around it);
///  - visit(r, a, b, i, j, w, keep): one pair, from any lane (divergent traversals);
///  - visit_by_warp(a, b, i, j, w, leader): one pair from all 32 lanes of a warp at once (the
///    rows' exact recomputation), for visitors with warp_visits.
/// i and j are input indices (only visitors with uses_indices read them, so other traversals
/// may skip working them out); w is the pair's weight, or `unweighted`.

#include <twobody/math/tile_forms.cuh>
#include <twobody/points.cuh>

#include <cuda/std/type_traits>

namespace twobody::detail {

/// The weight of a pair of an unweighted set.
struct unweighted {};

/// Output agents that keep one accumulator per own point (per-point reductions) declare
/// `static constexpr bool per_row = true`: they take accumulate_row(r, v) with the own point's
/// register slot r, and end_row(row_start, row_count) whenever a thread's own points change.
template <class Agent, class = void>
struct is_per_row_agent : cuda::std::false_type {};
template <class Agent>
struct is_per_row_agent<Agent, cuda::std::void_t<decltype(Agent::per_row)>> : cuda::std::bool_constant<Agent::per_row> {};

/// Per-row agents of symmetric functors in self mode declare `static constexpr bool column_sums =
/// true`: an off-diagonal tile pair then visits each pair once and takes its value for both points
/// (accumulate_both(r, v, keep): own point r and this lane's column), with the column sums passed
/// between lanes after each step (pass_columns(lane_mask): from lane ^ lane_mask) and added out
/// once per 32 columns (end_columns(j, valid)); a diagonal tile pair visits both orders of its
/// pairs (rows only).
template <class Agent, class = void>
struct has_column_sums : cuda::std::false_type {};
template <class Agent>
struct has_column_sums<Agent, cuda::std::void_t<decltype(Agent::column_sums)>> : cuda::std::bool_constant<Agent::column_sums> {};

/// Agents that act once a tile pair's columns are staged declare columns_staged() (per-point
/// sums: warp 0 waits for the zeroing there); tile traversals call it right after the staging
/// barrier (tile_traversal.cuh, visitor_takes_staged_columns).
template <class Agent, class = void>
struct has_columns_staged : cuda::std::false_type {};
template <class Agent>
struct has_columns_staged<Agent, cuda::std::void_t<decltype(cuda::std::declval<Agent&>().columns_staged())>> : cuda::std::true_type {};

/// Output agents whose atomics cost the same kept or not declare `static constexpr bool
/// masked_accumulate = true` and take accumulate_masked(v[, w], keep): padding pairs then add
/// zero instead of branching around each update.
template <class Agent, class = void>
struct has_masked_accumulate : cuda::std::false_type {};
template <class Agent>
struct has_masked_accumulate<Agent, cuda::std::void_t<decltype(Agent::masked_accumulate)>>
  : cuda::std::bool_constant<Agent::masked_accumulate> {};

/// Masked agents that handle the rare part of an update once per step declare `static constexpr
/// bool step_hooks = true`: in a step they take accumulate_masked_at(r, v[, w], keep) with the
/// pair's thread slot r, and end_step<R>() after the step's R pairs (all 32 lanes of the warp
/// together: one vote, and a branch taken only when a lane has such updates, instead of a branch
/// per pair). Single pairs (visit) still take accumulate_masked.
template <class Agent, class = void>
struct has_step_hooks : cuda::std::false_type {};
template <class Agent>
struct has_step_hooks<Agent, cuda::std::void_t<decltype(Agent::step_hooks)>> : cuda::std::bool_constant<Agent::step_hooks> {};

/// Record agents whose push is called by all 32 lanes together (push(pass, record): warp-owned
/// pages) declare `static constexpr bool warp_collective = true`.
template <class Agent, class = void>
struct is_warp_collective_agent : cuda::std::false_type {};
template <class Agent>
struct is_warp_collective_agent<Agent, cuda::std::void_t<decltype(Agent::warp_collective)>>
  : cuda::std::bool_constant<Agent::warp_collective> {};

/// Visitors that take a pair from a whole warp at once (visit_by_warp) declare
/// `static constexpr bool warp_visits = true`; traversals that recompute a pair by a warp use it.
template <class Visitor, class = void>
struct has_warp_visits : cuda::std::false_type {};
template <class Visitor>
struct has_warp_visits<Visitor, cuda::std::void_t<decltype(Visitor::warp_visits)>> : cuda::std::bool_constant<Visitor::warp_visits> {};

/// Visitors that take pairs in any order and from any unit (statistic agents, whose sums and
/// counts do not depend on when a pair arrives) declare `static constexpr bool
/// visits_in_any_order = true`: a traversal may then hold back the pairs it recomputes exactly and
/// visit them later, in another unit, provided that unit's end_unit bound counts them.
template <class Visitor, class = void>
struct takes_visits_in_any_order : cuda::std::false_type {};
template <class Visitor>
struct takes_visits_in_any_order<Visitor, cuda::std::void_t<decltype(Visitor::visits_in_any_order)>>
  : cuda::std::bool_constant<Visitor::visits_in_any_order> {};

/// Histogram agents that can count a whole tile pair into their outside slot declare `static
/// constexpr bool bulk_outside = true` and take all_outside(lower) (whether every value >= lower
/// lands there) and add_outside(pairs) (from one thread).
template <class Agent, class = void>
struct has_bulk_outside : cuda::std::false_type {};
template <class Agent>
struct has_bulk_outside<Agent, cuda::std::void_t<decltype(Agent::bulk_outside)>> : cuda::std::bool_constant<Agent::bulk_outside> {};

/// Histogram agents whose bin map needs no clamp for values proven in range declare `static
/// constexpr bool inside_slots = true` and take all_inside(upper) (whether every value in
/// [0, upper] has its slot without the clamp) and accumulate_inside_at(r, v[, w], keep).
template <class Agent, class = void>
struct has_inside_slots : cuda::std::false_type {};
template <class Agent>
struct has_inside_slots<Agent, cuda::std::void_t<decltype(Agent::inside_slots)>> : cuda::std::bool_constant<Agent::inside_slots> {};

/// Histogram agents whose passes visit only some tile pairs declare `static constexpr bool
/// window_units = true` and take enter_tile_pair(lower, upper, bounded) (whether this pass counts
/// any pair whose value lies in [lower, upper]) before a tile pair's pairs.
template <class Agent, class = void>
struct has_window_units : cuda::std::false_type {};
template <class Agent>
struct has_window_units<Agent, cuda::std::void_t<decltype(Agent::window_units)>> : cuda::std::bool_constant<Agent::window_units> {};

/// Agents that take every gridDim.x-th tile pair (strided_units) when their functor has tile
/// forms declare `static constexpr bool strides_formed_units = true`.
template <class Agent, class = void>
struct strides_formed_units : cuda::std::false_type {};
template <class Agent>
struct strides_formed_units<Agent, cuda::std::void_t<decltype(Agent::strides_formed_units)>>
  : cuda::std::bool_constant<Agent::strides_formed_units> {};

/// A visitor whose steps evaluate G, a form of its functor that holds for one tile pair, and
/// with Inside, take each value's slot without the clamp (every value proven in range).
template <class Visitor, class G, bool Inside = false>
struct form_view {
  Visitor& v;
  G g;
  template <int R, class PairOf>
  __device__ __forceinline__ void step(PairOf&& pair_of)
  {
    v.template step_with<R, Inside>(g, pair_of);
  }
};

/// Pairs through f into a statistic agent (accumulate(v[, w]), end_unit(bound), finish()).
template <class Agent, class F>
struct statistic_visitor {
  static constexpr bool can_fail                 = false;
  /// Per-point agents close a thread's points at end_row: their pairs come in row order.
  static constexpr bool visits_in_any_order      = !is_per_row_agent<Agent>::value;
  static constexpr bool uses_indices             = false;
  static constexpr bool compiler_register_budget = false;
  struct params {
    typename Agent::params agent;
    F f;
  };
  using temp_storage = typename Agent::temp_storage;
  using functor_type = F;
  using agent_type   = Agent;

  Agent out;
  F f;

  __device__ statistic_visitor(params const& p, temp_storage& storage, unsigned char* smem)
    : out(p.agent, storage, smem), f(p.f)
  {
  }

  template <bool InStep = false, bool Inside = false, class V, class W>
  __device__ __forceinline__ void accept(int r, V const& v, W const& w, bool keep)
  {
    constexpr bool weighted = !cuda::std::is_same_v<W, unweighted>;
    if constexpr (Inside) {
      if constexpr (weighted) {
        out.accumulate_inside_at(r, v, w, keep);
      } else {
        out.accumulate_inside_at(r, v, keep);
      }
    } else if constexpr (is_per_row_agent<Agent>::value) {
      if (keep) { out.accumulate_row(r, v); }
    } else if constexpr (InStep && has_step_hooks<Agent>::value) {
      if constexpr (weighted) {
        out.accumulate_masked_at(r, v, w, keep);
      } else {
        out.accumulate_masked_at(r, v, keep);
      }
    } else if constexpr (has_masked_accumulate<Agent>::value) {
      if constexpr (weighted) {
        out.accumulate_masked(v, w, keep);
      } else {
        out.accumulate_masked(v, keep);
      }
    } else if (keep) {
      if constexpr (weighted) {
        out.accumulate(v, w);
      } else {
        out.accumulate(v);
      }
    }
  }

  template <int R, class PairOf>
  __device__ __forceinline__ void step(PairOf&& pair_of)
  {
    step_with<R>(f, pair_of);
  }

  /// A step whose pairs go through g, a form of f (tile_forms.cuh); Inside: values proven in range.
  template <int R, bool Inside = false, class G, class PairOf>
  __device__ __forceinline__ void step_with(G const& g, PairOf&& pair_of)
  {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      pair_of(r, [&](auto const& a, auto const& b, size_type, size_type, auto const& w, bool keep) {
        accept<true, Inside>(r, g(a, b), w, keep);
      });
    }
    if constexpr (has_step_hooks<Agent>::value) { out.template end_step<R>(); }
  }

  /// The pairs of a tile pair whose points lie in boxes `a` and `b` (block-uniform): visit(v)
  /// with a visitor v that evaluates the cheapest exact form of f there (tile_forms.cuh). A
  /// histogram whose bin map sends every value of the tile pair to the outside slot takes its
  /// `cullable` pairs there at once instead (0: not allowed, e.g. a diagonal or weighted tile
  /// pair); one whose bin map has every value in range takes the slots without the clamp (for
  /// the minimum image only in the direct form: each pairing of a form and the clamp is a loop of
  /// its own, and registers are what the 2048-point tile's kernel has least of).
  /// `adder`: the one thread of those that call this for the same pairs (the block, or a warp
  /// for its own points and a column sub-tile) that adds them to the outside slot.
  template <class Box, class Visit>
  __device__ __forceinline__ void in_tile_pair(Box const& a, Box const& b, unsigned long long cullable, bool adder, Visit&& visit)
  {
    auto const form = tile_form_of(f, a, b);
    using form_t    = decltype(form);
    // (The outside test written out here, not through counted_outside below: through the helper
    // ptxas gave the SDH's 2048-point tile kernel 129 registers instead of 128, one block per SM
    // instead of two, and the one-call SDH fell from 2.57 to 2.22 T pairs/s on the H100.)
    if constexpr (has_bulk_outside<Agent>::value) {
      if (cullable != 0 && out.all_outside(form.lower)) {
        if (adder) { out.add_outside(cullable); }
        return;
      }
    }
    if constexpr (has_inside_slots<Agent>::value) {
      if (form.bounded && out.all_inside(form.upper)) {
        if constexpr (!form_t::images_v) {
          form_view<statistic_visitor, F, true> v{*this, f};
          visit(v);
          return;
        } else if (form.kind == tile_form_kind::direct) {
          form_view<statistic_visitor, typename form_t::direct, true> v{*this, {}};
          visit(v);
          return;
        }
      }
    }
    if constexpr (!form_t::images_v) {
      visit(*this);
    } else if (form.kind == tile_form_kind::direct) {
      form_view<statistic_visitor, typename decltype(form)::direct> v{*this, {}};
      visit(v);
    } else if (form.kind == tile_form_kind::fixed) {
      form_view<statistic_visitor, decltype(form.images)> v{*this, form.images};
      visit(v);
    } else {
      visit(*this);
    }
  }

  /// Whether this launch visits the tile pair of boxes a and b at all (block-uniform; before its
  /// pairs, and before in_tile_pair): passes over windows of the bins skip those whose values
  /// they do not count.
  template <class Box>
  __device__ __forceinline__ bool takes_tile_pair(Box const& a, Box const& b)
  {
    return by_tile_bounds(a, b, true, [&](auto const& form) { return out.enter_tile_pair(form.lower, form.upper, form.bounded); });
  }

  /// For a tile pair of boxes a and b whose sub-tile pairs may each be decided by takes_tile_pair
  /// on their own boxes (block-uniform): 0 skip it, 1 count it whole here (decided), 2 decide per
  /// sub-tile pair (privatized_histogram.cuh, enter_tile_pair_of_sub_tiles).
  template <class Box>
  __device__ __forceinline__ int tile_pair_decision(Box const& a, Box const& b)
  {
    return by_tile_bounds(a, b, 1, [&](auto const& form) {
      return out.enter_tile_pair_of_sub_tiles(form.lower, form.upper, form.bounded);
    });
  }

  /// decide(the bounds of boxes a and b) for agents with window units; `otherwise` for others.
  template <class Box, class R, class Decide>
  __device__ __forceinline__ R by_tile_bounds(Box const& a, Box const& b, R otherwise, Decide&& decide)
  {
    if constexpr (has_window_units<Agent>::value) {
      return decide(tile_form_of(f, a, b));
    } else {
      return otherwise;
    }
  }

  /// Whether the pairs of boxes a and b all land in the outside slot (then `adder` adds the
  /// `cullable` of them there; 0: not allowed).
  template <class Box>
  __device__ __forceinline__ bool counted_outside(Box const& a, Box const& b, unsigned long long cullable, bool adder)
  {
    if constexpr (has_bulk_outside<Agent>::value) {
      if (cullable != 0 && out.all_outside(tile_form_of(f, a, b).lower)) {
        if (adder) { out.add_outside(cullable); }
        return true;
      }
    }
    return false;
  }

  template <class P, class W>
  __device__ __forceinline__ void visit(int r, P const& a, P const& b, size_type, size_type, W const& w, bool keep)
  {
    auto const v = f(a, b);
    if (keep) { accept(r, v, w, true); }
  }

  /// `pairs` that a traversal proved to land in the outside slot without visiting them
  /// (cell_list_traversal.cuh), from any thread.
  __device__ __forceinline__ void count_outside(unsigned long long pairs)
  {
    static_assert(has_bulk_outside<Agent>::value, "only histograms whose bin map has an outside threshold count pairs unvisited");
    out.add_outside(pairs);
  }

  /// One column point against own points own[0, R) (agents with column_sums); keep(r) false:
  /// the pair of own point r counts for neither point (a padding column; in a diagonal tile, a
  /// pair the other order visits).
  template <int R, class P, class Keep>
  __device__ __forceinline__ void pair_both_ways(P const (&own)[R], P const& column, Keep const& keep)
  {
#pragma unroll
    for (int r = 0; r < R; ++r) { out.accumulate_both(r, f(own[r], column), keep(r)); }
  }
  __device__ __forceinline__ void pass_columns(int lane_mask) { out.pass_columns(lane_mask); }
  __device__ __forceinline__ void end_columns(size_type j, bool valid) { out.end_columns(j, valid); }
  __device__ __forceinline__ void columns_staged() { out.columns_staged(); }  // (has_columns_staged agents)

  __device__ void begin_unit() {}
  __device__ void end_unit(unsigned long long bound) { out.end_unit(bound); }
  __device__ void end_row(size_type row_start, int row_count)
  {
    if constexpr (is_per_row_agent<Agent>::value) { out.end_row(row_start, row_count); }
  }
  __device__ bool failed() const { return false; }
  __device__ void rollback() {}
  __device__ void finish() { out.finish(); }
};

/// Pairs through an emitter into a record agent. Its hot path only tests pairs: a bit mask per
/// step says which of a thread's R pairs passed, and the agent's emit_mask(mask, rebuild)
/// builds those records again (rare), so the page logic stays out of the unrolled loop.
template <class Agent, class Emitter>
struct join_visitor {
  using Record                       = typename Emitter::record_type;
  static constexpr bool can_fail                 = Agent::can_fail;
  static constexpr bool uses_indices             = true;
  static constexpr bool compiler_register_budget = true;  // see engine_min_blocks_v
  static constexpr bool warp_visits              = true;
  struct params {
    typename Agent::params agent;
    Emitter e;
  };
  struct temp_storage {};

  Agent out;
  Emitter const& e;  ///< the kernel parameter itself

  __device__ join_visitor(params const& p, temp_storage&, unsigned char*) : out(p.agent), e(p.e) {}

  template <int R, class PairOf>
  __device__ __forceinline__ void step(PairOf&& pair_of)
  {
    Record rec{};
    unsigned mask = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      pair_of(r, [&](auto const& a, auto const& b, size_type i, size_type j, auto const&, bool keep) {
        if (keep && e(a, b, i, j, rec)) { mask |= 1u << r; }
      });
    }
    out.template emit_mask<R>(mask, [&](int r, Record& made) {
      pair_of(r, [&](auto const& a, auto const& b, size_type i, size_type j, auto const&, bool) { e(a, b, i, j, made); });
    });
  }

  template <class P, class W>
  __device__ __forceinline__ void visit(int, P const& a, P const& b, size_type i, size_type j, W const&, bool keep)
  {
    if (!keep) { return; }
    Record rec;
    if (e(a, b, i, j, rec)) { out.push(rec); }
  }

  /// One pair handed over by a whole warp (all 32 lanes call it with the same pair, and the
  /// `leader` lane's call counts): warp-owned pages push it together.
  template <class P, class W>
  __device__ __forceinline__ void visit_by_warp(P const& a, P const& b, size_type i, size_type j, W const&, bool leader)
  {
    Record rec{};
    bool const pass = leader && e(a, b, i, j, rec);
    if constexpr (is_warp_collective_agent<Agent>::value) {
      out.push(pass, rec);
    } else if (pass) {
      out.push(rec);
    }
  }

  __device__ void begin_unit() { out.begin_unit(); }
  __device__ void end_unit(unsigned long long) {}
  __device__ void end_row(size_type, int) {}
  __device__ bool failed() const { return out.failed(); }
  __device__ void rollback() { out.rollback(); }
  __device__ void finish() { out.finish(); }
};

}  // namespace twobody::detail
