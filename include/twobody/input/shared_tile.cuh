/// \file shared_tile.cuh
/// \brief Input policy: own points in registers, the other side's tile in shared memory.
///
/// Pitaksirianan et al., Sec. 3.2 ("Register-SHM"), extended with register blocking:
/// each thread keeps PointsPerThread own points in registers, so one broadcast shared
/// load of a column point feeds PointsPerThread pairs. With ColumnGroups > 1 the block's
/// threads form that many groups over the same own points, each taking its share of every
/// column tile: more warps per tile pair where small sets have too few tile pairs to fill the
/// GPU.
#pragma once

#include <twobody/math/stored_point.cuh>
#include <twobody/points.cuh>
#include <twobody/policy/cost_constants.cuh>
#include <twobody/policy/kinds.cuh>
#include <twobody/policy/shapes.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/type_traits>

namespace twobody {
namespace detail {

template <class Points, int BlockThreads, int PointsPerThread, int ColumnGroups = 1>
struct shared_column_source {
  using T                 = typename Points::value_type;
  static constexpr int D  = Points::dims;
  static constexpr bool W = Points::weighted;
  static constexpr int column_groups = ColumnGroups;
  static constexpr int tile   = BlockThreads / ColumnGroups * PointsPerThread;
  using stored            = stored_point<T, D, W>;

  struct tile_storage {
    stored pts[tile];
  };
  /// A kernel may declare at most 48 KiB of static shared memory on every GPU (sm_90 alone lets
  /// ptxas take more), and the visitor's and the unit source's storage share them. Tiles past
  /// 32 KiB (2048 double 3-D points, or more than 16 bytes a point) live in the launch's dynamic
  /// shared memory instead, ahead of the visitor's (dynamic_bytes; the launches add it and
  /// raise the kernel's limit): on sm_80 and sm_90 they fit there, and where they do not
  /// (sm_75's 64 KiB) the planner does not pick them.
  static constexpr bool tile_is_dynamic = sizeof(tile_storage) > 32 * 1024;
  static constexpr cuda::std::size_t dynamic_bytes = tile_is_dynamic ? (sizeof(tile_storage) + 127) / 128 * 128 : 0;
  struct no_storage {};
  using temp_storage = cuda::std::conditional_t<tile_is_dynamic, no_storage, tile_storage>;

  tile_storage& storage;
  Points pts;
  bool vector_loads;  // coordinate arrays 16-byte aligned: stage tiles with vector loads

  /// `dynamic`: the launch's dynamic shared memory (the tile's, where tile_is_dynamic).
  __device__ shared_column_source(temp_storage& s, unsigned char* dynamic, Points const& p, bool aligned)
    : storage(tile_of(s, dynamic)), pts(p), vector_loads(aligned)
  {
  }

  __device__ static tile_storage& tile_of(temp_storage& s, unsigned char* dynamic)
  {
    if constexpr (tile_is_dynamic) {
      return *reinterpret_cast<tile_storage*>(dynamic);
    } else {
      (void)dynamic;
      return s;
    }
  }

  /// Copies points [start, start + count) into shared memory (block-wide; contains barriers).
  __device__ void stage(size_type start, int count)
  {
    stage_with(start, count, [] {});
  }
  /// stage, and between() where no thread reads the last tile any more and every thread will
  /// read what it writes (between the two barriers).
  template <class Between>
  __device__ void stage_with(size_type start, int count, Between&& between)
  {
    __syncthreads();  // the previous tile may still be read by slower warps
    between();
    constexpr int V = (sizeof(T) == 4 && PointsPerThread % 4 == 0) ? 4 : ((PointsPerThread % 2 == 0) ? 2 : 1);
    if (V > 1 && vector_loads && count == tile) {
      // Thread t loads V consecutive values of each coordinate with one vector load.
      using vec = cuda::std::conditional_t<sizeof(T) == 4, cuda::std::conditional_t<V == 4, float4, float2>, double2>;
      for (int base = threadIdx.x * V; base < tile; base += BlockThreads * V) {
        T vals[D + 1][V];
#pragma unroll
        for (int d = 0; d < D; ++d) {
          vec const q = __ldg(reinterpret_cast<vec const*>(pts.coords[d] + start + base));
          T const* qs = reinterpret_cast<T const*>(&q);
#pragma unroll
          for (int k = 0; k < V; ++k) { vals[d][k] = qs[k]; }
        }
#pragma unroll
        for (int k = 0; k < V; ++k) {
          point<T, D> p;
#pragma unroll
          for (int d = 0; d < D; ++d) { p.x[d] = vals[d][k]; }
          storage.pts[base + k] = stored::make(p, pts.weight_readonly(start + base + k));
        }
      }
    } else {
      for (int i = threadIdx.x; i < count; i += BlockThreads) {
        storage.pts[i] = stored::make(pts.load_readonly(start + i), pts.weight_readonly(start + i));
      }
    }
    __syncthreads();
  }

