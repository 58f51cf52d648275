/// \file policy_kinds.cuh
/// \brief The names the cost model and the registry give the policy families (each input and
/// output policy type says which it is: `Input::kind`, `Output::kind`).
#pragma once

namespace twobody {

/// What is computed: the three output families.
enum class statistic_kind {
  reduction,  ///< Type I: one value over all pairs (count_pairs, reduce_pairs)
  histogram,  ///< Type II: a histogram of known size (histogram)
  per_point,  ///< Type II with one value per point of A (sum_per_point)
  pair_list,  ///< Type III: a record per qualifying pair, size unknown in advance
  nearest     ///< the k nearest partners of each point of A (nearest_neighbors)
};

/// The input families. mma_tile and simt_rows serve high-dimensional rows (rows.cuh) only.
enum class input_kind { shared_tile, readonly_tile, shuffle_tile, naive, mma_tile, simt_rows };
/// The output policy families. The cost model chooses among registers, per_point_sum,
/// warp_privatized, cluster_privatized and direct_output_buffer; the others are explicit
/// choices (baselines and fallbacks).
enum class output_kind {
  registers,
  per_point_sum,
  warp_privatized,
  direct_output_buffer,
  block_privatized,
  global_atomics,
  two_pass,
  cluster_privatized,
  nearest_lists
};

}  // namespace twobody
