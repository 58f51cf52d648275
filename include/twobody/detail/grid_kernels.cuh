#pragma once

#include <twobody/engine/engine.cuh>
#include <twobody/engine/visitors.cuh>
#include <twobody/math/grid_geometry.cuh>
#include <twobody/math/stored_point.cuh>
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

/// Engine traversal (engine.cuh) over a grid index. Units are batches of B / K queries (a
/// counter, or a join round's units); each query is served by a group of K threads that walk
/// the points of each adjacent non-empty cell together, in the order `queries` gives (by
/// decreasing work, so the big ones start first). Self mode (queries = the indexed points, by
/// sorted position) with the half-stencil visits the neighbour cells with a larger id and, in
/// the own cell, the points after the query: each unordered pair once. Without it every
/// neighbour is evaluated and only pairs with j > k are kept (the baseline for counting
/// distance calls). Cross mode visits every adjacent cell of each query of A. Pairs farther
/// apart than the cell side are never visited. Pairs go to the visitor one at a time
/// (visit(), the lanes diverge); visitors that use indices get input indices, in self mode
/// in the order i < j.
template <int B, int K, class T, int D>
struct grid_batch_traversal {
  static constexpr int block_threads     = B;
  static constexpr int min_blocks_per_sm = 0;  // the compiler's register budget (64 on sm_90), measured best
  static constexpr int QPB               = B / K;
  static constexpr int tile_points       = 2 * B;
  using stored                           = stored_point<T, D, false>;
  using reduce                           = cub::BlockReduce<unsigned long long, B>;

  struct params {
    grid_view<T, D> g;
    points<T, D> queries_pts;
    bool self;
    bool half;
    cuda::std::uint32_t const* queries;  ///< query order (null: in order)
    size_type n_queries;
    cuda::std::uint32_t const* nbr_offsets;
    cuda::std::uint32_t const* nbr_list;
    unsigned long long* distance_calls;  ///< null: not counted
  };
  struct temp_storage {
    stored tile[tile_points];
    typename reduce::TempStorage reduce_storage;
    long long cell;
    unsigned long long word;
  };

  params const& p;
  temp_storage& shared;

  __device__ grid_batch_traversal(params const& p_, temp_storage& s) : p(p_), shared(s) {}

  /// The pair (query at sorted position or query index k, indexed point at sorted position j).
  template <class Visitor, class P>
  __device__ __forceinline__ void pair(Visitor& out, P const& a, P const& b, size_type k, size_type j, bool keep)
  {
    if constexpr (Visitor::uses_indices) {
      if (!keep) { return; }
      size_type const i  = p.self ? static_cast<size_type>(__ldg(p.g.perm + k)) : k;
      size_type const jj = static_cast<size_type>(__ldg(p.g.perm + j));
      if (p.self && jj < i) {
        out.visit(0, b, a, jj, i, unweighted{}, true);
      } else {
        out.visit(0, a, b, i, jj, unweighted{}, true);
      }
    } else {
      out.visit(0, a, b, k, j, unweighted{}, keep);
    }
  }

  template <class Source, class Visitor>
  __device__ void run(Source& units, Visitor& out)
  {
    unsigned long long calls_total = 0;
    for (unsigned long long batch = 0; units.next(batch);) {
      out.begin_unit();
      unsigned long long calls = 0;
      // Half-stencil or not, decided once per batch: with the test inside the pair loops the
      // compiler kept it per pair (no loop unswitching there), 20% slower on dense cells.
      unsigned long long const bound = p.half ? visit<true>(batch, out, calls) : visit<false>(batch, out, calls);
      calls_total += calls;
      if (!end_unit(out, units, batch, bound)) { break; }
    }
    if (p.distance_calls != nullptr) {
      __syncthreads();
      unsigned long long const total = reduce(shared.reduce_storage).Sum(calls_total);
      if (threadIdx.x == 0) { atomicAdd(p.distance_calls, total); }
    }
  }

