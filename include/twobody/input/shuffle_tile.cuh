/// \file shuffle_tile.cuh
/// \brief Input policy with no shared memory: each lane loads one column point into a
/// register and the warp broadcasts them one by one with `__shfl_sync`.
///
/// Pitaksirianan et al., Sec. 3.4.2 (Algorithm 6). Diagonal tiles (pairs inside one
/// tile) read their partners through the read-only cache instead, since a partner may
/// sit in another warp; they are a vanishing share of the work.
#pragma once

#include <twobody/math/stored_point.cuh>
#include <twobody/points.cuh>
#include <twobody/policy/cost_constants.cuh>
#include <twobody/policy/kinds.cuh>
#include <twobody/policy/shapes.cuh>

namespace twobody {
namespace detail {

template <class Points, int BlockThreads, int PointsPerThread>
struct shuffle_column_source {
  using T                 = typename Points::value_type;
  static constexpr int D  = Points::dims;
  static constexpr bool W = Points::weighted;
  using stored            = stored_point<T, D, W>;
  static constexpr int values = stored::values;
  struct temp_storage {};

  Points pts;
  size_type diagonal_start = 0;

  __device__ shuffle_column_source(temp_storage&, unsigned char*, Points const& p, bool) : pts(p) {}

  __device__ stored load(size_type i) const { return stored::make(pts.load_readonly(i), pts.weight_readonly(i)); }

  __device__ void stage(size_type start, int) { diagonal_start = start; }
  __device__ stored at(int j) const { return load(diagonal_start + j); }

  template <class Visit>
  __device__ void for_each(size_type start, int count, Visit&& visit)
  {
    int const lane = threadIdx.x & 31;
    for (int base = 0; base < count; base += 32) {
      int const in_chunk = count - base < 32 ? count - base : 32;  // warp-uniform
      stored mine{};
      if (lane < in_chunk) { mine = load(start + base + lane); }
      auto visit_lane = [&](int k) {
        stored b;
#pragma unroll
        for (int v = 0; v < values; ++v) { b.v[v] = __shfl_sync(0xffffffffu, mine.v[v], k); }
        visit(b);
      };
      if (in_chunk == 32) {  // full chunks: compile-time trip count
#pragma unroll 8
        for (int k = 0; k < 32; ++k) { visit_lane(k); }
      } else {
#pragma unroll 4
        for (int k = 0; k < in_chunk; ++k) { visit_lane(k); }
      }
    }
  }
};

}  // namespace detail

namespace input {

/// Warp-shuffle tile: column points travel between lanes by shuffles; no shared memory.
template <int BlockThreads = 256, int PointsPerThread = 4>
struct shuffle_tile {
  static_assert(BlockThreads % 32 == 0 && BlockThreads >= 32 && BlockThreads <= 1024,
                "shuffle_tile: BlockThreads must be a multiple of 32 in [32, 1024]");
  static_assert(PointsPerThread >= 1 && PointsPerThread <= 16, "shuffle_tile: PointsPerThread must be in [1, 16]");
  static constexpr int block_threads     = BlockThreads;
  static constexpr int points_per_thread = PointsPerThread;
  static constexpr bool tiled            = true;
  template <class Points>
  using column_source = detail::shuffle_column_source<Points, BlockThreads, PointsPerThread>;
  static constexpr char const* name     = "shuffle_tile";
  static constexpr input_kind kind      = {name};  ///< listed in model/registry.cuh
};

}  // namespace input

namespace policy {

/// The registry's description of input::shuffle_tile (model/registry.cuh lists it).
struct shuffle_tile_family {
  static constexpr input_kind kind            = input::shuffle_tile<>::kind;
  static constexpr char const* name           = kind.name;
  static constexpr bool tile_in_shared_memory = false;
  template <int B, int R, int = 1>
  using type     = input::shuffle_tile<B, R>;
  // No tile in shared memory: it is all the copies' (and the cluster shares').
  using one_call = shape_list<compiled_shape<for_histogram, 256, 4, 96>, compiled_shape<for_cluster_histogram, 256, 4, 96>>;
  static constexpr cost_constants h100(int, int) { return {{6.307e-11, h100_c_lp, h100_saturation}, 4.0e-11, 3.54}; }
};

}  // namespace policy
}  // namespace twobody
