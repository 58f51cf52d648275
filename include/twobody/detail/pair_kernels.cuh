#pragma once

#include <twobody/detail/tile_schedule.cuh>
#include <twobody/points.cuh>

#include <cuda/std/type_traits>

namespace twobody::detail {

/// Output agents that keep one accumulator per own point (per-point reductions) declare
/// `static constexpr bool per_row = true`: the kernels then call accumulate_row(r, v) with
/// the own point's register slot r, and end_row(row_start, row_count) whenever a thread's
/// own points change and at the end.
template <class Agent, class = void>
struct is_per_row_agent : cuda::std::false_type {};
template <class Agent>
struct is_per_row_agent<Agent, cuda::std::void_t<decltype(Agent::per_row)>> : cuda::std::bool_constant<Agent::per_row> {};

/// Output agents whose atomics cost the same kept or not declare `static constexpr bool
/// masked_accumulate = true` and take accumulate_masked(v[, w], keep): the padded own points of
/// a partial row tile then add zero instead of branching around each update.
template <class Agent, class = void>
struct has_masked_accumulate : cuda::std::false_type {};
template <class Agent>
struct has_masked_accumulate<Agent, cuda::std::void_t<decltype(Agent::masked_accumulate)>>
  : cuda::std::bool_constant<Agent::masked_accumulate> {};

/// Everything a pair kernel needs to know about its inputs; trivially copyable.
template <class Points>
struct kernel_inputs {
  pair_mode mode;
  Points a;  ///< rows: own points, held in registers
  Points b;  ///< columns: streamed through the input policy (== a in self and ordered mode)
  bool vector_aligned;  ///< coordinate arrays 16-byte aligned (vector loads allowed)
};

/// Blocks per SM an input policy asks the compiler to fit (its min_blocks_per_sm, else 1).
template <class Input, class = void>
inline constexpr int min_blocks_per_sm_v = 1;
template <class Input>
inline constexpr int min_blocks_per_sm_v<Input, cuda::std::void_t<decltype(Input::min_blocks_per_sm)>> =
  Input::min_blocks_per_sm;

/// The one tiled kernel: an input policy (how column points reach the threads), an output
/// agent (where pair values go) and the user functor, composed at compile time.
///
/// A persistent grid walks the flat tile-pair schedule; each block owns an equal range.
/// Thread t of a block holds own points row_start + t + r * B, r < R, in registers.
/// In self mode f is always called as f(a_i, a_j) with i < j (rows never pass columns).
/// Off-diagonal tile pairs visit every (own, column) pair; diagonal tiles of self mode use
/// the balanced scheme of Pitaksirianan et al. Sec. 3.4.1: own point p pairs with
/// (p + k) mod TS for k = 1..TS/2 (the last step only for p < TS/2), so every thread does
/// the same work and each unordered pair is visited once. In cross and ordered mode, f may also
/// be called on pairs whose result is dropped (the padding of a partial row tile): functors
/// must be free of side effects.
template <class Input, class Agent, class Points, class F>
__global__ void __launch_bounds__(Input::block_threads, min_blocks_per_sm_v<Input>)
  tiled_pair_kernel(kernel_inputs<Points> in, F f, typename Agent::params out_params, tile_schedule sched)
{
  constexpr int B  = Input::block_threads;
  constexpr int R  = Input::points_per_thread;
  constexpr int TS = B * R;
  using T          = typename Points::value_type;
  constexpr int D  = Points::dims;
  constexpr bool W = Points::weighted;
  using source     = typename Input::template column_source<Points>;
  using stored     = typename source::stored;

  __shared__ typename source::temp_storage source_storage;
  __shared__ typename Agent::temp_storage agent_storage;
  extern __shared__ __align__(16) unsigned char dynamic_smem[];

  Agent out(out_params, agent_storage, dynamic_smem);
  source columns(source_storage, in.b, in.vector_aligned);

  size_type const first = sched.begin_of(blockIdx.x, gridDim.x);
  size_type const last  = sched.begin_of(blockIdx.x + 1, gridDim.x);
  size_type row = 0, col = 0;
  if (first < last) { sched.locate(first, row, col); }

  point<T, D> own[R];
  T own_w[R];
  size_type loaded_row = -1;
  int row_count        = 0;

  for (size_type f_idx = first; f_idx < last; ++f_idx, sched.advance(row, col)) {
    size_type const row_start = row * TS;
    if (row != loaded_row) {
      if constexpr (is_per_row_agent<Agent>::value) {
        if (loaded_row >= 0) { out.end_row(loaded_row * TS, row_count); }
      }
      loaded_row = row;
      row_count  = static_cast<int>(in.a.size - row_start < TS ? in.a.size - row_start : TS);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        // Slots past the end of a partial row tile repeat the tile's first point, so that the
        // partial tile's pair loop can call f on real points and drop those results (below).
        int const p = threadIdx.x + r * B;
        own[r]      = in.a.load_readonly(row_start + (p < row_count ? p : 0));
        own_w[r]    = p < row_count ? in.a.weight_readonly(row_start + p) : T(0);
      }
    }
    size_type const col_start = col * TS;
    int const col_count       = static_cast<int>(in.b.size - col_start < TS ? in.b.size - col_start : TS);

    auto emit = [&](int r, auto const& v, stored const& s) {
      if constexpr (is_per_row_agent<Agent>::value) {
        out.accumulate_row(r, v);
      } else if constexpr (W) {
        out.accumulate(v, own_w[r] * s.weight());
      } else {
        out.accumulate(v);
      }
    };
    auto pair_with = [&](int r, stored const& s) { emit(r, f(own[r], s.coords()), s); };

    if (sched.is_diagonal(row, col)) {
      columns.stage(row_start, row_count);
      if (in.mode == pair_mode::self) {
        for (int k = 1; k <= TS / 2; ++k) {
#pragma unroll
          for (int r = 0; r < R; ++r) {
            int const p = threadIdx.x + r * B;
            int const q = diagonal_partner(p, k, TS);
            if (diagonal_self_pair(p, q, k, TS, row_count)) {
              // Keep self mode's promise f(a_i, a_j) with i < j, so non-symmetric functors see one order.
              stored const s = columns.at(q);
              emit(r, q > p ? f(own[r], s.coords()) : f(s.coords(), own[r]), s);
            }
          }
        }
      } else {  // ordered: every q != p
        for (int k = 1; k < TS; ++k) {
#pragma unroll
          for (int r = 0; r < R; ++r) {
            int const p = threadIdx.x + r * B;
            int const q = diagonal_partner(p, k, TS);
            if (p < row_count && q < row_count) { pair_with(r, columns.at(q)); }
          }
        }
      }
    } else if (row_count == TS) {
      columns.for_each(col_start, col_count, [&](stored const& s) {
#pragma unroll
        for (int r = 0; r < R; ++r) { pair_with(r, s); }
      });
    } else {
      // Last, partial row tile (cross and ordered mode; A smaller than a tile makes every tile
      // pair one). f runs on every slot as in a full tile and only the results of own points
      // inside the tile are kept: a branch around each pair made these tile pairs 2-3x slower.
      columns.for_each(col_start, col_count, [&](stored const& s) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
          auto const v    = f(own[r], s.coords());
          bool const keep = static_cast<int>(threadIdx.x) + r * B < row_count;
          if constexpr (has_masked_accumulate<Agent>::value) {
            if constexpr (W) {
              out.accumulate_masked(v, own_w[r] * s.weight(), keep);
            } else {
              out.accumulate_masked(v, keep);
            }
          } else if (keep) {
            emit(r, v, s);
          }
        }
      });
    }
    out.end_tile(static_cast<unsigned long long>(row_count) * static_cast<unsigned long long>(col_count));
  }
  if constexpr (is_per_row_agent<Agent>::value) {
    if (loaded_row >= 0) { out.end_row(loaded_row * TS, row_count); }
  }
  out.finish();
}

