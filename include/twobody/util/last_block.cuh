/// \file last_block.cuh
/// \brief The last block to finish a kernel, by ticket: outputs that accumulate with atomics
/// into scratch that is zero between calls (util/zeroed_scratch.cuh) move their result out
/// from there and zero it again (move_out_in_last_block). Compiles under NVRTC (run-time functors' kernels include it).
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

/// The end of a kernel that accumulated into zeroed scratch `from` (every thread of every block
/// calls it after its atomics there): the last block to finish moves from[0, n) to `to`, zeroes
/// it, and resets *ticket, so the scratch and the ticket are zero for the next call.
template <class T, class Size>
__device__ void move_out_in_last_block(T* to, T* from, Size n, unsigned* ticket)
{
  if (!last_block_to_finish(ticket)) { return; }
  // Eight loads in flight per thread: small sets run blocks of 32 threads, and a value at a
  // time made 1024 per-point sums 32 dependent L2 round trips after the pairs were done.
  constexpr int batch = 8;
  Size const stride   = static_cast<Size>(blockDim.x);
#pragma unroll 1  // one block, once per call
  for (Size first = threadIdx.x; first < n; first += batch * stride) {
    T value[batch];
#pragma unroll
    for (int k = 0; k < batch; ++k) {
      Size const i = first + k * stride;
      value[k]     = i < n ? __ldcg(from + i) : T{};  // from L2: this SM's L1 may hold stale lines
    }
#pragma unroll
    for (int k = 0; k < batch; ++k) {
      Size const i = first + k * stride;
      if (i < n) {
        to[i]   = value[k];
        from[i] = T{};
      }
    }
  }
  if (threadIdx.x == 0) { *ticket = 0; }
}

}  // namespace twobody::detail
