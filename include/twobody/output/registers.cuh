/// \file registers.cuh
/// \brief Output policy for Type I statistics: each thread reduces its pairs in registers
/// with any associative operator, the block combines them with cub::BlockReduce, and each
/// block writes one partial (one global write per block). The partials are folded in block
/// order, deterministic for a given grid: by the last block of the same kernel to finish, found
/// by a ticket in zeroed scratch (host-synchronous calls), by block 0 after a grid barrier (a
/// cooperative launch, one kernel per call), or by cub::DeviceReduce after it. Integer sums (the
/// counts) need no partials in a cooperative launch: after a grid barrier every block adds its
/// total to the result atomically, which is exact in any order.
///
/// Pitaksirianan et al., Sec. 3.3 (Type I output in registers).
#pragma once

#include <twobody/points.cuh>
#include <twobody/policy/kinds.cuh>
#include <twobody/util/last_block.cuh>
#include <twobody/util/split_grid_barrier.cuh>

#include <cub/block/block_reduce.cuh>
#include <cuda/std/functional>
#include <cuda/std/type_traits>

#include <cooperative_groups.h>

namespace twobody {
namespace output {

/// Reduce in registers (count, sum, min, max, any monoid).
struct registers {
  static constexpr char const* name     = "registers";
  static constexpr output_kind kind     = {name};  ///< its family, listed in model/registry.cuh
  static constexpr unsigned statistics  = serves(statistic_kind::reduction);
  static constexpr bool chosen_by_model = true;  ///< the cost model may choose it
};

}  // namespace output

namespace detail {

/// Per-thread state of the register reduction. `Inner` is a narrower accumulator used
/// between tiles for counts (32-bit adds in the hot loop, folded into the 64-bit `T` after
/// every work unit, long before 2^32 pairs can reach one thread).
template <class T, class Op, class Inner, int BlockThreads>
struct reduction_agent {
  static constexpr bool narrow = !cuda::std::is_same_v<T, Inner>;

  struct params {
    T* partials;  ///< one slot per block
    Op op;
    T identity;
    T* result = nullptr;  ///< if set, one block folds the partials into *result
    /// With result and an arithmetic T: zero at the launch, with `partials` in the same zeroed
    /// scratch (util/zeroed_scratch.cuh); the last block to finish folds and leaves both zero.
    /// Without: block 0 folds after a grid barrier (needs a cooperative launch).
    unsigned* ticket = nullptr;
    /// With result, no ticket and a cooperative launch of an integer sum (add_in_any_order):
    /// block 0 zeroes *result at the start, and each block adds its total atomically at the end
    /// once every block has arrived at the grid barrier (arrived at the start, so nobody waits
    /// there in practice); `partials` is unused (the one-call count needs no scratch).
    bool add_into_result = false;
  };
  /// Integer sums are exact in any order, so blocks may add into the result atomically.
  static constexpr bool add_in_any_order =
    cuda::std::is_integral_v<T> && (sizeof(T) == 4 || sizeof(T) == 8) && cuda::std::is_same_v<Op, cuda::std::plus<T>>;
  using block_reduce = cub::BlockReduce<T, BlockThreads>;
  struct temp_storage {
    typename block_reduce::TempStorage reduce;
    split_grid_barrier zeroed;  ///< add_into_result: the result is zero once every block arrived
  };

  temp_storage& storage;
  params p;
  T outer;
  Inner inner;

  __device__ reduction_agent(params const& p_, temp_storage& s, void*) : storage(s), p(p_), outer(p_.identity), inner{}
  {
    if constexpr (!narrow) { inner = p_.identity; }
    if constexpr (add_in_any_order) {
      if (p.add_into_result) {
        if (blockIdx.x == 0 && threadIdx.x == 0) { *p.result = T{}; }
        // Arrive now, wait at the end: the barrier's latency passes while the pairs are counted.
        storage.zeroed.arrive(blockIdx.x == 0);
      }
    }
  }

  template <class V>
  __device__ void accumulate(V const& v)
  {
    if constexpr (narrow) {
      inner += static_cast<Inner>(v);
    } else {
      inner = p.op(inner, static_cast<T>(v));
    }
  }

  template <class V, class Wt>
  __device__ void accumulate(V const& v, Wt w)
  {
    static_assert(!narrow, "weighted reductions accumulate in T");
    inner = p.op(inner, static_cast<T>(static_cast<T>(v) * w));
  }

  __device__ void end_unit(unsigned long long)
  {
    if constexpr (narrow) {
      outer = p.op(outer, static_cast<T>(inner));
      inner = Inner{};
    }
  }

  /// This thread's fold of the partials b = threadIdx.x + k * BlockThreads, in order, read from
  /// L2 (volatile: other SMs wrote them) in batches, so that a thread's round trips overlap; each
  /// is zeroed for the scratch's next use (the host uses the ticket only for arithmetic T).
  __device__ T fold_and_zero_partials()
  {
    T mine = p.identity;
    if constexpr (cuda::std::is_arithmetic_v<T>) {
      constexpr unsigned batch = 4;
      for (unsigned b0 = threadIdx.x; b0 < gridDim.x; b0 += batch * BlockThreads) {
        T part[batch];
#pragma unroll
        for (unsigned k = 0; k < batch; ++k) {
          unsigned const b = b0 + k * BlockThreads;
          part[k]          = b < gridDim.x ? static_cast<T const volatile*>(p.partials)[b] : p.identity;
        }
#pragma unroll
        for (unsigned k = 0; k < batch; ++k) {
          unsigned const b = b0 + k * BlockThreads;
          if (b < gridDim.x) {
            mine          = p.op(mine, part[k]);
            p.partials[b] = T{};
          }
        }
      }
    }
    return mine;
  }

  __device__ void finish()
  {
    end_unit(0);
    T const total = block_reduce(storage.reduce).Reduce(narrow ? outer : inner, p.op);
    if constexpr (add_in_any_order) {
      if (p.add_into_result) {
        storage.zeroed.wait_once();  // block 0's zero lands before any block adds
        if (threadIdx.x == 0 && total != T{}) {
          // Two's-complement addition: the unsigned word's sum is the signed one's too.
          if constexpr (sizeof(T) == 8) {
            atomicAdd(reinterpret_cast<unsigned long long*>(p.result), static_cast<unsigned long long>(total));
          } else {
            atomicAdd(reinterpret_cast<unsigned*>(p.result), static_cast<unsigned>(total));
          }
        }
        return;
      }
    }
    if (threadIdx.x == 0) { p.partials[blockIdx.x] = total; }
    if (p.result == nullptr) { return; }
    // One kernel instead of this one and a device reduction: after every block's partial is
    // written, one block folds them in block order (deterministic for a given grid).
    T mine = p.identity;
    if (p.ticket != nullptr) {
      if (!last_block_to_finish(p.ticket)) { return; }  // no block waits for another
      mine = fold_and_zero_partials();
    } else {
      cooperative_groups::this_grid().sync();
      if (blockIdx.x != 0) { return; }
      for (unsigned b = threadIdx.x; b < gridDim.x; b += BlockThreads) { mine = p.op(mine, p.partials[b]); }
    }
    T const all = block_reduce(storage.reduce).Reduce(mine, p.op);
    if (threadIdx.x == 0) {
      *p.result = all;
      if (p.ticket != nullptr) { *p.ticket = 0; }
    }
  }
};

}  // namespace detail
}  // namespace twobody
