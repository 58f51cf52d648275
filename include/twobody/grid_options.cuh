/// \file grid_options.cuh
/// \brief The options and the report of grid statistics (grid.cuh): how a range-limited
/// statistic searches its pairs, its cutoff, the grid traversal's knobs and what it did.
#pragma once

namespace twobody {

/// What a grid statistic did (for measurements: distance calls vs the N^2 / 2 of brute force).
struct grid_stats {
  unsigned long long distance_calls = 0;  ///< functor evaluations
  long long cells                   = 0;  ///< non-empty cells of the index
};

/// Knobs of the grid traversal (the defaults are what the measurements favour).
struct grid_options {
  int threads_per_query   = 8;     ///< threads serving one query point: 1, 4, 8 or 32
  bool half_stencil       = true;  ///< self mode: each unordered cell pair once (false: both ways, the baseline)
  /// Self mode: queries by decreasing work of their cell (else in cell order); both draw
  /// batches from an atomic counter. Off by default: on clustered data (bench_grid "blobs")
  /// the batches are small enough that the counter alone balances, and ordering cost 7%.
  bool order_by_workload  = false;
  grid_stats* stats       = nullptr;  ///< filled when given
};

/// How a range-limited statistic finds its pairs.
enum class pair_search {
  automatic,    ///< a grid where the cells' neighbourhoods cover little of the data, else brute force
  brute_force,  ///< every pair (the tiled kernels)
  grid,         ///< a grid_index of the cutoff, built for the call
};

/// The cutoff of a range-limited statistic (the statistic must be zero beyond it) and how to
/// search its pairs.
template <class T>
struct within_cutoff {
  T cutoff;
  pair_search search   = pair_search::automatic;
  grid_options grid    = {};
  pair_search* chosen  = nullptr;  ///< receives the search used, when given
};

}  // namespace twobody