  /// The pairs of one batch; returns a block-uniform bound on the increments it made to any one
  /// counter, and adds this thread's distance calls to `calls`.
  template <bool Half, class Visitor>
  __device__ unsigned long long visit(unsigned long long batch, Visitor& out, unsigned long long& calls)
  {
    grid_view<T, D> const& g = p.g;
    auto const group = cooperative_groups::tiled_partition<K>(cooperative_groups::this_thread_block());
    int const rank   = static_cast<int>(group.thread_rank());
    size_type const qi = static_cast<size_type>(batch * QPB) + threadIdx.x / K;
    bool const valid   = qi < p.n_queries;
    bool staged        = false;
    if (p.self) {
      // A batch whose queries all lie in one cell (dense cells: most batches) visits the same
      // cells for every query: stage them through shared memory for the whole block.
      size_type const k  = valid ? (p.queries != nullptr ? static_cast<size_type>(p.queries[qi]) : qi) : 0;
      long long const my = valid ? g.cell_of_position(k) : -1;
      if (threadIdx.x == 0) { shared.cell = my; }
      __syncthreads();
      long long const c = shared.cell;
      staged            = __syncthreads_and(!valid || my == c) != 0;
      if (staged) {
        // Register blocking: each thread takes SR of the batch's queries (one shared load feeds
        // SR pairs) and every stride-th point of the staged tile. Not above 4-D: there cells hold
        // few points, batches rarely share one, and the extra registers slowed the other path
        // (bench_grid dim5/grid and dim6/grid took half as long again with it).
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
          ks[r] = q < p.n_queries ? (p.queries != nullptr ? static_cast<size_type>(p.queries[q]) : q) : -1;
          a[r]  = ks[r] >= 0 ? g.sorted.load_readonly(ks[r]) : point<T, D>{};
        }
        auto run = [&](size_type begin, size_type end, bool own) {  // block-uniform
          for (size_type start = begin; start < end; start += tile_points) {
            int const count = static_cast<int>(end - start < tile_points ? end - start : tile_points);
            __syncthreads();
            for (int t = threadIdx.x; t < count; t += B) { shared.tile[t] = stored::make(g.sorted.load_readonly(start + t), T(1)); }
            __syncthreads();
            for (int jj = first; jj < count; jj += stride) {
              auto const b      = shared.tile[jj].coords();
              size_type const j = start + jj;
#pragma unroll
              for (int r = 0; r < SR; ++r) {
                if (ks[r] < 0 || j == ks[r] || (Half && own && j < ks[r])) { continue; }
                ++calls;
                pair(out, a[r], b, ks[r], j, Half || j > ks[r]);
              }
            }
          }
        };
        run(__ldg(g.cell_begin + c), __ldg(g.cell_begin + c + 1), true);
        for (cuda::std::uint32_t e = __ldg(p.nbr_offsets + c); e < __ldg(p.nbr_offsets + c + 1); ++e) {
          cuda::std::uint32_t const n = __ldg(p.nbr_list + e);
          run(__ldg(g.cell_begin + n), __ldg(g.cell_begin + n + 1), false);
        }
      }
    }
    if (valid && !staged) {
      size_type const k   = p.queries != nullptr ? static_cast<size_type>(p.queries[qi]) : qi;
      point<T, D> const a = p.queries_pts.load_readonly(k);
      // The points of cell range [begin, end) against query a (self: never a with itself;
      // the full stencil keeps only j > k, so each pair counts once).
      auto visit_cells = [&](size_type begin, size_type end) {
        for (size_type j = begin + rank; j < end; j += K) {
          if (p.self && j == k) { continue; }
          ++calls;
          pair(out, a, g.sorted.load_readonly(j), k, j, !p.self || Half || j > k);
        }
      };
      if (p.self) {  // the own cell, then the listed neighbours
        long long const lo = g.cell_of_position(k);
        visit_cells(Half ? k + 1 : static_cast<size_type>(__ldg(g.cell_begin + lo)), __ldg(g.cell_begin + lo + 1));
        for (cuda::std::uint32_t e = __ldg(p.nbr_offsets + lo); e < __ldg(p.nbr_offsets + lo + 1); ++e) {
          cuda::std::uint32_t const n = __ldg(p.nbr_list + e);
          visit_cells(__ldg(g.cell_begin + n), __ldg(g.cell_begin + n + 1));
        }
      } else {  // queries of another set: every stencil cell of the query's position
        long long c[D];
        g.cell_of(a, c);
        for (int o = 0; o < grid_geometry<D>::stencil_size(); ++o) {
          unsigned long long id = 0;
          if (!g.geo.neighbour(c, o, id)) { continue; }
          long long const n = g.find(id);
          if (n >= 0) { visit_cells(__ldg(g.cell_begin + n), __ldg(g.cell_begin + n + 1)); }
        }
      }
    }
    // Block-uniform bound on the increments this batch made to any one counter.
    unsigned long long const block_calls = reduce(shared.reduce_storage).Sum(calls);
    if (threadIdx.x == 0) { shared.word = block_calls; }
    __syncthreads();
    unsigned long long const bound = shared.word;
    __syncthreads();
    return bound;
  }
};

}  // namespace twobody::detail
