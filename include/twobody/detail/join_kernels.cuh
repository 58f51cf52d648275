#pragma once

#include <twobody/detail/pair_kernels.cuh>
#include <twobody/detail/tile_schedule.cuh>
#include <twobody/output/direct_output_buffer.cuh>
#include <twobody/points.cuh>

#include <cub/block/block_reduce.cuh>

#include <cuda/std/cstdint>

namespace twobody::detail {

/// The tile pairs (work units) of one join round: first the listed units `redo` (rolled back
/// in the round before), then the flat range [range_begin, range_end) of the tile schedule.
struct join_work {
  unsigned long long const* redo = nullptr;
  unsigned long long redo_count  = 0;
  unsigned long long range_begin = 0;
  unsigned long long range_end   = 0;

  __host__ __device__ unsigned long long count() const { return redo_count + (range_end - range_begin); }
  __device__ unsigned long long unit(unsigned long long w) const
  {
    return w < redo_count ? redo[w] : range_begin + (w - redo_count);
  }
};

/// The join kernel: the tiled pair loop of pair_kernels.cuh, but each pair goes through an
/// emitter e(a, b, i, j, record) -> bool and passing records go to the output agent.
///
/// Work units are tile pairs. With a direct output buffer (Agent::dynamic_work) blocks draw
/// them from an atomic counter; at the end of each unit the block agrees (one barrier) on
/// whether any owner ran out of pages; if so the unit is rolled back, listed in
/// failed_units, and `stop` is raised so that no block takes another unit. The two-pass
/// agents split the units statically, so both passes give each thread the same pairs.
///
/// The hot loop only tests pairs: a bit mask per column says which own points passed, and the
/// agent's emit_mask(mask, rebuild) calls the emitter again to build those records (rare), so
/// the page logic stays out of the unrolled loop. emit_mask is called by every lane at every
/// step, as warp-owned pages need. In self mode the emitter sees (a_i, a_j, i, j) with i < j.
template <class Input, class Agent, class Points, class Emitter, class Record>
__global__ void __launch_bounds__(Input::block_threads)
  join_kernel(kernel_inputs<Points> in, Emitter e, typename Agent::params out_params, tile_schedule sched,
              join_work work)
{
  constexpr int B = Input::block_threads;
  constexpr int R = Input::points_per_thread;
  constexpr int TS = B * R;
  using T         = typename Points::value_type;
  constexpr int D = Points::dims;
  using source    = typename Input::template column_source<Points>;
  using stored    = typename source::stored;

  __shared__ typename source::temp_storage source_storage;
  __shared__ unsigned long long next_unit;

  Agent out(out_params);
  source columns(source_storage, in.b, in.vector_aligned);

  unsigned long long const units = work.count();
  unsigned long long w           = 0;
  unsigned long long w_end       = 0;
  if constexpr (!Agent::dynamic_work) {  // equal contiguous ranges, as tile_schedule::begin_of
    unsigned long long const q = units / gridDim.x, r = units % gridDim.x;
    w     = q * blockIdx.x + (blockIdx.x < r ? blockIdx.x : r);
    w_end = w + q + (blockIdx.x < r ? 1 : 0);
  }

  point<T, D> own[R];
  size_type loaded_row = -1;
  int row_count        = 0;
  Record rec{};

  for (;;) {
    unsigned long long unit = 0;
    if constexpr (Agent::dynamic_work) {
      if (threadIdx.x == 0) {
        unsigned long long u = ~0ull;
        if (atomicAdd(&out_params.state->stop, 0u) == 0u) {
          unsigned long long const taken = atomicAdd(&out_params.state->next_work, 1ull);
          if (taken < units) { u = work.unit(taken); }
        }
        next_unit = u;
      }
      __syncthreads();
      unit = next_unit;
      __syncthreads();  // thread 0 rewrites next_unit only after every thread has read it
      if (unit == ~0ull) { break; }
    } else {
      if (w >= w_end) { break; }
      unit = work.unit(w++);
    }

    size_type row = 0, col = 0;
    sched.locate(static_cast<size_type>(unit), row, col);
    size_type const row_start = row * TS;
    if (row != loaded_row) {
      loaded_row = row;
      row_count  = static_cast<int>(in.a.size - row_start < TS ? in.a.size - row_start : TS);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        int const p = threadIdx.x + r * B;
        own[r]      = p < row_count ? in.a.load_readonly(row_start + p) : point<T, D>{};
      }
    }
    size_type const col_start = col * TS;
    int const col_count       = static_cast<int>(in.b.size - col_start < TS ? in.b.size - col_start : TS);

    out.begin_unit();
    if (sched.is_diagonal(row, col)) {
      columns.stage(row_start, row_count);
      bool const self = in.mode == pair_mode::self;
      int const steps = self ? TS / 2 : TS - 1;
      for (int k = 1; k <= steps; ++k) {
        // The pair of own point r at step k, in the order self mode promises (i < j).
        auto diagonal_pair = [&](int r, Record& rec) {
          int const p      = threadIdx.x + r * B;
          int const q      = diagonal_partner(p, k, TS);
          auto const other = columns.at(q).coords();
          return self && q < p ? e(other, own[r], row_start + q, row_start + p, rec)
                               : e(own[r], other, row_start + p, row_start + q, rec);
        };
        unsigned mask = 0;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          int const p = threadIdx.x + r * B;
          int const q = diagonal_partner(p, k, TS);
          bool const valid = self ? diagonal_self_pair(p, q, k, TS, row_count) : (p < row_count && q < row_count);
          if (valid && diagonal_pair(r, rec)) { mask |= 1u << r; }
        }
        out.template emit_mask<R>(mask, diagonal_pair);
      }
    } else {
      int j = 0;
      columns.for_each(col_start, col_count, [&](stored const& s) {
        auto const other = s.coords();
        // Hot loop: only the tests; records are built again for the rare passing pairs.
        unsigned mask = 0;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          int const p = threadIdx.x + r * B;
          if (p < row_count && e(own[r], other, row_start + p, col_start + j, rec)) { mask |= 1u << r; }
        }
        out.template emit_mask<R>(mask, [&](int r, Record& made) {
          e(own[r], other, row_start + threadIdx.x + r * B, col_start + j, made);
        });
        ++j;
      });
    }

    if constexpr (Agent::dynamic_work) {
      if (__syncthreads_or(out.failed() ? 1 : 0) != 0) {
        out.rollback();
        if (threadIdx.x == 0) {
          unsigned const slot                = atomicAdd(&out_params.state->failed, 1u);
          out_params.failed_units[slot]      = unit;
          atomicExch(&out_params.state->stop, 1u);
        }
        break;
      }
    }
  }
  out.finish();
}

