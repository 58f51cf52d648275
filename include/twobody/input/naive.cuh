/// \file naive.cuh
/// \brief Input policy baseline: one thread per point of A, partners read one by one from
/// global memory, no tiling and no load balancing (self mode walks the triangle j > i, so
/// warps diverge). Pitaksirianan et al., Algorithm 1. For comparison only.
#pragma once

#include <twobody/policy/cost_constants.cuh>
#include <twobody/policy/kinds.cuh>
#include <twobody/policy/shapes.cuh>

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

namespace twobody::policy {

/// The registry's description of input::naive (model/registry.cuh lists it).
struct naive_family {
  static constexpr input_kind kind            = input::naive<>::kind;
  static constexpr char const* name           = kind.name;
  static constexpr bool tile_in_shared_memory = false;
  template <int B, int R, int = 1>
  using type     = input::naive<B>;
  using one_call = shape_list<>;  // baseline, explicit forms only
  static constexpr cost_constants h100(int, int) { return {{7.25e-11, h100_c_lp, h100_saturation}, 5.5e-11, 3.54}; }
};

}  // namespace twobody::policy
