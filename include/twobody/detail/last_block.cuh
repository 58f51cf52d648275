/// \file last_block.cuh
/// \brief The last block to finish a kernel, by ticket: outputs that accumulate with atomics
/// into scratch that is zero between calls (detail/zeroed_scratch.cuh) move their result out
/// from there and zero it again. Compiles under NVRTC (run-time functors' kernels include it).
#pragma once

namespace twobody::detail {

/// Called by every thread of every block once the block's atomics on the scratch are issued:
/// true in the last block to get here (block-uniform), which then moves the result out, zeroes
/// what it used and resets *ticket to 0. A ticket instead of a grid barrier: no block waits.
/// The answer reaches the block's threads through the barrier's vote (no shared memory).
__device__ inline bool last_block_to_finish(unsigned* ticket)
{
  __syncthreads();
  bool mine = false;
  if (threadIdx.x == 0) {
    __threadfence();  // the block's atomics (ordered before by the barrier) before its ticket
    mine = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  bool const last = __syncthreads_or(mine) != 0;
  if (last) { __threadfence(); }  // every other block's atomics before the reads that follow
  return last;
}

}  // namespace twobody::detail
