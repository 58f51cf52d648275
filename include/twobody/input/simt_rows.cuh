/// \file simt_rows.cuh
/// \brief Input policy for high-dimensional rows on the CUDA cores: FP32 fused multiply-adds
/// instead of the tensor cores (rows/simt_row_products.cuh). The baseline the tensor-core
/// tile (mma_tile.cuh) is measured against, and the path for GPUs without tensor-core TF32.
#pragma once

#include <twobody/policy/cost_constants.cuh>
#include <twobody/policy/kinds.cuh>
#include <twobody/policy/shapes.cuh>

namespace twobody::input {

/// 128 x 128 rows per tile pair, 256 threads each computing 8 x 8 inner products in FP32 by
/// fma (the register blocking of a plain SGEMM), rows staged 64 bytes at a time through shared
/// memory (converted to float, transposed, two stages). Exact like mma_tile: the pairs within
/// the products' error margin are recomputed exactly. Needs no tensor cores.
struct simt_rows {
  static constexpr char const* name     = "simt_rows";
  static constexpr input_kind kind      = {name};  ///< listed in model/registry.cuh
  static constexpr int block_threads     = 256;
  static constexpr int tile              = 128;  ///< rows per tile, both sides
  static constexpr int chunk_bytes       = 64;   ///< bytes of each stored row staged per step (as mma_tile)
  static constexpr int min_blocks_per_sm = 1;
};

}  // namespace twobody::input

namespace twobody::policy {

/// The registry's description of input::simt_rows (model/registry.cuh lists it): the baseline of mma_tile and nothing the
/// planner of points weighs (no one-call shapes); not calibrated.
struct simt_rows_family {
  static constexpr input_kind kind            = input::simt_rows::kind;
  static constexpr char const* name           = kind.name;
  static constexpr bool tile_in_shared_memory = true;
  template <int B, int R, int = 1>
  using type     = input::simt_rows;
  using one_call = shape_list<>;
  static constexpr cost_constants h100(int, int) { return {{7.25e-11, h100_c_lp, h100_saturation}, 5.5e-11, 3.54}; }
};

}  // namespace twobody::policy
