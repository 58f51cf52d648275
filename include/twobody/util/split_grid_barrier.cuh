/// \file split_grid_barrier.cuh
/// \brief A grid barrier of a cooperative launch split into its two halves: a block arrives
/// once its share of some setup is done (zeroing an output) and waits only where it first needs
/// every block's share (its first global add), so the barrier's latency passes while the block
/// counts pairs. warp_split_grid_barrier waits warp by warp, for adds that single warps make
/// in the middle of a traversal. Compiles under NVRTC (run-time functors' kernels include it).
#pragma once

#include <cooperative_groups.h>

namespace twobody::detail {

/// The launch's grid barrier word (cooperative_groups' workspace of a cooperative launch): the
/// one place these barriers name cooperative_groups' internals for it.
__device__ inline unsigned* grid_barrier_word() { return &cooperative_groups::details::get_grid_workspace()->barrier; }

/// Whether the barrier word moved on from `token` to `now`: the top bit flips once every block
/// of the grid has arrived (the test cooperative_groups' own wait makes).
__device__ inline bool grid_barrier_flipped(unsigned token, unsigned now) { return ((token ^ now) & 0x80000000u) != 0u; }

/// cooperative_groups' grid arrival (sync_grids_arrive: a block barrier, then thread 0 adds the
/// block to the launch's barrier word; thread 0 gets the old word, every other thread 0), with
/// the release only for blocks that wrote something the grid waits for: most blocks of a
/// small-set kernel zero nothing, and their relaxed arrivals took the asynchronous cells RDF at
/// 4096 points from 10.2 to 9.9 us (H200). A waiter still synchronizes with every releasing
/// block: its acquire reads the word's last value, and the relaxed additions after a release
/// are atomic read-modify-writes, which carry the release on (the PTX model's observation order).
__device__ inline unsigned grid_barrier_arrive(bool releases_writes)
{
  __syncthreads();
  unsigned old = 0;
  if (threadIdx.x + threadIdx.y + threadIdx.z == 0) {
    unsigned const blocks = gridDim.x * gridDim.y * gridDim.z;
    // Block 0 adds 2^31 - (blocks - 1), the others 1: the top bit flips once all have arrived.
    unsigned const add = blockIdx.x + blockIdx.y + blockIdx.z == 0 ? 0x80000000u - (blocks - 1) : 1u;
    unsigned* const word = grid_barrier_word();
    if (releases_writes) {
      asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(old) : "l"(word), "r"(add) : "memory");
    } else {
      asm volatile("atom.add.relaxed.gpu.u32 %0, [%1], %2;" : "=r"(old) : "l"(word), "r"(add) : "memory");
    }
  }
  return old;
}

/// Lives in the block's shared memory (an agent's temp_storage). Every thread of the block
/// calls arrive() once; then wait_once() at points the whole block reaches together, each after
/// a block barrier since arrive() and since the previous wait_once(). The first wait returns
/// once every block of the grid has arrived (it ends in a block barrier); later ones return at
/// once. Only thread 0's token is read: the grid barrier counts blocks, not threads.
struct split_grid_barrier {
  unsigned token;  ///< thread 0's arrival token
  int pending;     ///< arrived, not yet waited (block-uniform between block barriers)

