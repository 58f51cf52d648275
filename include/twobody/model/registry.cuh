/// \file registry.cuh
/// \brief The policy registry: every input and output policy described once, by name, the
/// point types it works for, the shapes the one-call forms compile, and its cost-model
/// constants. The cost model (choose_policy, default_candidates), TWOBODY_POLICY and the
/// one-call forms (detail/auto_policy.cuh) read these entries; nothing else lists policies.
///
/// Adding an input policy: its header in input/ (with `static constexpr input_kind kind`), an
/// enumerator in policy_kinds.cuh, one `input_entry` specialization here and its name in
/// `registered_inputs`, its tests, and calibration constants (bench_cost_model --calibrate).
/// docs/policies.md has the recipe.
#pragma once

#include <twobody/input/naive.cuh>
#include <twobody/input/readonly_tile.cuh>
#include <twobody/input/shared_tile.cuh>
#include <twobody/input/shuffle_tile.cuh>
#include <twobody/model/policy_kinds.cuh>
#include <twobody/model/privatization.cuh>

#include <cuda/std/type_traits>

namespace twobody {

/// The model's constants for one input candidate on one GPU.
struct cost_constants {
  privatization_constants histogram;  ///< privatized histograms
  double reduction_c_l;               ///< seconds per pair per SM of a pair count (registers output)
  double diagonal_cost;               ///< time of a diagonal tile pair (self mode) over an off-diagonal one
};

namespace model {

/// Statistics a compiled shape serves in the one-call forms (bit set).
enum statistic_use : unsigned { for_reduction = 1u, for_histogram = 2u, for_per_point = 4u };

/// A shape the one-call forms compile for an input policy, with its kernels' registers per
/// thread on sm_90 (-Xptxas -v), which plan without a GPU; with one, the real counts are read.
template <unsigned Uses, int BlockThreads, int PointsPerThread, int Sm90Registers>
struct compiled_shape {
  static constexpr unsigned uses           = Uses;
  static constexpr int block_threads       = BlockThreads;
  static constexpr int points_per_thread   = PointsPerThread;
  static constexpr int sm90_registers      = Sm90Registers;
};
template <class... Shapes>
struct shape_list {};

/// The rule that decides which shapes a point type can take: 8 own points per thread only for
/// float points of up to 4 dimensions (more spill registers).
constexpr bool points_per_thread_fit(int value_bytes, int dims, int points_per_thread)
{
  return points_per_thread < 8 || (value_bytes == 4 && dims <= 4);
}

// H100 SXM constants, measured by `bench_cost_model --calibrate`, 2026-11-23, commit 2bfbc9d
// (benchmarks/results/calibration-h100-2026-11-23.txt): a 2^20-point SDH, 256 bins, H = 32
// for C_L; H = 16..1 (least squares) for C_LP; 4096 bins with H = 8 (8 warps/SM) against
// H = 4 (16 warps/SM) for the saturation; 2PCF counts for the reductions; 256 bins at
// N = 2^16 for the diagonal costs. Other GPUs use these too: the choice depends on their
// ratios, the predicted seconds are then rough.
inline constexpr double h100_c_lp       = 1.516e-13;
inline constexpr double h100_saturation = 9.2;

/// The grid traversal's privatized histograms (grid.cuh): only the ratio of C_LP to C_L and the
/// saturation pick its copies. Not calibrated on their own: the read-only tile's C_L (the grid
/// kernel reads most partners through the read-only cache, one pair at a time).
inline constexpr privatization_constants grid_histogram_h100{7.25e-11, h100_c_lp, h100_saturation};

/// One registry entry per input policy (specializations below).
template <input_kind K>
struct input_entry;

template <>
struct input_entry<input_kind::shared_tile> {
  static constexpr input_kind kind            = input_kind::shared_tile;
  static constexpr char const* name          = "shared_tile";
  static constexpr bool tile_in_shared_memory = true;
  template <int B, int R>
  using type     = input::shared_tile<B, R>;
  using one_call = shape_list<compiled_shape<for_histogram | for_per_point, 256, 8, 128>,
                              compiled_shape<for_histogram | for_per_point | for_reduction, 256, 4, 126>>;
  static constexpr cost_constants h100(int points_per_thread)
  {
    return points_per_thread >= 8 ? cost_constants{{5.521e-11, h100_c_lp, h100_saturation}, 3.349e-11, 1.92}
                                  : cost_constants{{5.67e-11, h100_c_lp, h100_saturation}, 3.352e-11, 2.39};
  }
};

template <>
struct input_entry<input_kind::shuffle_tile> {
  static constexpr input_kind kind            = input_kind::shuffle_tile;
  static constexpr char const* name          = "shuffle_tile";
  static constexpr bool tile_in_shared_memory = false;
  template <int B, int R>
  using type     = input::shuffle_tile<B, R>;
  using one_call = shape_list<compiled_shape<for_histogram, 256, 4, 96>>;  // frees shared memory for copies
  static constexpr cost_constants h100(int) { return {{6.307e-11, h100_c_lp, h100_saturation}, 4.0e-11, 3.54}; }
};

template <>
struct input_entry<input_kind::readonly_tile> {
  static constexpr input_kind kind            = input_kind::readonly_tile;
  static constexpr char const* name          = "readonly_tile";
  static constexpr bool tile_in_shared_memory = false;
  template <int B, int R>
  using type     = input::readonly_tile<B, R>;
  using one_call = shape_list<>;  // explicit forms only
  // Not calibrated: from bench_suite (1.82 T pairs/s SDH, 2.39 T 2PCF), shuffle's diagonal cost.
  static constexpr cost_constants h100(int) { return {{7.25e-11, h100_c_lp, h100_saturation}, 5.5e-11, 3.54}; }
};

template <>
struct input_entry<input_kind::naive> {
  static constexpr input_kind kind            = input_kind::naive;
  static constexpr char const* name          = "naive";
  static constexpr bool tile_in_shared_memory = false;
  template <int B, int R>
  using type     = input::naive<B>;
  using one_call = shape_list<>;  // baseline, explicit forms only
  static constexpr cost_constants h100(int) { return {{7.25e-11, h100_c_lp, h100_saturation}, 5.5e-11, 3.54}; }
};

/// Every registered input policy, in the order the planner prefers on equal predictions.
template <input_kind... K>
struct input_kinds {};
using registered_inputs =
  input_kinds<input_kind::shared_tile, input_kind::shuffle_tile, input_kind::readonly_tile, input_kind::naive>;

/// Calls fn(input_entry<K>{}) for every registered input policy.
template <class Fn, input_kind... K>
constexpr void for_each_input(input_kinds<K...>, Fn&& fn)
{
  (fn(input_entry<K>{}), ...);
}
template <class Fn>
constexpr void for_each_input(Fn&& fn)
{
  for_each_input(registered_inputs{}, fn);
}

/// Calls fn(Shape{}) for every shape of a shape list.
template <class Fn, class... S>
constexpr void for_each_shape(shape_list<S...>, Fn&& fn)
{
  (fn(S{}), ...);
}

}  // namespace model

/// The registered name of an input kind.
inline char const* to_string(input_kind k)
{
  char const* name = "?";
  model::for_each_input([&](auto e) {
    if (decltype(e)::kind == k) { name = decltype(e)::name; }
  });
  return name;
}

inline char const* to_string(output_kind k)
{
  switch (k) {
    case output_kind::registers: return "registers";
    case output_kind::per_point_sum: return "per_point_sum";
    case output_kind::warp_privatized: return "warp_privatized";
    default: return "direct_output_buffer";
  }
}

}  // namespace twobody
