#pragma once

#include <twobody/detail/launch.cuh>
#include <twobody/input/shared_tile.cuh>
#include <twobody/input/shuffle_tile.cuh>
#include <twobody/model/policy.cuh>

#include <cstring>
#include <vector>

namespace twobody::detail {

/// The input policies a one-call function compiles; the cost model picks one at run time.
template <class... Inputs>
struct input_list {
  static constexpr int size = sizeof...(Inputs);
};

template <class Input>
input_kind kind_of()
{
  if (std::strcmp(Input::name, "shared_tile") == 0) { return input_kind::shared_tile; }
  if (std::strcmp(Input::name, "readonly_tile") == 0) { return input_kind::readonly_tile; }
  if (std::strcmp(Input::name, "shuffle_tile") == 0) { return input_kind::shuffle_tile; }
  return input_kind::naive;
}

/// The cost model's view of one compiled kernel: its input shape and real resources.
template <class Input, class Kernel>
input_candidate candidate_of()
{
  kernel_resources const r = Kernel::resources();
  return {kind_of<Input>(), Input::block_threads, Input::points_per_thread, r.regs_per_thread, r.static_smem};
}

/// Candidates of every input of `List`; KernelOf<Input> names the kernel that input runs.
template <template <class> class KernelOf, class... Inputs>
std::vector<input_candidate> candidates_of(input_list<Inputs...>)
{
  return {candidate_of<Inputs, KernelOf<Inputs>>()...};
}

/// Calls fn(Input{}) for the input of `List` that `plan` chose.
template <class Fn, class First, class... Rest>
void with_chosen_input(input_list<First, Rest...>, input_candidate const& chosen, Fn&& fn)
{
  if (kind_of<First>() == chosen.input && First::block_threads == chosen.block_threads &&
      First::points_per_thread == chosen.points_per_thread) {
    fn(First{});
    return;
  }
  if constexpr (sizeof...(Rest) > 0) {
    with_chosen_input(input_list<Rest...>{}, chosen, fn);
  } else {
    TWOBODY_EXPECTS(false, "internal: the plan chose an input that was not compiled");
  }
}

/// Inputs of the one-call histograms: 8 own points per thread only for float points of up to
/// 4 dimensions (more would spill registers); the shuffle tile for histograms that need the
/// tile's shared memory.
template <class Points>
using histogram_inputs =
  cuda::std::conditional_t<sizeof(typename Points::value_type) == 4 && Points::dims <= 4,
                           input_list<input::shared_tile<256, 8>, input::shared_tile<256, 4>, input::shuffle_tile<256, 4>>,
                           input_list<input::shared_tile<256, 4>, input::shuffle_tile<256, 4>>>;

/// Inputs of the one-call per-point sums.
template <class Points>
using per_point_inputs =
  cuda::std::conditional_t<sizeof(typename Points::value_type) == 4 && Points::dims <= 4,
                           input_list<input::shared_tile<256, 8>, input::shared_tile<256, 4>>,
                           input_list<input::shared_tile<256, 4>>>;

template <class Points>
problem sizes_of(pair_set<Points> const& pairs, statistic_kind kind)
{
  problem p;
  p.kind        = kind;
  p.mode        = pairs.mode;
  p.n_a         = pairs.a.size;
  p.n_b         = pairs.b.size;
  p.value_bytes = static_cast<int>(sizeof(typename Points::value_type));
  p.dims        = Points::dims;
  return p;
}

}  // namespace twobody::detail
