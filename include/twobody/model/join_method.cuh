/// \file join_method.cuh
/// \brief The choice between the nested loop and the sorted path for band and equi-joins: the
/// estimated time of each (the records they write cost the same and are left out).
///
///     nested loop: pairs / pair_rate + launch
///     sorted:      rows x (sort + range search) per row + launch overhead of its kernels
///
/// The sorted path wins once the tables are larger than a few thousand rows; below that its
/// fixed cost (a sort and a scan per side) is more than testing every pair.
#pragma once

#include <twobody/join_result.cuh>

namespace twobody::model {

/// Rates of the two methods on one backend.
struct join_method_costs {
  double nested_pairs_per_second;  ///< pair tests per second of the nested loop
  double nested_fixed_seconds;     ///< its launch and bookkeeping
  double sorted_seconds_per_row;   ///< radix sort, NaN window and range search, per input row
  double sorted_fixed_seconds;     ///< its kernels, scans and allocations
};

/// H100 (sm_90), fitted to bench_sorted_join equi_uniform/{sorted,nested_loop}/*: the nested loop's equi-join at 2.18 T pairs/s; the sorted equi-join at 0.41 ms for 2 x 2^20
/// rows and 15.0 ms for 2 x 2^26: 0.11 ns per row plus 0.18 ms.
inline constexpr join_method_costs h100_join_costs{2.18e12, 20e-6, 0.11e-9, 180e-6};
/// The CPU backend (OpenMP): the nested loop at about 5.5 G pairs/s on 16 cores; std::sort and
/// binary searches at about 100 ns per row.
inline constexpr join_method_costs cpu_join_costs{5.5e9, 0.0, 100e-9, 0.0};

inline double nested_loop_seconds(double pairs, join_method_costs const& c)
{
  return c.nested_fixed_seconds + pairs / c.nested_pairs_per_second;
}
inline double sorted_seconds(double rows, join_method_costs const& c)
{
  return c.sorted_fixed_seconds + rows * c.sorted_seconds_per_row;
}

/// The method `requested` names, or for join_method::automatic the cheaper of the two for a
/// join of `pairs` candidate pairs over `rows` input rows (both sides).
inline join_method choose_join_method(join_method requested, double pairs, double rows, join_method_costs const& c)
{
  if (requested != join_method::automatic) { return requested; }
  if (pairs <= 0.0) { return join_method::nested_loop; }
  return sorted_seconds(rows, c) < nested_loop_seconds(pairs, c) ? join_method::sorted : join_method::nested_loop;
}

}  // namespace twobody::model
