/// \file mma_tile.cuh
/// \brief Input policy for high-dimensional rows (rows.cuh): the tensor cores compute the inner
/// products of a tile pair, and every pair the approximation cannot decide for certain is
/// recomputed exactly (rows/mma_traversal.cuh, docs/highdim.md).
#pragma once

#include <twobody/policy/cost_constants.cuh>
#include <twobody/policy/kinds.cuh>
#include <twobody/policy/shapes.cuh>

namespace twobody::input {

/// 128 x 128 rows per tile pair, 256 threads (8 warps of 64 x 32 products each), coordinates
/// staged through dynamic shared memory 128 bytes of each row at a time (cp.async, `stages`
/// chunks in flight), fragments read with ldmatrix, and mma.sync: m16n8k16 for __half and
/// __nv_bfloat16, m16n8k8 TF32 for float (rounded to nearest), accumulating in FP32 afresh for
/// every `group_chunks` chunks (the groups are then added in FP32, which keeps the proven error
/// margin of a product small at large D: rows/row_terms.cuh). Needs sm_80 or newer.
/// Compiled for sm_90a (-arch=sm_90a, CMake architecture 90a), half and bfloat16 rows of at
/// least `wgmma_min_dims` padded coordinates take wgmma instead (two warpgroups of 64 x 128,
/// both operands from 128-byte-swizzled shared memory, 4 stages): the same tile, margin and
/// exact answers, 1.2-1.5x faster at D >= 256 on the H100 (docs/highdim.md).
struct mma_tile {
  static constexpr char const* name     = "mma_tile";
  static constexpr input_kind kind      = {name};  ///< listed in model/registry.cuh
  static constexpr int block_threads     = 256;
  static constexpr int tile              = 128;  ///< rows per tile, both sides
  /// 128 bytes of each row per step and 3 stages (110 KB): one barrier per 4 k-steps instead of
  /// 2 took the half-row count from 39.6 to 34.6 ms at D = 960 and from 155 to 132 ms at
  /// D = 4096 (64 bytes, 4 stages before; H100, bench_highdim). 4 stages of 128 bytes were no
  /// faster and pushed knn's lists of k = 100 out of shared memory (1.6x slower).
  static constexpr int chunk_bytes       = 128;  ///< bytes of each row staged per step (rows padded to it)
  static constexpr int stages            = 3;    ///< chunks staged at once (2 loads in flight)
  static constexpr int group_chunks      = 1;    ///< chunks accumulated afresh before adding to the total
  static constexpr int min_blocks_per_sm = 1;
  static constexpr int band_rows         = 8;  ///< tile pairs run in bands of this many tile rows (tile_schedule::with_bands)
#ifndef TWOBODY_WGMMA_MIN_DIMS
#define TWOBODY_WGMMA_MIN_DIMS 128
#endif
  /// Half and bfloat16 rows of at least this many (padded) coordinates take wgmma where the code
  /// is compiled for sm_90a (-arch=sm_90a); mma.sync otherwise. At 64 (D <= 64) wgmma measured
  /// 3% slower, at 128 3-6% faster (H100, bench_highdim).
  static constexpr int wgmma_min_dims = TWOBODY_WGMMA_MIN_DIMS;
};

}  // namespace twobody::input

namespace twobody::policy {

/// The registry's description of input::mma_tile (model/registry.cuh lists it): the only input
/// of rows, so the cost model never weighs it against the tiles of points<T, D> (no one-call
/// shapes). Its constants are not calibrated (the row statistics do not plan with them).
struct mma_tile_family {
  static constexpr input_kind kind            = input::mma_tile::kind;
  static constexpr char const* name           = kind.name;
  static constexpr bool tile_in_shared_memory = true;
  template <int B, int R, int = 1>
  using type     = input::mma_tile;
  using one_call = shape_list<>;
  static constexpr cost_constants h100(int, int) { return {{7.25e-11, h100_c_lp, h100_saturation}, 5.5e-11, 3.54}; }
};

}  // namespace twobody::policy