  /// Point j of the staged tile.
  __device__ stored at(int j) const { return storage.pts[j]; }

  /// Columns of a tile of `count` points that each group visits (the last group may get fewer).
  __device__ static int group_share(int count) { return (count + ColumnGroups - 1) / ColumnGroups; }

  /// The first column of a tile of `count` points that this thread's group visits (for_each
  /// visits the group's consecutive share of the columns).
  __device__ static int first_column(int count)
  {
    if constexpr (ColumnGroups == 1) {
      return 0;
    } else {
      int const first = static_cast<int>(threadIdx.x) / (BlockThreads / ColumnGroups) * group_share(count);
      return first < count ? first : count;
    }
  }

  /// Sub-tiles (tile_order.cuh, tile_order_position): one per warp of a block without column
  /// groups. for_each_in_sub_tile visits the columns of sub-tile k of a staged full tile,
  /// visit(j, point j) for j = 32 k + l + BlockThreads i.
  static constexpr bool sub_tile_columns = ColumnGroups == 1;
  template <class Visit>
  __device__ void for_each_in_sub_tile(int k, Visit&& visit) const
  {
#pragma unroll 1
    for (int i = 0; i < PointsPerThread; ++i) {
      stored const* part = storage.pts + 32 * k + BlockThreads * i;
#pragma unroll 8
      for (int l = 0; l < 32; ++l) { visit(32 * k + BlockThreads * i + l, part[l]); }
    }
  }

