/// \file split_grid_barrier.cuh
/// \brief A grid barrier of a cooperative launch split into its two halves: a block arrives
/// once its share of some setup is done (zeroing an output) and waits only where it first needs
/// every block's share (its first global add), so the barrier's latency passes while the block
/// counts pairs. warp_split_grid_barrier waits warp by warp, for adds that single warps make
/// in the middle of a traversal. Compiles under NVRTC (run-time functors' kernels include it).
#pragma once

#include <cooperative_groups.h>

namespace twobody::detail {

/// Lives in the block's shared memory (an agent's temp_storage). Every thread of the block
/// calls arrive() once; then wait_once() at points the whole block reaches together, each after
/// a block barrier since arrive() and since the previous wait_once(). The first wait returns
/// once every block of the grid has arrived (it ends in a block barrier); later ones return at
/// once. Only thread 0's token is read: the grid barrier counts blocks, not threads.
struct split_grid_barrier {
  unsigned token;  ///< thread 0's arrival token
  int pending;     ///< arrived, not yet waited (block-uniform between block barriers)

  /// Every thread of the block, once; the block's earlier writes are released to the grid.
  __device__ void arrive()
  {
    unsigned const t = cooperative_groups::this_grid().barrier_arrive();
    if (threadIdx.x == 0) {
      token   = t;
      pending = 1;
    }
  }

  __device__ void wait_once()
  {
    if (pending == 0) { return; }
    cooperative_groups::this_grid().barrier_wait(threadIdx.x == 0 ? token : 0u);
    // Every thread read `pending` before the wait's closing block barrier.
    if (threadIdx.x == 0) { pending = 0; }
  }
};

/// The same grid barrier, waited for by each warp before its own first add, where adds come
/// from single warps in the middle of a traversal (per-point sums): the warps that reach it late
/// find it passed, and no block waits as a whole. Every thread of the block calls arrive()
/// once; every warp (all 32 lanes) calls wait_in_warp() before its adds.
///
/// cooperative_groups' grid barrier_wait is block-wide (a block barrier around thread 0's
/// poll), so the warps poll the launch's barrier word themselves, with its test
/// (bar_has_flipped: the word's top bit flips once every block has arrived). Thread 0's token reaches the other warps through
/// shared memory by atomics, not a block barrier: none is needed between arrive() and the waits.
/// (The block-wide split_grid_barrier keeps cooperative_groups' own wait: with these atomics in
/// it, histograms and counts of 1024-4096 points took 0.25 us longer per kernel.)
struct warp_split_grid_barrier {
  /// 2^32 + thread 0's token (the barrier word before its block's arrival) once it is known, 0
  /// before. Only atomics touch it after arrive()'s own block barrier (racecheck sees no race).
  unsigned long long arrival;
  int passed;  ///< 1 once some warp of the block saw every block arrive (the others then skip the poll)

  /// Every thread of the block, once; the block's earlier writes are released to the grid.
  __device__ void arrive()
  {
    if (threadIdx.x == 0) {
      arrival = 0;  // (barrier_arrive starts with a block barrier: every thread sees these)
      passed  = 0;
    }
    unsigned const t = cooperative_groups::this_grid().barrier_arrive();
    if (threadIdx.x == 0) {
      asm volatile("{ .reg .b64 old; atom.release.cta.exch.b64 old, [%0], %1; }" ::"l"(&arrival), "l"((1ull << 32) | t) : "memory");
    }
  }

  /// Warp-wide (all 32 lanes): returns once every block has arrived. `waited` is the warp's own
  /// flag (warp-uniform), false until its first wait.
  __device__ void wait_in_warp(bool& waited)
  {
    if (waited) { return; }
    waited = true;
    if ((threadIdx.x & 31) == 0 && fetch_or_acquire(&passed, 0) == 0) {
      unsigned long long a;
      while ((a = fetch_or_acquire(&arrival, 0ull)) == 0) {}
      unsigned const old         = static_cast<unsigned>(a);
      unsigned const* const word = &cooperative_groups::details::get_grid_workspace()->barrier;
      unsigned now;
      do {
        asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(now) : "l"(word) : "memory");
      } while (!cooperative_groups::details::bar_has_flipped(old, now));
      asm volatile("{ .reg .b32 old; atom.release.cta.exch.b32 old, [%0], 1; }" ::"l"(&passed) : "memory");
    }
    __syncwarp();  // (orders lane 0's acquire before the warp's adds)
  }

private:
  __device__ static int fetch_or_acquire(int* at, int v)
  {
    int old;
    asm volatile("atom.acquire.cta.or.b32 %0, [%1], %2;" : "=r"(old) : "l"(at), "r"(v) : "memory");
    return old;
  }
  __device__ static unsigned long long fetch_or_acquire(unsigned long long* at, unsigned long long v)
  {
    unsigned long long old;
    asm volatile("atom.acquire.cta.or.b64 %0, [%1], %2;" : "=l"(old) : "l"(at), "l"(v) : "memory");
    return old;
  }
};

}  // namespace twobody::detail
