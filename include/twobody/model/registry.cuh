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

namespace twobody::model {

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

}  // namespace twobody::model
