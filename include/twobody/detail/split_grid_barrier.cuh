/// \file split_grid_barrier.cuh
/// \brief A grid barrier of a cooperative launch split into its two halves: a block arrives
/// once its share of some setup is done (zeroing an output) and waits only where it first needs
/// every block's share (its first global add), so the barrier's latency passes while the block
/// counts pairs. Compiles under NVRTC (run-time functors' kernels include it).
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

}  // namespace twobody::detail