  /// Every thread of the block, once (block-uniform `releases_writes`: whether the block wrote
  /// something, which is then released to the grid).
  __device__ void arrive(bool releases_writes)
  {
    unsigned const t = grid_barrier_arrive(releases_writes);
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
/// find it passed, and no block waits as a whole.
///
/// cooperative_groups' grid barrier_wait is block-wide (a block barrier around thread 0's
/// poll), so the warps poll the launch's barrier word themselves, with its test
/// (grid_barrier_flipped: the word's top bit flips once every block has arrived; only the top bit of
/// thread 0's token matters). Thread 0 passes that bit on through one word of shared memory by
/// shared-memory atomics (no block barrier between arrive() and the waits; racecheck sees no
/// race), and only at its own first wait or at the end of its first unit (publish()), by when
/// its arrival has long come back; a warp that finds the barrier passed there skips the poll.
///
/// Protocol: every thread calls arrive() once and keeps its token (thread 0's is the one);
/// thread 0 calls publish() before any block barrier that may follow a warp's wait (inside a
/// unit the traversals have none, so end_unit() does; the waits after a block's last unit are
/// in its last end_row, which warp 0 reaches too, and its own wait publishes); every warp (all
/// 32 lanes) calls wait_in_warp() before its first add. (The block-wide split_grid_barrier keeps
/// cooperative_groups' own wait: with shared atomics in it, histograms and counts of 1024-4096
/// points took 0.25 us longer per kernel.)
struct warp_split_grid_barrier {
  /// 0 until thread 0 published; then unseen_even or unseen_odd (the top bit of its token), and
  /// passed once some warp of the block saw every block arrive (the others then skip the poll).
  unsigned state;
  static constexpr unsigned unseen_even = 1, unseen_odd = 2, passed = 3;

  /// Thread 0's arrival, not yet passed on (the arrive() of one thread).
  struct token {
    unsigned value = 0;
    bool pending   = false;
  };

  /// Every thread of the block, once (block-uniform `releases_writes`, as for split_grid_barrier).
  __device__ token arrive(bool releases_writes)
  {
    if (threadIdx.x == 0) { state = 0; }  // (the arrival starts with a block barrier: every thread sees it)
    token t;
    t.value   = grid_barrier_arrive(releases_writes);
    t.pending = threadIdx.x == 0;  // (not computed from the value: that would wait for it)
    return t;
  }

  /// Thread 0 (a no-op elsewhere and after the first call): passes its token's top bit on.
  __device__ void publish(token& t)
  {
    if (!t.pending) { return; }
    t.pending = false;
    exchange_release(t.value >> 31 ? unseen_odd : unseen_even);
  }

  /// Warp-wide (all 32 lanes): returns once every block has arrived. `waited` is the warp's own
  /// flag (warp-uniform), false until its first wait.
  __device__ void wait_in_warp(bool& waited, token& t)
  {
    if (waited) { return; }
    waited = true;
    publish(t);
    // Every lane takes the loop (lane 0 reads, a shuffle shares): with the spin in lane 0 alone
    // the warp left it diverged, and the __syncwarp below took its slow form (per-warp timestamps
    // at 4096 points: 0.35 instead of 0.45 us from a warp's first add to its wait's end).
    bool const reader = (threadIdx.x & 31) == 0;
    for (;;) {
      unsigned s = reader ? fetch_acquire() : 0u;
      s          = __shfl_sync(0xffffffffu, s, 0);
      if (s == passed) { break; }
      if (s != 0) {
        unsigned now = 0;
        if (reader) { asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(now) : "l"(grid_barrier_word()) : "memory"); }
        now = __shfl_sync(0xffffffffu, now, 0);
        if (grid_barrier_flipped(s == unseen_odd ? 0x80000000u : 0u, now)) {
          if (reader) { exchange_release(passed); }
          break;
        }
      }
    }
    __syncwarp();  // (orders lane 0's acquire before the warp's adds)
  }

private:
  // A shared-window address, so that these are shared-memory atomics (generic ones, and a 64-bit
  // one that became a compare-and-swap loop, took 0.1-0.2 us longer per warp at 4096 points).
  __device__ unsigned address() const { return static_cast<unsigned>(__cvta_generic_to_shared(&state)); }
  __device__ unsigned fetch_acquire() const
  {
    unsigned old;
    asm volatile("atom.acquire.cta.shared::cta.or.b32 %0, [%1], 0;" : "=r"(old) : "r"(address()) : "memory");
    return old;
  }
  __device__ void exchange_release(unsigned v)
  {
    asm volatile("{ .reg .b32 old; atom.release.cta.shared::cta.exch.b32 old, [%0], %1; }" ::"r"(address()), "r"(v) : "memory");
  }
};

}  // namespace twobody::detail
