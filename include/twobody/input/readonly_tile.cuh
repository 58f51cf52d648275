/// \file readonly_tile.cuh
/// \brief Input policy: own points in registers, column points read straight from global
/// memory through the read-only data cache (`__ldg`), leaving shared memory to the output.
///
/// Pitaksirianan et al., Sec. 3.2 (tiling through the read-only cache, "RoC"). All lanes
/// of a warp read the same column point, so each load is one broadcast cache transaction.
#pragma once

#include <twobody/math/stored_point.cuh>
#include <twobody/points.cuh>
#include <twobody/policy/cost_constants.cuh>
#include <twobody/policy/kinds.cuh>
#include <twobody/policy/shapes.cuh>

namespace twobody {
namespace detail {

template <class Points, int BlockThreads, int PointsPerThread>
struct readonly_column_source {
  using T                 = typename Points::value_type;
  static constexpr int D  = Points::dims;
  static constexpr bool W = Points::weighted;
  using stored            = stored_point<T, D, W>;
  struct temp_storage {};

  Points pts;
  size_type diagonal_start = 0;

  __device__ readonly_column_source(temp_storage&, unsigned char*, Points const& p, bool) : pts(p) {}

  __device__ stored load(size_type i) const { return stored::make(pts.load_readonly(i), pts.weight_readonly(i)); }

  __device__ void stage(size_type start, int) { diagonal_start = start; }
  __device__ stored at(int j) const { return load(diagonal_start + j); }

  template <class Visit>
  __device__ void for_each(size_type start, int count, Visit&& visit)
  {
#pragma unroll 4
    for (int j = 0; j < count; ++j) { visit(load(start + j)); }
  }
};

}  // namespace detail

namespace input {

/// Read-only-cache tile: like shared_tile, but the column tile is read through `__ldg`.
template <int BlockThreads = 256, int PointsPerThread = 4>
struct readonly_tile {
  static_assert(BlockThreads % 32 == 0 && BlockThreads >= 32 && BlockThreads <= 1024,
                "readonly_tile: BlockThreads must be a multiple of 32 in [32, 1024]");
  static_assert(PointsPerThread >= 1 && PointsPerThread <= 16, "readonly_tile: PointsPerThread must be in [1, 16]");
  static constexpr int block_threads     = BlockThreads;
  static constexpr int points_per_thread = PointsPerThread;
  static constexpr bool tiled            = true;
  template <class Points>
  using column_source = detail::readonly_column_source<Points, BlockThreads, PointsPerThread>;
  static constexpr char const* name     = "readonly_tile";
  static constexpr input_kind kind      = {name};  ///< listed in model/registry.cuh
};

}  // namespace input

namespace policy {

/// The registry's description of input::readonly_tile (model/registry.cuh lists it).
struct readonly_tile_family {
  static constexpr input_kind kind            = input::readonly_tile<>::kind;
  static constexpr char const* name           = kind.name;
  static constexpr bool tile_in_shared_memory = false;
  template <int B, int R, int = 1>
  using type     = input::readonly_tile<B, R>;
  using one_call = shape_list<>;  // explicit forms only
  // Not calibrated: bench_suite's SDH and 2PCF rows of readonly_tile; shuffle_tile's diagonal cost.
  static constexpr cost_constants h100(int, int) { return {{7.25e-11, h100_c_lp, h100_saturation}, 5.5e-11, 3.54}; }
};

}  // namespace policy
}  // namespace twobody
