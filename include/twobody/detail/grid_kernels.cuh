#pragma once

#include <twobody/detail/grid_geometry.cuh>
#include <twobody/detail/join_kernels.cuh>
#include <twobody/detail/stored_point.cuh>
#include <twobody/output/direct_output_buffer.cuh>
#include <twobody/points.cuh>

#include <cooperative_groups.h>
#include <cub/block/block_reduce.cuh>

#include <cuda/std/cstdint>

namespace twobody::detail {

/// What kernels see of a grid index (trivially copyable): the points in cell order, the
/// sorted non-empty cell ids and each cell's range of points.
template <class T, int D>
struct grid_view {
  grid_geometry<D> geo;
  points<T, D> sorted;                        ///< the points in cell order
  cuda::std::uint32_t const* perm = nullptr;  ///< input index of each sorted position
  unsigned long long const* cell_id = nullptr;
  cuda::std::uint32_t const* cell_begin = nullptr;  ///< cells + 1 offsets into sorted
  long long cells = 0;

  /// Index of the cell with linear id `id` among the non-empty cells, or -1.
  __device__ long long find(unsigned long long id) const
  {
    long long lo = 0, hi = cells;
    while (lo < hi) {
      long long const mid = (lo + hi) >> 1;
      if (__ldg(cell_id + mid) < id) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < cells && __ldg(cell_id + lo) == id ? lo : -1;
  }

  /// Index of the cell holding sorted position k (the last cell beginning at or before it).
  __device__ long long cell_of_position(size_type k) const
  {
    long long lo = 0, hi = cells;
    while (hi - lo > 1) {
      long long const mid = (lo + hi) >> 1;
      if (static_cast<size_type>(__ldg(cell_begin + mid)) <= k) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  template <class P>
  __device__ void cell_of(P const& a, long long (&c)[D]) const
  {
#pragma unroll
    for (int d = 0; d < D; ++d) { c[d] = geo.coordinate(static_cast<double>(a[d]), d); }
  }
};

// ---------------------------------------------------------------------------------------------
// Build

/// Cell id and input index of every point; raises *bad for a NaN or infinite coordinate.
template <class T, int D>
__global__ void grid_keys_kernel(points<T, D> pts, grid_geometry<D> geo, unsigned long long* keys,
                                 cuda::std::uint32_t* index, int* bad)
{
  for (size_type i = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x; i < pts.size;
       i += static_cast<size_type>(gridDim.x) * blockDim.x) {
    long long c[D];
#pragma unroll
    for (int d = 0; d < D; ++d) {
      double const x = static_cast<double>(pts.coords[d][i]);
      if (!isfinite(x)) { *bad = 1; }
      c[d] = geo.coordinate(x, d);
      c[d] = c[d] < 0 ? 0 : (c[d] >= geo.cells[d] ? geo.cells[d] - 1 : c[d]);
    }
    keys[i]  = geo.id_of(c);
    index[i] = static_cast<cuda::std::uint32_t>(i);
  }
}

template <class T, int D>
__global__ void grid_gather_kernel(points<T, D> pts, cuda::std::uint32_t const* perm, cuda::std::array<T*, D> out)
{
  for (size_type k = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x; k < pts.size;
       k += static_cast<size_type>(gridDim.x) * blockDim.x) {
    cuda::std::uint32_t const i = perm[k];
#pragma unroll
    for (int d = 0; d < D; ++d) { out[d][k] = pts.coords[d][i]; }
  }
}

// ---------------------------------------------------------------------------------------------
// Query order: cells by decreasing work (points x points in the cells their queries visit)

/// The other non-empty cells a cell's queries visit: its stencil neighbours (self mode with
/// the half-stencil: those with a larger id). Pass 1 (list == nullptr) counts them per cell,
/// pass 2 writes them from offsets[c] on. Found once per cell, not once per query: in 6-D the
/// stencil has 729 cells, each a binary search over the non-empty cells.
template <class T, int D>
__global__ void grid_neighbour_kernel(grid_view<T, D> g, bool half, cuda::std::uint32_t* counts,
                                      cuda::std::uint32_t const* offsets, cuda::std::uint32_t* list)
{
  for (long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; c < g.cells;
       c += static_cast<long long>(gridDim.x) * blockDim.x) {
    unsigned long long const own_id = g.cell_id[c];
    long long cc[D];
    g.cell_of(g.sorted[g.cell_begin[c]], cc);
    cuda::std::uint32_t found = 0;
    for (int o = 0; o < grid_geometry<D>::stencil_size(); ++o) {
      unsigned long long id = 0;
      if (!g.geo.neighbour(cc, o, id) || id == own_id || (half && id < own_id)) { continue; }
      long long const n = g.find(id);
      if (n < 0) { continue; }
      if (list != nullptr) { list[offsets[c] + found] = static_cast<cuda::std::uint32_t>(n); }
      ++found;
    }
    if (list == nullptr) { counts[c] = found; }
  }
}

/// Work of each cell's queries (points x partner points; the own cell halved with the
/// half-stencil) and the identity permutation of cells, to be sorted by work.
template <class T, int D>
__global__ void grid_cell_work_kernel(grid_view<T, D> g, bool half, cuda::std::uint32_t const* offsets,
                                      cuda::std::uint32_t const* list, unsigned long long* work,
                                      cuda::std::uint32_t* cell_index)
{
  for (long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; c < g.cells;
       c += static_cast<long long>(gridDim.x) * blockDim.x) {
    unsigned long long const size = g.cell_begin[c + 1] - g.cell_begin[c];
    unsigned long long partners   = 0;
    for (cuda::std::uint32_t e = offsets[c]; e < offsets[c + 1]; ++e) {
      partners += g.cell_begin[list[e] + 1] - g.cell_begin[list[e]];
    }
    work[c]       = size * partners + size * size / (half ? 2 : 1);
    cell_index[c] = static_cast<cuda::std::uint32_t>(c);
  }
}

/// rank[order[t]] = t. (A template, so that the header can be included by several translation
/// units without a second definition, where `inline` is not allowed on a __global__ function.)
template <class Index>
__global__ void grid_rank_kernel(Index const* order, long long cells, Index* rank)
{
  for (long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; t < cells;
       t += static_cast<long long>(gridDim.x) * blockDim.x) {
    rank[order[t]] = static_cast<Index>(t);
  }
}

/// queries[new_begin[rank[cell of k]] + (k - cell_begin[cell])] = k.
template <class T, int D>
__global__ void grid_query_order_kernel(grid_view<T, D> g, cuda::std::uint32_t const* rank,
                                        cuda::std::uint32_t const* new_begin, cuda::std::uint32_t* queries)
{
  for (size_type k = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x; k < g.sorted.size;
       k += static_cast<size_type>(gridDim.x) * blockDim.x) {
    long long const c = g.cell_of_position(k);
    queries[new_begin[rank[c]] + (static_cast<cuda::std::uint32_t>(k) - g.cell_begin[c])] =
      static_cast<cuda::std::uint32_t>(k);
  }
}

// ---------------------------------------------------------------------------------------------
// Traversal

/// What the grid kernel does with its pairs: count or bin them through a statistic agent
/// (reduction, histogram), with batches from a plain atomic counter.
template <class Agent, class F>
struct grid_statistic {
  struct params {
    typename Agent::params agent;
    F f;
    unsigned long long* next_batch;
  };
  using temp_storage = typename Agent::temp_storage;
  Agent out;
  F f;
  unsigned long long* next_batch;

  __device__ grid_statistic(params const& p, temp_storage& storage, unsigned char* smem)
    : out(p.agent, storage, smem), f(p.f), next_batch(p.next_batch)
  {
  }
  __device__ unsigned long long take_batch(unsigned long long batches)
  {
    unsigned long long const b = atomicAdd(next_batch, 1ull);
    return b < batches ? b : ~0ull;
  }
  __device__ void begin_batch() {}
  /// The pair (queries[k], sorted[j]); `keep` false: evaluated but not counted (full-stencil baseline).
  template <class P>
  __device__ void visit(P const& a, P const& b, size_type, size_type, bool keep)
  {
    auto const v = f(a, b);
    if (keep) { out.accumulate(v); }
  }
  /// `bound`: the most increments this batch made to any one counter. Never stops the block.
  __device__ bool end_batch(unsigned long long bound, unsigned long long) { out.end_tile(bound); return false; }
  __device__ void finish() { out.finish(); }
};

/// What the grid kernel does with its pairs in a join: each pair goes through the emitter with
/// its input indices (self mode: i < j, the points in that order) and passing records go to a
/// per-thread page agent (the traversal diverges, so warp-wide page agents cannot serve it).
/// Work units are batches handed out from join_state (the round driver's `join_work`); when a
/// thread runs out of pages the block rolls its batch back and lists it, as join_kernel does.
template <class Emitter, class Agent>
struct grid_join_consumer {
  using Record = typename Emitter::record_type;
  struct params {
    typename Agent::params agent;  ///< has state (join_state*) and failed_units
    join_work work;
    Emitter e;
    cuda::std::uint32_t const* perm;
    bool self;
  };
  struct temp_storage {};
  Agent out;
  params p;

  __device__ grid_join_consumer(params const& p_, temp_storage&, unsigned char*) : out(p_.agent), p(p_) {}
  __device__ unsigned long long take_batch(unsigned long long)
  {
    if (atomicAdd(&p.agent.state->stop, 0u) != 0u) { return ~0ull; }
    unsigned long long const t = atomicAdd(&p.agent.state->next_work, 1ull);
    return t < p.work.count() ? p.work.unit(t) : ~0ull;
  }
  __device__ void begin_batch() { out.begin_unit(); }
  template <class P>
  __device__ void visit(P const& a, P const& b, size_type k, size_type j, bool keep)
  {
    if (!keep) { return; }
    size_type const i  = p.self ? static_cast<size_type>(__ldg(p.perm + k)) : k;
    size_type const jj = static_cast<size_type>(__ldg(p.perm + j));
    Record rec;
    bool const pass = p.self && jj < i ? p.e(b, a, jj, i, rec) : p.e(a, b, i, jj, rec);
    if (pass) { out.push(rec); }
  }
  __device__ bool end_batch(unsigned long long, unsigned long long batch)
  {
    if (__syncthreads_or(out.failed() ? 1 : 0) == 0) { return false; }
    out.rollback();
    if (threadIdx.x == 0) {
      unsigned const slot             = atomicAdd(&p.agent.state->failed, 1u);
      p.agent.failed_units[slot]      = batch;
      atomicExch(&p.agent.state->stop, 1u);
    }
    return true;
  }
  __device__ void finish() { out.finish(); }
};

/// Counts the records a join would emit (the grid join's size estimate over sampled batches).
template <class Record>
struct record_counter {
  struct params {
    join_state* state;
    unsigned long long* failed_units;
    unsigned long long* hits;
  };
  params p;
  unsigned long long n = 0;
  __device__ explicit record_counter(params const& p_) : p(p_) {}
  __device__ void begin_unit() {}
  __device__ void push(Record const&) { ++n; }
  __device__ bool failed() const { return false; }
  __device__ void rollback() {}
  __device__ void finish()
  {
    if (n != 0) { atomicAdd(p.hits, n); }
  }
};

/// Pair kernel over a grid. Blocks draw batches of B / K queries (from the consumer: a
/// counter, or a join round's work); each query is served by a group of K threads that walk
/// the points of each adjacent non-empty cell together, in the order `queries` gives (by
/// decreasing work, so the big ones start first). Self mode (queries = the indexed points, by
/// sorted position) with the half-stencil visits the neighbour cells with a larger id and, in
/// the own cell, the points after the query: each unordered pair once. Without it every
/// neighbour is evaluated and only pairs with j > k are kept (the baseline for counting
/// distance calls). Cross mode visits every adjacent cell of each query of A. Pairs farther
/// apart than the cell side are never visited.
template <int B, int K, class Consumer, class T, int D>
__global__ void __launch_bounds__(B)
  grid_pair_kernel(grid_view<T, D> g, points<T, D> queries_pts, bool self, bool half,
                   cuda::std::uint32_t const* queries, size_type n_queries, cuda::std::uint32_t const* nbr_offsets,
                   cuda::std::uint32_t const* nbr_list, typename Consumer::params const params,
                   unsigned long long* distance_calls)
{
  constexpr int QPB = B / K;
  using stored      = stored_point<T, D, false>;
  constexpr int tile_points = 2 * B;
  __shared__ stored tile[tile_points];
  __shared__ long long shared_cell;
  __shared__ typename Consumer::temp_storage agent_storage;
  using reduce = cub::BlockReduce<unsigned long long, B>;
  __shared__ typename reduce::TempStorage reduce_storage;
  __shared__ unsigned long long shared_word;
  extern __shared__ __align__(16) unsigned char dynamic_smem[];
  Consumer out(params, agent_storage, dynamic_smem);
  auto const group = cooperative_groups::tiled_partition<K>(cooperative_groups::this_thread_block());
  int const rank   = static_cast<int>(group.thread_rank());
  unsigned long long const batches = (static_cast<unsigned long long>(n_queries) + QPB - 1) / QPB;

  unsigned long long calls_total = 0;
  for (;;) {
    if (threadIdx.x == 0) { shared_word = out.take_batch(batches); }
    __syncthreads();
    unsigned long long const batch = shared_word;
    __syncthreads();
    if (batch == ~0ull) { break; }
    out.begin_batch();
    size_type const qi = static_cast<size_type>(batch * QPB) + threadIdx.x / K;
    bool const valid   = qi < n_queries;
    unsigned long long calls = 0;
    bool staged        = false;
    if (self) {
      // A batch whose queries all lie in one cell (dense cells: most batches) visits the same
      // cells for every query: stage them through shared memory for the whole block.
      size_type const k  = valid ? (queries != nullptr ? static_cast<size_type>(queries[qi]) : qi) : 0;
      long long const my = valid ? g.cell_of_position(k) : -1;
      if (threadIdx.x == 0) { shared_cell = my; }
      __syncthreads();
      long long const c = shared_cell;
      staged            = __syncthreads_and(!valid || my == c) != 0;
      if (staged) {
        // Register blocking: each thread takes SR of the batch's queries (one shared load feeds
        // SR pairs) and every stride-th point of the staged tile. Not above 4-D: there cells hold
        // few points, batches rarely share one, and the extra registers slowed the other path
        // (measured at 6a26d40: 5-D 7.05 -> 10.7 ms, 6-D 16.5 -> 25.1 ms).
        constexpr int SR      = (QPB % 4 == 0 && D <= 4) ? 4 : 1;
        constexpr int groups  = QPB / SR;
        constexpr int stride  = B / groups;
        int const grp         = static_cast<int>(threadIdx.x) % groups;
        int const first       = static_cast<int>(threadIdx.x) / groups;
        point<T, D> a[SR];
        size_type ks[SR];
#pragma unroll
        for (int r = 0; r < SR; ++r) {
          size_type const q = static_cast<size_type>(batch * QPB) + grp * SR + r;
          ks[r] = q < n_queries ? (queries != nullptr ? static_cast<size_type>(queries[q]) : q) : -1;
          a[r]  = ks[r] >= 0 ? g.sorted.load_readonly(ks[r]) : point<T, D>{};
        }
        auto run = [&](size_type begin, size_type end, bool own) {  // block-uniform
          for (size_type start = begin; start < end; start += tile_points) {
            int const count = static_cast<int>(end - start < tile_points ? end - start : tile_points);
            __syncthreads();
            for (int t = threadIdx.x; t < count; t += B) { tile[t] = stored::make(g.sorted.load_readonly(start + t), T(1)); }
            __syncthreads();
            for (int jj = first; jj < count; jj += stride) {
              auto const b      = tile[jj].coords();
              size_type const j = start + jj;
#pragma unroll
              for (int r = 0; r < SR; ++r) {
                if (ks[r] < 0 || j == ks[r] || (half && own && j < ks[r])) { continue; }
                ++calls;
                out.visit(a[r], b, ks[r], j, half || j > ks[r]);
              }
            }
          }
        };
        run(__ldg(g.cell_begin + c), __ldg(g.cell_begin + c + 1), true);
        for (cuda::std::uint32_t e = __ldg(nbr_offsets + c); e < __ldg(nbr_offsets + c + 1); ++e) {
          cuda::std::uint32_t const n = __ldg(nbr_list + e);
          run(__ldg(g.cell_begin + n), __ldg(g.cell_begin + n + 1), false);
        }
      }
    }
    if (valid && !staged) {
      size_type const k   = queries != nullptr ? static_cast<size_type>(queries[qi]) : qi;
      point<T, D> const a = queries_pts.load_readonly(k);
      // The points of cell range [begin, end) against query a (self: never a with itself;
      // the full stencil keeps only j > k, so each pair counts once).
      auto visit = [&](size_type begin, size_type end) {
        for (size_type j = begin + rank; j < end; j += K) {
          if (self && j == k) { continue; }
          ++calls;
          out.visit(a, g.sorted.load_readonly(j), k, j, !self || half || j > k);
        }
      };
      if (self) {  // the own cell, then the listed neighbours
        long long const lo = g.cell_of_position(k);
        visit(half ? k + 1 : static_cast<size_type>(__ldg(g.cell_begin + lo)), __ldg(g.cell_begin + lo + 1));
        for (cuda::std::uint32_t e = __ldg(nbr_offsets + lo); e < __ldg(nbr_offsets + lo + 1); ++e) {
          cuda::std::uint32_t const n = __ldg(nbr_list + e);
          visit(__ldg(g.cell_begin + n), __ldg(g.cell_begin + n + 1));
        }
      } else {  // queries of another set: every stencil cell of the query's position
        long long c[D];
        g.cell_of(a, c);
        for (int o = 0; o < grid_geometry<D>::stencil_size(); ++o) {
          unsigned long long id = 0;
          if (!g.geo.neighbour(c, o, id)) { continue; }
          long long const n = g.find(id);
          if (n >= 0) { visit(__ldg(g.cell_begin + n), __ldg(g.cell_begin + n + 1)); }
        }
      }
    }
    // Block-uniform bound on the increments this batch made to any one counter.
    unsigned long long const block_calls = reduce(reduce_storage).Sum(calls);
    if (threadIdx.x == 0) { shared_word = block_calls; }
    __syncthreads();
    unsigned long long const bound = shared_word;
    __syncthreads();
    calls_total += calls;
    if (out.end_batch(bound, batch)) { break; }
  }
  out.finish();
  if (distance_calls != nullptr) {
    __syncthreads();
    unsigned long long const total = reduce(reduce_storage).Sum(calls_total);
    if (threadIdx.x == 0) { atomicAdd(distance_calls, total); }
  }
}

}  // namespace twobody::detail
