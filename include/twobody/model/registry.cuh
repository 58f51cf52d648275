/// \file registry.cuh
/// \brief The policy registry: every input and output policy described once, by name, the
/// point types it works for, the shapes the one-call forms compile, and its cost-model
/// constants. The cost model (choose_policy, default_candidates), TWOBODY_POLICY and the
/// one-call forms (dispatch/auto_policy.cuh) read these entries; nothing else lists policies.
///
/// Adding an input policy: its header in input/ (with `static constexpr input_kind kind`), an
/// enumerator in policy_kinds.cuh, one `input_entry` specialization here and its name in
/// `registered_inputs`, its tests, and calibration constants (bench_cost_model --calibrate).
/// An output policy: its header in output/ (the policy type with `kind`, its agent), an
/// enumerator, one `output_entry` here and its name in `registered_outputs`, its tests.
/// docs/maintainers/policies.md has the recipe.
#pragma once

#include <twobody/input/mma_tile.cuh>
#include <twobody/input/naive.cuh>
#include <twobody/input/readonly_tile.cuh>
#include <twobody/input/shared_tile.cuh>
#include <twobody/input/shuffle_tile.cuh>
#include <twobody/input/simt_rows.cuh>
#include <twobody/model/policy_kinds.cuh>
#include <twobody/model/privatization.cuh>
#include <twobody/output/cluster_histogram.cuh>
#include <twobody/output/direct_output_buffer.cuh>
#include <twobody/output/global_atomics.cuh>
#include <twobody/output/nearest_lists.cuh>
#include <twobody/output/per_point.cuh>
#include <twobody/output/privatized_histogram.cuh>
#include <twobody/output/registers.cuh>

#include <cuda/std/type_traits>