/// Baseline: one thread per point of A, partners read one at a time from global memory,
/// self mode walks j > i (divergent triangle). Partners are visited in block-uniform
/// chunks so that the output agent can flush between them.
template <class Input, class Agent, class Points, class F>
__global__ void __launch_bounds__(Input::block_threads)
  naive_pair_kernel(kernel_inputs<Points> in, F f, typename Agent::params out_params, int chunk)
{
  constexpr int B  = Input::block_threads;
  using T          = typename Points::value_type;
  constexpr int D  = Points::dims;
  constexpr bool W = Points::weighted;
  __shared__ typename Agent::temp_storage agent_storage;
  extern __shared__ __align__(16) unsigned char dynamic_smem[];
  Agent out(out_params, agent_storage, dynamic_smem);

  size_type const block_first = static_cast<size_type>(blockIdx.x) * B;
  size_type const i           = block_first + threadIdx.x;
  bool const valid            = i < in.a.size;
  point<T, D> const own       = valid ? in.a[i] : point<T, D>{};
  T const own_w               = valid ? in.a.weight(i) : T(0);
  size_type const nb          = in.b.size;
  size_type const j_first     = in.mode == pair_mode::self ? block_first + 1 : 0;

  for (size_type j0 = j_first; j0 < nb; j0 += chunk) {
    size_type const j1 = j0 + chunk < nb ? j0 + chunk : nb;
    if (valid) {
      size_type j = (in.mode == pair_mode::self && j0 <= i) ? i + 1 : j0;
      for (; j < j1; ++j) {
        if (in.mode == pair_mode::ordered && j == i) { continue; }
        auto const v = f(own, in.b[j]);
        if constexpr (is_per_row_agent<Agent>::value) {
          out.accumulate_row(0, v);
        } else if constexpr (W) {
          out.accumulate(v, own_w * in.b.weight(j));
        } else {
          out.accumulate(v);
        }
      }
    }
    out.end_tile(static_cast<unsigned long long>(B) * static_cast<unsigned long long>(j1 - j0));
  }
  if constexpr (is_per_row_agent<Agent>::value) {
    size_type const rows = in.a.size - block_first;
    out.end_row(block_first, static_cast<int>(rows < B ? rows : B));
  }
  out.finish();
}

}  // namespace twobody::detail