/// Result-size estimate: evaluates `samples` pseudo-random pairs of the set (hashed indices,
/// self mode i < j) and adds the number that pass to *hits.
template <int B, class Points, class Emitter, class Record>
__global__ void __launch_bounds__(B)
  join_sample_kernel(kernel_inputs<Points> in, Emitter e, unsigned long long samples, unsigned long long* hits)
{
  auto mix = [](unsigned long long x) {  // splitmix64 finalizer
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  auto const na = static_cast<unsigned long long>(in.a.size);
  auto const nb = static_cast<unsigned long long>(in.b.size);
  unsigned long long mine = 0;
  Record rec{};
  for (unsigned long long s = static_cast<unsigned long long>(blockIdx.x) * B + threadIdx.x; s < samples;
       s += static_cast<unsigned long long>(gridDim.x) * B) {
    unsigned long long const h = mix(s);
    unsigned long long i = ((h >> 32) * na) >> 32;
    unsigned long long j = ((h & 0xffffffffull) * nb) >> 32;
    if (in.mode != pair_mode::cross) {
      if (i == j) { j = j + 1 == nb ? 0 : j + 1; }
      if (in.mode == pair_mode::self && j < i) {
        unsigned long long const t = i;
        i                          = j;
        j                          = t;
      }
    }
    mine += e(in.a.load_readonly(static_cast<size_type>(i)), in.b.load_readonly(static_cast<size_type>(j)),
              static_cast<size_type>(i), static_cast<size_type>(j), rec)
              ? 1u
              : 0u;
  }
  using reduce = cub::BlockReduce<unsigned long long, B>;
  __shared__ typename reduce::TempStorage temp;
  unsigned long long const sum = reduce(temp).Sum(mine);
  if (threadIdx.x == 0 && sum != 0) { atomicAdd(hits, sum); }
}

/// Drain: copies the filled part of each page to dst, page p from page_end[p] - page_count[p] on
/// (page_end: the inclusive prefix sum of the counts).
template <class Record, int PS>
__global__ void gather_pages_kernel(Record const* records, cuda::std::uint32_t const* page_count,
                                    unsigned long long const* page_end, unsigned long long pages, Record* dst)
{
  unsigned long long const slots = pages * PS;
  for (unsigned long long t = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; t < slots;
       t += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    unsigned long long const p = t / PS;
    unsigned const k           = static_cast<unsigned>(t - p * PS);
    unsigned const c           = page_count[p];
    if (k < c) { dst[page_end[p] - c + k] = records[t]; }
  }
}

}  // namespace twobody::detail