namespace twobody {

// The cost of a cluster-shared histogram's updates (cluster_privatized) relative to a block's own
// copies. A remote update (red.shared::cluster to another SM) costs 25 to 60 local ones, more the
// more blocks a warp's updates spread over, so for random bins the model never picks clusters.
// Reproduced by bench_bins --explore, sdh/bins:4096/cluster:*/copies:1/shuffle_tile (H100).
namespace model {
inline constexpr cluster_constants h100_cluster{2.14, 1.49e-9, 0.75e-9};
}  // namespace model

/// Histograms with one global atomic per pair (output::global_atomics): seconds per pair for the
/// whole GPU, per_pair + per_pair_per_slot_inverse / slots (same-bin atomics serialize in L2).
struct global_atomic_constants {
  double per_pair;
  double per_pair_per_slot_inverse;
  /// Seconds per update when all of them hit one address (they serialize there): what bounds
  /// updates that spread over few slots.
  double one_address_per_update = 4.0e-10;
};
namespace model {
// Fitted within 8% to bench_bins sdh/bins:{4096,65536,131072,1048576}/global_atomics (H100). The
// one-address rate: a spilling pass whose spilled updates all hit one slot.
inline constexpr global_atomic_constants h100_global{1.09e-11, 9.29e-8, 4.0e-10};
// Passes over windows of the bin range (one copy per block, past shared memory) take this many
// times the model's time of one pass of the same layout: the updates outside the window add zero
// to a spare counter per lane instead of branching (a branch put a convergence barrier per pair in
// the hot loop and cost 2.74). bench_bins sdh/bins:65536 and 262144 in passes (H100).
inline constexpr double h100_window_pass_factor = 1.32;
// A spilling pass (one copy of a window of the bins, the rest to global atomics) takes this many
// times the model's time of one pass of the same layout, plus the global atomics it spills (about
// what global atomics cost for the same share of the pairs). bench_bins sdh/bins:65536/spill (H100).
inline constexpr double h100_spill_pass_factor = 2.0;
// Passes over spread windows on ordered points (model::choose_ordered_passes): a tile pair whose
// slots lie whole in a window costs this many times one pass of the same layout per pair (no
// window test); the others cost window_pass_factor per visit; and a pass spends this long per
// resident block and tile pair of the launch (looking at each, and the passes' tails). Fitted on
// bench_bins sdh/bins:*/ordered_passes* (65536 to 1 M bins, 2 to 32 passes, 1 or 2 copies and blocks
// per SM, 1024- and 2048-point tiles; H100): every prediction within 0.97-1.09 of the measured time.
inline constexpr double h100_whole_window_factor       = 1.075;
inline constexpr double h100_skipped_tile_pair_seconds = 4.1e-6;
// Passes deciding per sub-tile pair: each pass that stages a tile pair not whole in a window
// (its columns loaded, each sub-tile pair's slots bounded by the warps) spends this long per
// resident block, per 1024 points of the tile: fitted with the other constants kept
// (scripts/lib/ordered_passes_fit.py --staged-only) on the same SDH rows past 2 passes and on
// bench_bins rp_pi/bins:*/ordered_passes*: predictions 0.75-1.24 of the measured times.
inline constexpr double h100_staged_tile_pair_seconds = 1.9e-5;
}  // namespace model

/// The model's constants for one input candidate on one GPU.
struct cost_constants {
  privatization_constants histogram;  ///< privatized histograms
  double reduction_c_l;               ///< seconds per pair per SM of a pair count (registers output)
  double diagonal_cost;               ///< time of a diagonal tile pair (self mode) over an off-diagonal one
  cluster_constants cluster = model::h100_cluster;  ///< cluster_privatized (the same for every input)
  global_atomic_constants global = model::h100_global;  ///< global_atomics (the same for every input)
  double window_pass_factor = model::h100_window_pass_factor;  ///< warp_privatized in several passes
  double spill_pass_factor  = model::h100_spill_pass_factor;   ///< warp_privatized spilling to global atomics
  double whole_window_factor = model::h100_whole_window_factor;  ///< ordered passes: tile pairs whole in a window
  double skipped_tile_pair_seconds = model::h100_skipped_tile_pair_seconds;  ///< ordered passes: per tile pair and pass
  double staged_tile_pair_seconds  = model::h100_staged_tile_pair_seconds;   ///< ordered passes: per staging, per 1024 tile points
};

namespace model {

/// Statistics a compiled shape serves in the one-call forms (bit set).
enum statistic_use : unsigned {
  for_reduction         = 1u,
  for_histogram         = 2u,  ///< privatized histograms (warp_privatized)
  for_per_point         = 4u,
  for_cluster_histogram = 8u,  ///< cluster-shared histograms (cluster_privatized, sm_90+)
  for_global_histogram  = 16u, ///< histograms with one global atomic per pair (global_atomics)
  for_spill_histogram   = 32u, ///< one copy of a window of the bins, the other bins to global atomics
  for_ordered_passes    = 64u, ///< passes over spread windows of the bins on points ordered into tiles
};

/// The point types a compiled shape serves: own points and their sums live in registers, so
/// shapes with more of them per thread are only for float points of few dimensions.
enum class point_fit {
  any,                ///< every point type
  float_up_to_4d,     ///< 4-byte values of at most 4 dimensions (8 own points per thread: more spill registers)
  float_up_to_3d,     ///< 4-byte values of at most 3 dimensions
  not_float_up_to_3d  ///< the others: a stand-in where a float_up_to_3d shape does not fit
};

/// Whether points of value_bytes x dims take a shape of fit f.
constexpr bool fits(point_fit f, int value_bytes, int dims)
{
  bool const float_3d = value_bytes == 4 && dims <= 3;
  switch (f) {
    case point_fit::float_up_to_4d: return value_bytes == 4 && dims <= 4;
    case point_fit::float_up_to_3d: return float_3d;
    case point_fit::not_float_up_to_3d: return !float_3d;
    default: return true;
  }
}

/// A shape the one-call forms compile for an input policy, with its kernels' registers per
/// thread on sm_90 (-Xptxas -v), which plan without a GPU; with one, the real counts are read.
/// ColumnGroups > 1: groups of threads that share each tile pair's columns (shared_tile). Fit:
/// the point types it serves.
template <unsigned Uses, int BlockThreads, int PointsPerThread, int Sm90Registers, int ColumnGroups = 1,
          point_fit Fit = point_fit::any>
struct compiled_shape {
  static constexpr unsigned uses           = Uses;
  static constexpr int block_threads       = BlockThreads;
  static constexpr int points_per_thread   = PointsPerThread;
  static constexpr int sm90_registers      = Sm90Registers;
  static constexpr int column_groups       = ColumnGroups;
  static constexpr point_fit fit           = Fit;
};
template <class... Shapes>
struct shape_list {};

// H100 SXM constants, measured by `bench_cost_model --calibrate` (scripts/run_benchmarks.sh with
// CALIBRATE=1 writes its output beside the results): a 2^20-point SDH, 256 bins, H = 32 for C_L; H = 16..1 (least squares) for C_LP; 4096 bins with H = 8 (8 warps/SM) against
// H = 4 (16 warps/SM) for the saturation; 2PCF counts for the reductions; 256 bins at
// N = 2^16 for the diagonal costs. Other GPUs use these too: the choice depends on their
// ratios, the predicted seconds are then rough.
inline constexpr double h100_c_lp       = 1.516e-13;
inline constexpr double h100_saturation = 9.2;

/// The small shared tiles (one point per thread, 128 or 32 points): one shared load per pair
/// instead of one per 4 or 8, and a tile switch every 128 or 32 columns. Their per-pair rate
/// is not calibrated: set above the large tiles' constants so that large problems keep those.
/// Where they win (small sets) the time is latency, which the model's busy-block term gives
/// (model::predicted_seconds); bench_frames measures that side.
inline constexpr double small_tile_c_l           = 7.2e-11;
inline constexpr double small_tile_reduction_c_l = 4.2e-11;
/// Warps per SM at which the small tiles reach their full rate: one point per thread gives a
/// warp little to issue between its shared loads. H100, the count at 4096 points (ncu on
/// bench_frames floor/count/async/4096): 16 resident warps per SM issued on 32% of the cycles,
/// 32 warps on 48%.
inline constexpr double small_tile_saturation = 32.0;
/// The 32-point tile: 1.8 times the 128-point tile's, the ratio of their GPU times for an RDF of
/// 4096 points (27 against 16 us, both at one copy per block), where neither is latency-bound.
inline constexpr double tiny_tile_factor = 1.8;

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

template <>
struct input_entry<input_kind::shuffle_tile> {
  static constexpr input_kind kind            = input_kind::shuffle_tile;
  static constexpr char const* name          = "shuffle_tile";
  static constexpr bool tile_in_shared_memory = false;
  template <int B, int R, int = 1>
  using type     = input::shuffle_tile<B, R>;
  // No tile in shared memory: it is all the copies' (and the cluster shares').
  using one_call = shape_list<compiled_shape<for_histogram, 256, 4, 96>, compiled_shape<for_cluster_histogram, 256, 4, 96>>;
  static constexpr cost_constants h100(int, int) { return {{6.307e-11, h100_c_lp, h100_saturation}, 4.0e-11, 3.54}; }
};

template <>
struct input_entry<input_kind::readonly_tile> {
  static constexpr input_kind kind            = input_kind::readonly_tile;
  static constexpr char const* name          = "readonly_tile";
  static constexpr bool tile_in_shared_memory = false;
  template <int B, int R, int = 1>
  using type     = input::readonly_tile<B, R>;
  using one_call = shape_list<>;  // explicit forms only
  // Not calibrated: from bench_suite (1.82 T pairs/s SDH, 2.39 T 2PCF), shuffle's diagonal cost.
  static constexpr cost_constants h100(int, int) { return {{7.25e-11, h100_c_lp, h100_saturation}, 5.5e-11, 3.54}; }
};

template <>
struct input_entry<input_kind::naive> {
  static constexpr input_kind kind            = input_kind::naive;
  static constexpr char const* name          = "naive";
  static constexpr bool tile_in_shared_memory = false;
  template <int B, int R, int = 1>
  using type     = input::naive<B>;
  using one_call = shape_list<>;  // baseline, explicit forms only
  static constexpr cost_constants h100(int, int) { return {{7.25e-11, h100_c_lp, h100_saturation}, 5.5e-11, 3.54}; }
};

/// The tensor-core tile of high-dimensional rows (rows.cuh, highdim.cuh): the only input of
/// rows, so the cost model never weighs it against the tiles of points<T, D> (no one-call
/// shapes). Its constants are not calibrated (the row statistics do not plan with them).
template <>
struct input_entry<input_kind::mma_tile> {
  static constexpr input_kind kind            = input_kind::mma_tile;
  static constexpr char const* name          = "mma_tile";
  static constexpr bool tile_in_shared_memory = true;
  template <int B, int R, int = 1>
  using type     = input::mma_tile;
  using one_call = shape_list<>;
  static constexpr cost_constants h100(int, int) { return {{7.25e-11, h100_c_lp, h100_saturation}, 5.5e-11, 3.54}; }
};

/// The CUDA-core tile of rows (input/simt_rows.cuh): the baseline of mma_tile and nothing the
/// planner of points weighs (no one-call shapes); not calibrated.
template <>
struct input_entry<input_kind::simt_rows> {
  static constexpr input_kind kind            = input_kind::simt_rows;
  static constexpr char const* name          = "simt_rows";
  static constexpr bool tile_in_shared_memory = true;
  template <int B, int R, int = 1>
  using type     = input::simt_rows;
  using one_call = shape_list<>;
  static constexpr cost_constants h100(int, int) { return {{7.25e-11, h100_c_lp, h100_saturation}, 5.5e-11, 3.54}; }
};

/// Every registered input policy, in the order the planner prefers on equal predictions.
template <input_kind... K>
struct input_kinds {};
using registered_inputs =
  input_kinds<input_kind::shared_tile, input_kind::shuffle_tile, input_kind::readonly_tile, input_kind::naive,
              input_kind::mma_tile, input_kind::simt_rows>;

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

/// Statistics an output policy serves (bit set over statistic_kind).
constexpr unsigned serves(statistic_kind k) { return 1u << static_cast<unsigned>(k); }

/// One registry entry per output policy: its type, the statistics it serves, and whether the
/// cost model chooses it (the others are explicit choices: baselines and fallbacks). The
/// model's constants of the privatized copies are the input entries' `histogram` constants
/// (they depend on the tile that feeds the copies).
template <output_kind K>
struct output_entry;

template <>
struct output_entry<output_kind::registers> {
  using type                         = output::registers;
  static constexpr unsigned statistics = serves(statistic_kind::reduction);
  static constexpr bool chosen_by_model = true;
};
template <>
struct output_entry<output_kind::per_point_sum> {
  using type                         = output::per_point_sum;
  static constexpr unsigned statistics = serves(statistic_kind::per_point);
  static constexpr bool chosen_by_model = true;
};
template <>
struct output_entry<output_kind::warp_privatized> {
  using type                         = output::warp_privatized;
  static constexpr unsigned statistics = serves(statistic_kind::histogram);
  static constexpr bool chosen_by_model = true;
};
template <>
struct output_entry<output_kind::direct_output_buffer> {
  using type                         = output::direct_output_buffer<>;
  static constexpr unsigned statistics = serves(statistic_kind::pair_list);
  static constexpr bool chosen_by_model = true;
};
template <>
struct output_entry<output_kind::block_privatized> {
  using type                         = output::block_privatized;
  static constexpr unsigned statistics = serves(statistic_kind::histogram);
  static constexpr bool chosen_by_model = false;  // the paper's one copy per block: a baseline
};
template <>
struct output_entry<output_kind::global_atomics> {
  using type                         = output::global_atomics;
  static constexpr unsigned statistics = serves(statistic_kind::histogram);
  static constexpr bool chosen_by_model = true;  // where the model predicts it faster than passes and spills
};
template <>
struct output_entry<output_kind::two_pass> {
  using type                         = output::two_pass;
  static constexpr unsigned statistics = serves(statistic_kind::pair_list);
  static constexpr bool chosen_by_model = false;  // count, scan, write: the join baseline
};

template <>
struct output_entry<output_kind::cluster_privatized> {
  using type                         = output::cluster_privatized;
  static constexpr unsigned statistics = serves(statistic_kind::histogram);
  static constexpr bool chosen_by_model = true;  // where the copies a block holds are too few (sm_90+)
};

template <>
struct output_entry<output_kind::nearest_lists> {
  using type                         = output::nearest_lists;
  static constexpr unsigned statistics = serves(statistic_kind::nearest);
  static constexpr bool chosen_by_model = true;  // the one policy of its statistic
};

template <output_kind... K>
struct output_kinds {};
using registered_outputs =
  output_kinds<output_kind::registers, output_kind::per_point_sum, output_kind::warp_privatized,
               output_kind::direct_output_buffer, output_kind::block_privatized, output_kind::global_atomics,
               output_kind::two_pass, output_kind::cluster_privatized, output_kind::nearest_lists>;

/// Calls fn(output_entry<K>{}) for every registered output policy.
template <class Fn, output_kind... K>
constexpr void for_each_output(output_kinds<K...>, Fn&& fn)
{
  static_assert(((output_entry<K>::type::kind == K) && ...), "an output entry names a policy type of another kind");
  (fn(output_entry<K>{}), ...);
}
template <class Fn>
constexpr void for_each_output(Fn&& fn)
{
  for_each_output(registered_outputs{}, fn);
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

/// The registered name of an output kind (the policy type's name; the direct output buffer's
/// family name covers both page owners).
inline char const* to_string(output_kind k)
{
  if (k == output_kind::direct_output_buffer) { return "direct_output_buffer"; }
  char const* name = "?";
  model::for_each_output([&](auto e) {
    using type = typename decltype(e)::type;
    if (type::kind == k) { name = type::name; }
  });
  return name;
}

}  // namespace twobody
