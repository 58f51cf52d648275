/// \file naive.cuh
/// \brief Input policy baseline: one thread per point of A, partners read one by one from
/// global memory, no tiling and no load balancing (self mode walks the triangle j > i, so
/// warps diverge). Pitaksirianan et al., Algorithm 1. For comparison only.
#pragma once

#include <twobody/policy/kinds.cuh>

namespace twobody::input {

template <int BlockThreads = 256>
struct naive {
  static_assert(BlockThreads % 32 == 0 && BlockThreads >= 32 && BlockThreads <= 1024,
                "naive: BlockThreads must be a multiple of 32 in [32, 1024]");
  static constexpr int block_threads     = BlockThreads;
  static constexpr int points_per_thread = 1;
  static constexpr bool tiled            = false;
  static constexpr char const* name     = "naive";
  static constexpr input_kind kind      = {name};  ///< listed in model/registry.cuh
};

}  // namespace twobody::input
