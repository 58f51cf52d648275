#pragma once

#include <twobody/detail/launch.cuh>
#include <twobody/input/shared_tile.cuh>
#include <twobody/input/shuffle_tile.cuh>
#include <twobody/math/tile_forms.cuh>
#include <twobody/model/policy.cuh>
#include <twobody/util/memo.cuh>
#include <twobody/value_traits.cuh>

#include <cstdlib>
#include <vector>

namespace twobody::detail {

/// The input policies a one-call function compiles; the cost model picks one at run time.
template <class... Inputs>
struct input_list {
  static constexpr int size = sizeof...(Inputs);
};

/// The cost model's view of one compiled kernel: its input shape and real resources.
template <class Input, class Kernel>
input_candidate candidate_of(output_kind histogram_output = output::warp_privatized::kind)
{
  kernel_resources const r = Kernel::resources();
  return {Input::kind,      Input::block_threads,   Input::points_per_thread,     r.regs_per_thread, r.static_smem,
          histogram_output, column_groups_v<Input>, Kernel::attrs().ptx_version};
}

/// Candidates of every input of `List`; KernelOf<Input> names the kernel that input runs (for
/// histograms, with the output `histogram_output`).
template <template <class> class KernelOf, class... Inputs>
std::vector<input_candidate> candidates_of(input_list<Inputs...>, output_kind histogram_output = output::warp_privatized::kind)
{
  (KernelOf<Inputs>::announce(), ...);  // a run-time functor's candidates compile in one program
  return {candidate_of<Inputs, KernelOf<Inputs>>(histogram_output)...};
}

/// The plan of the one-call kernels of `Family` (a type naming one statistic's compiled
/// kernels) for problem `p` on the current device: choose_policy over candidates() on the first
/// call per problem, device and TWOBODY_POLICY, then from a per-family cache (building the
/// candidates reads every kernel's attributes: 2-3 us a call, a tenth of a small call).
template <class Family, class Candidates>
policy_plan cached_plan(problem const& p, Candidates&& candidates)
{
  static memo<policy_plan> plans;
  int const dev = current_device();
  // Plans for run-time functors depend on the program's kernels, so the program is part of the key.
  runtime_kernel_source const* const program = active_runtime_source();
  unsigned long long const program_id        = program != nullptr ? program->id() : 0ull;
  return plans.get(model::problem_key(p, dev, std::getenv("TWOBODY_POLICY")) + key_bytes(program_id),
                   [&] { return choose_policy(p, device_info::get(dev), candidates()); });
}

/// Calls fn(Input{}) for the input of `List` that `plan` chose.
template <class Fn, class First, class... Rest>
void with_chosen_input(input_list<First, Rest...>, input_candidate const& chosen, Fn&& fn)
{
  if (First::kind == chosen.input && First::block_threads == chosen.block_threads &&
      First::points_per_thread == chosen.points_per_thread && column_groups_v<First> == chosen.column_groups) {
    fn(First{});
    return;
  }
  if constexpr (sizeof...(Rest) > 0) {
    with_chosen_input(input_list<Rest...>{}, chosen, fn);
  } else {
    TWOBODY_EXPECTS(false, "internal: the plan chose an input that was not compiled");
  }
}

template <class Fn>
void with_chosen_input(input_list<>, input_candidate const&, Fn&&)
{
  TWOBODY_EXPECTS(false, "internal: the plan chose an input that was not compiled");
}

template <class... Lists>
struct concat_inputs {
  using type = input_list<>;
};
template <class... A>
struct concat_inputs<input_list<A...>> {
  using type = input_list<A...>;
};
template <class... A, class... B, class... Rest>
struct concat_inputs<input_list<A...>, input_list<B...>, Rest...> {
  using type = typename concat_inputs<input_list<A..., B...>, Rest...>::type;
};

/// The input policy of one registered shape, if it serves `Use` for points of ValueBytes x Dims.
template <class Family, class Shape, unsigned Use, int ValueBytes, int Dims>
using shape_input =
  cuda::std::conditional_t<(Shape::uses & Use) != 0 &&
                             policy::fits(Shape::fit, ValueBytes, Dims),
                           input_list<typename Family::template type<Shape::block_threads, Shape::points_per_thread,
                                                                    Shape::column_groups>>,
                           input_list<>>;

template <class Family, class Shapes, unsigned Use, int ValueBytes, int Dims>
struct family_inputs;
template <class Family, class... S, unsigned Use, int ValueBytes, int Dims>
struct family_inputs<Family, policy::shape_list<S...>, Use, ValueBytes, Dims> {
  using type = typename concat_inputs<shape_input<Family, S, Use, ValueBytes, Dims>...>::type;
};

template <class Kinds, unsigned Use, int ValueBytes, int Dims>
struct registry_inputs;
template <class... Families, unsigned Use, int ValueBytes, int Dims>
struct registry_inputs<model::policy_list<Families...>, Use, ValueBytes, Dims> {
  using type =
    typename concat_inputs<typename family_inputs<Families, typename Families::one_call, Use, ValueBytes, Dims>::type...>::type;
};

/// The input policies a one-call form compiles for `Points`: every shape the registry
/// (model/registry.cuh) lists for the statistic `Use` that fits the point type; the cost model
/// picks one at run time (default_candidates lists the same shapes without a GPU).
template <unsigned Use, class Points>
using one_call_inputs = typename registry_inputs<model::registered_inputs, Use,
                                                 static_cast<int>(sizeof(typename Points::value_type)), Points::dims>::type;

template <class Points>
using histogram_inputs = one_call_inputs<policy::for_histogram, Points>;

/// The inputs the one-call histogram compiles a cluster-shared kernel for (sm_90+).
template <class Points>
using cluster_histogram_inputs = one_call_inputs<policy::for_cluster_histogram, Points>;

/// The inputs the one-call histogram compiles a global-atomics kernel for.
template <class Points>
using global_histogram_inputs = one_call_inputs<policy::for_global_histogram, Points>;

/// The inputs the one-call histogram compiles a spilling kernel for (a window of the bins in
/// shared memory, the others to global atomics; histograms past shared memory).
template <class Points>
using spill_histogram_inputs = one_call_inputs<policy::for_spill_histogram, Points>;

/// The inputs the one-call histogram compiles passes over spread windows of ordered points for
/// (dispatch/histogram.cuh: functors and bin maps with slot bounds from the tiles' boxes).
template <class Points>
using ordered_passes_inputs = one_call_inputs<policy::for_ordered_passes, Points>;

template <class Points>
using per_point_inputs = one_call_inputs<policy::for_per_point, Points>;

/// The problem of a histogram of `slots` shared counters of type Counter over `pairs`, with the
/// pair cost of functor F (relative_pair_cost; 1 for F = void).
template <class Counter, class F = void, class Points>
problem histogram_problem(pair_set<Points> const& pairs, int slots)
{
  problem p = problem::histogram_of(pairs.mode, pairs.a.size, pairs.b.size, slots, static_cast<int>(sizeof(Counter)),
                                    static_cast<int>(sizeof(typename Points::value_type)), Points::dims);
  p.pair_cost         = relative_pair_cost<F>::value;
  p.whole_window_cost = whole_window_cost_v<F>;
  return p;
}

/// The sizes of a `kind` problem over `pairs`, with the pair cost of functor F (relative_pair_cost;
/// 1 for F = void).
template <class F = void, class Points>
problem sizes_of(pair_set<Points> const& pairs, statistic_kind kind)
{
  problem p;
  p.kind        = kind;
  p.mode        = pairs.mode;
  p.n_a         = pairs.a.size;
  p.n_b         = pairs.b.size;
  p.value_bytes = static_cast<int>(sizeof(typename Points::value_type));
  p.dims        = Points::dims;
  p.pair_cost   = relative_pair_cost<F>::value;
  return p;
}

}  // namespace twobody::detail
