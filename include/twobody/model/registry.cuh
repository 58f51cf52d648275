/// \file registry.cuh
/// \brief The policy registry: the two lists of every input and output policy family. Each
/// family describes itself in its own header (input/ and output/): its name, the point types
/// and shapes the one-call forms compile, its cost-model constants. The cost model
/// (choose_policy, default_candidates), TWOBODY_POLICY and the one-call forms
/// (dispatch/auto_policy.cuh) read these lists; nothing else lists policies.
///
/// Adding a policy is its header (the policy type and, for an input, its `_family`
/// description), one line in one of the lists below, and its tests: docs/maintainers/policies.md.
#pragma once

#include <twobody/input/mma_tile.cuh>
#include <twobody/input/naive.cuh>
#include <twobody/input/readonly_tile.cuh>
#include <twobody/input/shared_tile.cuh>
#include <twobody/input/shuffle_tile.cuh>
#include <twobody/input/simt_rows.cuh>
#include <twobody/output/cluster_histogram.cuh>
#include <twobody/output/direct_output_buffer.cuh>
#include <twobody/output/global_atomics.cuh>
#include <twobody/output/nearest_lists.cuh>
#include <twobody/output/per_point.cuh>
#include <twobody/output/privatized_histogram.cuh>
#include <twobody/output/registers.cuh>
#include <twobody/policy/cost_constants.cuh>
#include <twobody/policy/kinds.cuh>
#include <twobody/policy/shapes.cuh>

namespace twobody {

namespace policy {

struct shared_tile_family {
  static constexpr input_kind kind            = input::shared_tile<>::kind;
  static constexpr char const* name          = kind.name;
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

struct shuffle_tile_family {
  static constexpr input_kind kind            = input::shuffle_tile<>::kind;
  static constexpr char const* name          = kind.name;
  static constexpr bool tile_in_shared_memory = false;
  template <int B, int R, int = 1>
  using type     = input::shuffle_tile<B, R>;
  // No tile in shared memory: it is all the copies' (and the cluster shares').
  using one_call = shape_list<compiled_shape<for_histogram, 256, 4, 96>, compiled_shape<for_cluster_histogram, 256, 4, 96>>;
  static constexpr cost_constants h100(int, int) { return {{6.307e-11, h100_c_lp, h100_saturation}, 4.0e-11, 3.54}; }
};

struct naive_family {
  static constexpr input_kind kind            = input::naive<>::kind;
  static constexpr char const* name          = kind.name;
  static constexpr bool tile_in_shared_memory = false;
  template <int B, int R, int = 1>
  using type     = input::naive<B>;
  using one_call = shape_list<>;  // baseline, explicit forms only
  static constexpr cost_constants h100(int, int) { return {{7.25e-11, h100_c_lp, h100_saturation}, 5.5e-11, 3.54}; }
};

/// The tensor-core tile of high-dimensional rows (rows.cuh, highdim.cuh): the only input of
/// rows, so the cost model never weighs it against the tiles of points<T, D> (no one-call
/// shapes). Its constants are not calibrated (the row statistics do not plan with them).
struct mma_tile_family {
  static constexpr input_kind kind            = input::mma_tile::kind;
  static constexpr char const* name          = kind.name;
  static constexpr bool tile_in_shared_memory = true;
  template <int B, int R, int = 1>
  using type     = input::mma_tile;
  using one_call = shape_list<>;
  static constexpr cost_constants h100(int, int) { return {{7.25e-11, h100_c_lp, h100_saturation}, 5.5e-11, 3.54}; }
};

/// The CUDA-core tile of rows (input/simt_rows.cuh): the baseline of mma_tile and nothing the
/// planner of points weighs (no one-call shapes); not calibrated.
struct simt_rows_family {
  static constexpr input_kind kind            = input::simt_rows::kind;
  static constexpr char const* name          = kind.name;
  static constexpr bool tile_in_shared_memory = true;
  template <int B, int R, int = 1>
  using type     = input::simt_rows;
  using one_call = shape_list<>;
  static constexpr cost_constants h100(int, int) { return {{7.25e-11, h100_c_lp, h100_saturation}, 5.5e-11, 3.54}; }
};

}  // namespace policy

namespace model {

/// The grid traversal's privatized histograms (grid.cuh), which have no tile: only the ratio of
/// C_LP to C_L and the saturation pick its copies; C_L is the read-only tile's (the grid kernel
/// reads most partners through the read-only cache, one pair at a time).
inline constexpr privatization_constants grid_histogram_h100{7.25e-11, policy::h100_c_lp, policy::h100_saturation};

template <class... Policies>
struct policy_list {};

/// Every input policy family, in the order the planner prefers on equal predictions.
using registered_inputs = policy_list<policy::shared_tile_family, policy::shuffle_tile_family, policy::readonly_tile_family,
                                      policy::naive_family, policy::mma_tile_family, policy::simt_rows_family>;

/// Every output policy.
using registered_outputs =
  policy_list<output::registers, output::per_point_sum, output::warp_privatized, output::direct_output_buffer<>,
              output::block_privatized, output::global_atomics, output::two_pass, output::cluster_privatized,
              output::nearest_lists>;

/// Calls fn(Family{}) for every registered input family.
template <class Fn, class... Families>
constexpr void for_each_input(policy_list<Families...>, Fn&& fn)
{
  (fn(Families{}), ...);
}
template <class Fn>
constexpr void for_each_input(Fn&& fn)
{
  for_each_input(registered_inputs{}, fn);
}

/// Calls fn(Output{}) for every registered output policy.
template <class Fn, class... Outputs>
constexpr void for_each_output(policy_list<Outputs...>, Fn&& fn)
{
  (fn(Outputs{}), ...);
}
template <class Fn>
constexpr void for_each_output(Fn&& fn)
{
  for_each_output(registered_outputs{}, fn);
}

using policy::for_each_shape;

}  // namespace model
}  // namespace twobody
