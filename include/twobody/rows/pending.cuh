/// \file pending.cuh
/// \brief The exact recomputation of the pairs a products core could not decide: the warps'
/// pending masks listed block-wide and shared out evenly, B pairs per warp at a time.
#pragma once

#include <twobody/math/row_rules.cuh>
#include <twobody/points.cuh>

#include <cstdint>

#ifdef __CUDACC__

namespace twobody::detail {

/// The pending pairs of lanes 0 .. lane of the warp, given each lane's own count `mine`
/// (an inclusive sum over the lanes).
__device__ __forceinline__ int pending_through_lane(int mine, int lane)
{
  int below = mine;
#pragma unroll
  for (int o = 1; o < 32; o *= 2) {
    int const y = __shfl_up_sync(0xffffffffu, below, o);
    if (lane >= o) { below += y; }
  }
  return below;
}

/// The pairs marked in the warps' `pending` masks (bit mt * 16 + nt * 4 + e of the core's
/// layout), handed B at a time to fn(count, rows, cols) (count <= B pairs, rows and cols in the
/// tile pair) by a whole warp: each warp lists its pairs in the core's scratch, and each warp
/// takes an even share of the block's list, B entries at a time, so that a tile pair waits on
/// about total / (8 B) batches of recomputations rather than on the warp with the most (each
/// batch waits on reads of rows from memory). A warp with more pairs than its share of the scratch
/// keeps them and takes them itself, one at a time. Block-wide (one barrier); empties the
/// masks. The scratch must be free: nothing reads it after the previous barrier.
template <int B, class Core, class Fn>
__device__ void for_each_pending_batch_of_block(Core const& tiles, unsigned long long& pending, Fn&& fn)
{
  constexpr int warps = Core::block_threads / 32;
  constexpr int cap   = (Core::scratch_words - warps) / warps;  ///< list entries per warp
  int const lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
  std::uint32_t* const list   = tiles.scratch();
  std::uint32_t* const counts = list + warps * cap;
  int const mine  = __popcll(static_cast<long long>(pending));
  int const below = pending_through_lane(mine, lane);
  int const listed = __shfl_sync(0xffffffffu, below, 31);
  bool const fits  = listed <= cap;
  if (fits) {
    int at = warp * cap + below - mine;
    for (unsigned long long bits = pending; bits != 0; bits &= bits - 1) {
      int row = 0, col = 0;
      Core::pending_element(__ffsll(static_cast<long long>(bits)) - 1, warp & 1, warp >> 1, lane, row, col);
      list[at++] = static_cast<std::uint32_t>(row * Core::TS + col);
    }
    pending = 0;
  }
  if (lane == 0) { counts[warp] = fits ? static_cast<std::uint32_t>(listed) : 0u; }
  __syncthreads();
  int total = 0;
#pragma unroll
  for (int w = 0; w < warps; ++w) { total += static_cast<int>(counts[w]); }
  // Warp `warp` takes its even share of the list, B entries at a time: each warp then waits on
  // about total / 8 recomputations. (Strided batches of B consecutive entries left a few warps
  // with the most: knn at k = 10 slower; entries warp + 8 (B b + q) measured 3-4% slower for knn
  // than these shares.)
  int const share_end = total * (warp + 1) / warps;
  for (int k = total * warp / warps; k < share_end; k += B) {
    int const count = share_end - k < B ? share_end - k : B;
    int w = 0, i = k;  // entry k: the i-th of warp w's list
    while (i >= static_cast<int>(counts[w])) { i -= static_cast<int>(counts[w++]); }
    int rows[B], cols[B];
#pragma unroll
    for (int q = 0; q < B; ++q) {
      rows[q] = cols[q] = 0;
      if (q < count) {
        std::uint32_t const rc = list[w * cap + i];
        rows[q]                = static_cast<int>(rc / Core::TS);
        cols[q]                = static_cast<int>(rc % Core::TS);
        for (++i; q + 1 < count && i >= static_cast<int>(counts[w]); i = 0) { ++w; }  // the next listed entry
      }
    }
    fn(count, rows, cols);
  }
  Core::for_each_pending(pending, [&](int row, int col) {
    int rows[B] = {row}, cols[B] = {col};
    fn(1, rows, cols);
  });
}

/// The exact values of metric `m` of a batch of `count` <= B pairs (i[q], j[q]) in the sets, by
/// the whole warp: fn(q, v) for each pair q < count. Counts the pairs in `*refined` where it is
/// set (benchmarks).
template <int B, class Core, class Fn>
__device__ __forceinline__ void for_each_exact_in_batch(Core const& tiles, row_metric_kind m, size_type const (&i)[B],
                                                        size_type const (&j)[B], int count, unsigned long long* refined, Fn&& fn)
{
  float v[B];
  tiles.exact_values(m, i, j, count, v);
  if ((threadIdx.x & 31u) == 0 && refined != nullptr) { atomicAdd(refined, static_cast<unsigned long long>(count)); }
#pragma unroll
  for (int q = 0; q < B; ++q) {
    if (q < count) { fn(q, v[q]); }
  }
}

/// for_each_pending_batch_of_block with the pairs' exact values of metric `m`: fn(r, c, i, j, v)
/// for each pair, by the whole warp (r, c in the tile pair, i, j in the sets, v the exact value).
/// Counts the pairs in `*refined` where it is set (benchmarks).
template <int B, class Core, class Fn>
__device__ void for_each_pending_exact_of_block(Core const& tiles, unsigned long long& pending, row_metric_kind m,
                                                size_type row_start, size_type col_start, unsigned long long* refined, Fn&& fn)
{
  for_each_pending_batch_of_block<B>(tiles, pending, [&](int count, int const (&r)[B], int const (&c)[B]) {
    size_type i[B], j[B];
#pragma unroll
    for (int q = 0; q < B; ++q) {
      i[q] = row_start + r[q];
      j[q] = col_start + c[q];
    }
    for_each_exact_in_batch<B>(tiles, m, i, j, count, refined, [&](int q, float v) { fn(r[q], c[q], i[q], j[q], v); });
  });
}

}  // namespace twobody::detail

#endif  // __CUDACC__
