/// \file mma_tile.cuh
/// \brief Input policy for high-dimensional rows (rows.cuh): the tensor cores compute the inner
/// products of a tile pair, and every pair the approximation cannot decide for certain is
/// recomputed exactly (detail/mma_traversal.cuh, docs/highdim.md).
#pragma once

#include <twobody/model/policy_kinds.cuh>

namespace twobody::input {

/// 128 x 128 rows per tile pair, 256 threads (8 warps of 64 x 32 products each), coordinates
/// staged through dynamic shared memory 64 bytes of each row at a time (cp.async, `stages`
/// chunks in flight), fragments read with ldmatrix, and mma.sync: m16n8k16 for __half and
/// __nv_bfloat16, m16n8k8 TF32 for float (rounded to nearest), accumulating in FP32 afresh for
/// every `group_chunks` chunks (the groups are then added in FP32, which keeps the proven error
/// margin of a product small at large D: detail/mma_traversal.cuh). Needs sm_80 or newer.
struct mma_tile {
  static constexpr input_kind kind       = input_kind::mma_tile;
  static constexpr char const* name      = "mma_tile";
  static constexpr int block_threads     = 256;
  static constexpr int tile              = 128;  ///< rows per tile, both sides
  static constexpr int chunk_bytes       = 64;   ///< bytes of each row staged per step
  static constexpr int stages            = 4;    ///< chunks staged at once (3 loads in flight)
  static constexpr int group_chunks      = 2;    ///< chunks accumulated afresh before adding to the total
  static constexpr int min_blocks_per_sm = 1;
};

}  // namespace twobody::input
