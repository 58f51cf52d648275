/// \file shapes.cuh
/// \brief The shapes an input policy family offers the one-call forms: block threads, own points
/// per thread, column groups, the statistics each serves and the point types it fits, with the
/// registers its kernels take on sm_90 (so that planning needs no GPU).
#pragma once

namespace twobody::policy {

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
  static constexpr unsigned uses         = Uses;
  static constexpr int block_threads     = BlockThreads;
  static constexpr int points_per_thread = PointsPerThread;
  static constexpr int sm90_registers    = Sm90Registers;
  static constexpr int column_groups     = ColumnGroups;
  static constexpr point_fit fit         = Fit;
};
template <class... Shapes>
struct shape_list {};

/// Calls fn(Shape{}) for every shape of a shape list.
template <class Fn, class... S>
constexpr void for_each_shape(shape_list<S...>, Fn&& fn)
{
  (fn(S{}), ...);
}

}  // namespace twobody::policy
