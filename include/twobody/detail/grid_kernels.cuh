#pragma once

#include <twobody/detail/grid_geometry.cuh>
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

template <class T, int D>
__global__ void grid_cell_work_kernel(grid_view<T, D> g, bool half, unsigned long long* work,
                                      cuda::std::uint32_t* cell_index)
{
  for (long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; c < g.cells;
       c += static_cast<long long>(gridDim.x) * blockDim.x) {
    unsigned long long const own_id = g.cell_id[c];
    unsigned long long const size   = g.cell_begin[c + 1] - g.cell_begin[c];
    long long cc[D];
    g.cell_of(g.sorted[g.cell_begin[c]], cc);
    unsigned long long partners = 0;
    for (int o = 0; o < grid_geometry<D>::stencil_size(); ++o) {
      unsigned long long id = 0;
      if (!g.geo.neighbour(cc, o, id) || (half && id <= own_id) || id == own_id) { continue; }
      long long const n = g.find(id);
      if (n >= 0) { partners += g.cell_begin[n + 1] - g.cell_begin[n]; }
    }
    work[c]       = size * partners + size * size / (half ? 2 : 1);
    cell_index[c] = static_cast<cuda::std::uint32_t>(c);
  }
}

/// rank[order[t]] = t.
__global__ inline void grid_rank_kernel(cuda::std::uint32_t const* order, long long cells, cuda::std::uint32_t* rank)
{
  for (long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; t < cells;
       t += static_cast<long long>(gridDim.x) * blockDim.x) {
    rank[order[t]] = static_cast<cuda::std::uint32_t>(t);
  }
}

/// queries[new_begin[rank[cell of k]] + (k - cell_begin[cell])] = k.
__global__ inline void grid_query_order_kernel(cuda::std::uint32_t const* cell_begin, long long cells,
                                               cuda::std::uint32_t const* rank,
                                               cuda::std::uint32_t const* new_begin, size_type n,
                                               cuda::std::uint32_t* queries)
{
  for (size_type k = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x; k < n;
       k += static_cast<size_type>(gridDim.x) * blockDim.x) {
    long long lo = 0, hi = cells;  // last cell with cell_begin <= k
    while (hi - lo > 1) {
      long long const mid = (lo + hi) >> 1;
      if (cell_begin[mid] <= static_cast<cuda::std::uint32_t>(k)) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    queries[new_begin[rank[lo]] + (static_cast<cuda::std::uint32_t>(k) - cell_begin[lo])] =
      static_cast<cuda::std::uint32_t>(k);
  }
}

// ---------------------------------------------------------------------------------------------
// Traversal

/// Pair kernel over a grid. Blocks draw batches of B / K queries from an atomic counter (in
/// the order `queries` gives: by decreasing work, so the big ones start first); each query is
/// served by a group of K threads that walk the points of each adjacent non-empty cell
/// together. Self mode (queries = the indexed points, by sorted position) with the
/// half-stencil visits the neighbour cells with a larger id and, in the own cell, the points
/// after the query: each unordered pair once. Without it every neighbour is evaluated and only
/// pairs with j > k are kept (the baseline for counting distance calls). Cross mode visits every
/// adjacent cell of each query of A. Pairs farther apart than the cell side are never visited.
template <int B, int K, class Agent, class T, int D, class F>
__global__ void __launch_bounds__(B)
  grid_pair_kernel(grid_view<T, D> g, points<T, D> queries_pts, bool self, bool half,
                   cuda::std::uint32_t const* queries, size_type n_queries, F f, typename Agent::params out_params,
                   unsigned long long* next_batch, unsigned long long* distance_calls)
{
  constexpr int QPB = B / K;
  __shared__ typename Agent::temp_storage agent_storage;
  using reduce = cub::BlockReduce<unsigned long long, B>;
  __shared__ typename reduce::TempStorage reduce_storage;
  __shared__ unsigned long long shared_word;
  extern __shared__ __align__(16) unsigned char dynamic_smem[];
  Agent out(out_params, agent_storage, dynamic_smem);
  auto const group = cooperative_groups::tiled_partition<K>(cooperative_groups::this_thread_block());
  int const rank   = static_cast<int>(group.thread_rank());

  unsigned long long calls_total = 0;
  for (;;) {
    if (threadIdx.x == 0) { shared_word = atomicAdd(next_batch, 1ull); }
    __syncthreads();
    unsigned long long const batch = shared_word;
    __syncthreads();
    if (batch * QPB >= static_cast<unsigned long long>(n_queries)) { break; }
    size_type const qi = static_cast<size_type>(batch * QPB) + threadIdx.x / K;
    unsigned long long calls = 0;
    if (qi < n_queries) {
      size_type const k    = queries != nullptr ? static_cast<size_type>(queries[qi]) : qi;
      point<T, D> const a  = queries_pts.load_readonly(k);
      long long c[D];
      g.cell_of(a, c);
      unsigned long long const own = g.geo.id_of(c);
      for (int o = 0; o < grid_geometry<D>::stencil_size(); ++o) {
        unsigned long long id = 0;
        if (!g.geo.neighbour(c, o, id) || (self && half && id < own)) { continue; }
        long long const n = g.find(id);
        if (n < 0) { continue; }
        size_type begin     = __ldg(g.cell_begin + n);
        size_type const end = __ldg(g.cell_begin + n + 1);
        if (self && half && id == own) { begin = k + 1; }
        for (size_type j = begin + rank; j < end; j += K) {
          if (self && j == k) { continue; }
          auto const v = f(a, g.sorted.load_readonly(j));
          ++calls;
          if (!self || half || j > k) { out.accumulate(v); }
        }
      }
    }
    // Block-uniform bound on the increments this batch made to any one counter.
    unsigned long long const block_calls = reduce(reduce_storage).Sum(calls);
    if (threadIdx.x == 0) { shared_word = block_calls; }
    __syncthreads();
    unsigned long long const bound = shared_word;
    __syncthreads();
    out.end_tile(bound);
    calls_total += calls;
  }
  out.finish();
  if (distance_calls != nullptr) {
    __syncthreads();
    unsigned long long const total = reduce(reduce_storage).Sum(calls_total);
    if (threadIdx.x == 0) { atomicAdd(distance_calls, total); }
  }
}

}  // namespace twobody::detail