  template <class Visit>
  __device__ void for_each(size_type start, int count, Visit&& visit)
  {
    stage(start, count);
    if constexpr (ColumnGroups == 1) {
      if (count == tile) {  // full tiles: a compile-time trip count lets the loop unroll cleanly
#pragma unroll 8
        for (int j = 0; j < tile; ++j) { visit(storage.pts[j]); }
      } else {
#pragma unroll 4
        for (int j = 0; j < count; ++j) { visit(storage.pts[j]); }
      }
    } else {
      int const first = first_column(count);
      if (count == tile) {
        constexpr int share = tile / ColumnGroups;
        stored const* part  = storage.pts + first;
#pragma unroll 8
        for (int j = 0; j < share; ++j) { visit(part[j]); }
      } else {
        int const end  = first + group_share(count);
        int const last = end < count ? end : count;
#pragma unroll 4
        for (int j = first; j < last; ++j) { visit(storage.pts[j]); }
      }
    }
  }
};

}  // namespace detail

namespace input {

/// Shared-memory tile: BlockThreads threads, PointsPerThread own points per thread in
/// registers, the column tile (BlockThreads / ColumnGroups * PointsPerThread points) in shared
/// memory. MinBlocksPerSM > 1 caps registers so that many blocks fit on an SM
/// (__launch_bounds__); more resident warps hide more latency, at the risk of spills.
/// ColumnGroups > 1 splits the block into that many groups of whole warps that hold the same
/// own points and share each tile pair's columns (and a diagonal tile's steps) between them:
/// the same tile pairs with ColumnGroups times the warps, for sets too small to fill the GPU.
template <int BlockThreads = 256, int PointsPerThread = 4, int MinBlocksPerSM = 1, int ColumnGroups = 1>
struct shared_tile {
  static_assert(BlockThreads % 32 == 0 && BlockThreads >= 32 && BlockThreads <= 1024,
                "shared_tile: BlockThreads must be a multiple of 32 in [32, 1024]");
  static_assert(PointsPerThread >= 1 && PointsPerThread <= 16, "shared_tile: PointsPerThread must be in [1, 16]");
  static_assert(ColumnGroups >= 1 && BlockThreads % (32 * ColumnGroups) == 0,
                "shared_tile: ColumnGroups must divide the block into groups of whole warps");
  static constexpr int block_threads     = BlockThreads;
  static constexpr int points_per_thread = PointsPerThread;
  static constexpr int min_blocks_per_sm = MinBlocksPerSM;
  static constexpr int column_groups     = ColumnGroups;
  static constexpr bool tiled            = true;
  template <class Points>
  using column_source = detail::shared_column_source<Points, BlockThreads, PointsPerThread, ColumnGroups>;
  static constexpr char const* name     = "shared_tile";
  static constexpr input_kind kind      = {name};  ///< listed in model/registry.cuh
};

}  // namespace input

namespace policy {

/// The registry's description of input::shared_tile (model/registry.cuh lists it).
struct shared_tile_family {
  static constexpr input_kind kind            = input::shared_tile<>::kind;
  static constexpr char const* name           = kind.name;
  static constexpr bool tile_in_shared_memory = true;
  // Column groups are for small sets, whose few tile pairs leave room: four 256-thread blocks
  // per SM (64 registers), so that a 4096-point set's 528 tile pairs run in one wave.
  template <int B, int R, int G = 1>
  using type     = input::shared_tile<B, R, (G > 1 ? 1024 / B : 1), G>;
  // The small tiles (128 x 1 and 32 x 1 points) are for small sets: a 2048-point tile leaves a
  // 256-point set one block with 64 times its pairs in padding, and a 4096-point set 3 tile pairs
  // for 132 SMs. Small sets are latency-bound, so one point per thread; the 128-point tile runs as
  // two column groups of 128 threads (twice the warps on the same tile pairs). bench_frames
  // shape/* names each shape.
  // Passes over windows of the bins past shared memory hold one window per SM: one block, which
  // as 256 threads gives 8 warps per SM, too few to hide a pair's latency (the (r_p, pi)
  // histogram's IEEE square root). 512 threads give 16 warps in one block (92 and 128 registers:
  // the whole register file at most); they measured faster than the 256-thread blocks at every bin
  // count from 65536 to 1 M (bench_bins sdh and rp_pi ordered_passes*/w2, w4 against st4, st8), so
  // the ordered passes take only them.
  // Per-point sums of float points take the 128-point tile as 64 x 2 in four groups. Symmetric
  // sums read a different column per lane (a butterfly of column sums), so two own points per
  // thread halve the shared loads and shuffles per pair (64 registers and 12 bytes of spill for
  // float; double, with 412 bytes, keeps 128 x 1). Cross and one-sided sums take the same shape.
  // Histograms of such points take it too, for the same halved shared loads; counts keep 128 x 1.
  // bench_frames shape/per_point*/tile:64x2/groups:4, shape/rdf128/tile:64x2/groups:4.
  using one_call = shape_list<compiled_shape<for_histogram | for_per_point | for_spill_histogram, 256, 8, 128, 1,
                                             point_fit::float_up_to_4d>,
                              compiled_shape<for_histogram | for_per_point | for_reduction | for_global_histogram |
                                               for_spill_histogram, 256, 4, 126>,
                              compiled_shape<for_per_point | for_histogram, 256, 2, 64, 4, point_fit::float_up_to_3d>,
                              compiled_shape<for_reduction, 256, 1, 59, 2>,
                              compiled_shape<for_histogram, 256, 1, 59, 2, point_fit::not_float_up_to_3d>,
                              compiled_shape<for_per_point, 256, 1, 64, 2, point_fit::not_float_up_to_3d>,
                              compiled_shape<for_histogram | for_per_point | for_reduction, 32, 1, 64>,
                              compiled_shape<for_ordered_passes, 512, 2, 92>, compiled_shape<for_ordered_passes, 512, 4, 124>>;
  // The small tiles' rates, set above the large tiles' so that large problems keep those (small
  // sets are latency-bound: model::predicted_seconds); the saturation: ncu on bench_frames
  // floor/count/async/4096; the 32-point tile's factor: bench_frames shape/rdf128/tile:32x1
  // against tile:128x1 at 4096 points.
  static constexpr double small_tile_c_l           = 7.2e-11;
  static constexpr double small_tile_reduction_c_l = 4.2e-11;
  static constexpr double small_tile_saturation    = 32.0;
  static constexpr double tiny_tile_factor         = 1.8;
  /// row_threads: the threads that hold a tile's own points (block_threads / column groups).
  static constexpr cost_constants h100(int row_threads, int points_per_thread)
  {
    if (row_threads * points_per_thread <= 32) {
      return {{small_tile_c_l * tiny_tile_factor, h100_c_lp, small_tile_saturation}, small_tile_reduction_c_l * tiny_tile_factor,
              2.39};
    }
    if (row_threads * points_per_thread <= 128) {
      return {{small_tile_c_l, h100_c_lp, small_tile_saturation}, small_tile_reduction_c_l, 2.39};
    }
    return points_per_thread >= 8 ? cost_constants{{5.521e-11, h100_c_lp, h100_saturation}, 3.349e-11, 1.92}
                                  : cost_constants{{5.67e-11, h100_c_lp, h100_saturation}, 3.352e-11, 2.39};
  }
};

}  // namespace policy
}  // namespace twobody
