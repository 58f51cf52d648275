/// \file histogram.cuh
/// \brief Type II statistics: histograms of a pair functor's values (SDH, RDF, 2PCF bins).
///
///     auto pairs = twobody::self_pairs(twobody::make_points(n, d_x, d_y, d_z));
///     twobody::uniform_bins<float> bins(0.f, 200.f, 256);
///     twobody::histogram(pairs, twobody::euclidean{}, bins, d_counts, stream);   // device, async
///     auto h = twobody::histogram(pairs, twobody::euclidean{}, bins);            // host result
///
/// `d_counts` holds bins.size() + 1 counters: one per bin, then the number of pairs whose
/// value fell outside the bins (below, above, or NaN); all of them add up to pairs.count().
/// Counts are `unsigned long long`; weighted point sets (make_weighted_points) need `double`
/// counts and add w_i w_j per pair. The output is overwritten (zeroed first).
///
/// The functor's values must be what the bin map takes: distance_bins takes squared
/// distances, so it accepts only functors that declare them (squared_euclidean,
/// periodic_squared_euclidean, or `returns_squared_distance`; see value_traits.cuh); a
/// mismatch does not compile. Slots a user bin map returns outside [0, size()] are counted as
/// outside. The host-result form takes an execution policy first (execution.cuh).
#pragma once

#include <twobody/binning.cuh>
#include <twobody/cpu/backend.cuh>
#include <twobody/defaults.cuh>
#include <twobody/detail/auto_policy.cuh>
#include <twobody/detail/error.cuh>
#include <twobody/detail/histogram_plan.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/detail/staging.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/output/global_atomics.cuh>
#include <twobody/output/privatized_histogram.cuh>
#include <twobody/points.cuh>
#include <twobody/results.cuh>
#include <twobody/value_traits.cuh>

#include <cuda_runtime_api.h>

#include <limits>
#include <vector>

namespace twobody {

namespace detail {

template <class F, class Points, class Count, class Binning>
void check_histogram_args(pair_set<Points> const& pairs, Binning const& bins, Count const* d_counts)
{
  check_bins_accept<F, Binning>();
  static_assert(cuda::std::is_same_v<Count, unsigned long long> || cuda::std::is_same_v<Count, double>,
                "twobody::histogram: counts must be unsigned long long (or double for weighted point sets)");
  static_assert(!Points::weighted || cuda::std::is_floating_point_v<Count>,
                "twobody::histogram: a weighted point set needs double counts");
  validate(pairs);
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram: need at least one bin");
  TWOBODY_EXPECTS(bins.size() < std::numeric_limits<int>::max() - 1, "histogram: too many bins");
  TWOBODY_EXPECTS(d_counts != nullptr, "histogram: the counts pointer is null");
  TWOBODY_EXPECTS(device_accessible(d_counts), "histogram: d_counts must be device-accessible memory (cudaMalloc, "
                                               "managed or pinned); the host-result form returns the counts instead");
}

/// Shared counters: 32-bit for plain counts (flushed before they can wrap), Count otherwise.
template <class Count>
using shared_counter_t = cuda::std::conditional_t<cuda::std::is_same_v<Count, unsigned long long>, unsigned int, Count>;

template <class Counter>
constexpr unsigned long long flush_limit_for(unsigned long long max_increments_per_tile)
{
  if constexpr (cuda::std::is_same_v<Counter, unsigned int>) {
    return 0xffffffffull - max_increments_per_tile;
  } else {
    return 1ull << 50;  // floating sums: exact integers up to 2^53, far from any precision issue
  }
}

template <class Input>
constexpr unsigned long long max_increments_per_tile()
{
  if constexpr (Input::tiled) {
    unsigned long long const ts = static_cast<unsigned long long>(Input::block_threads) * Input::points_per_thread;
    return ts * ts;
  } else {
    return static_cast<unsigned long long>(Input::block_threads) * 4096ull;
  }
}

template <class Input, class Points, class F, class Binning, class Count>
void privatized_histogram(pair_set<Points> const& pairs, F const& f, Binning const& bins, Count* d_counts,
                          int copies, cudaStream_t stream)
{
  check_histogram_args<F>(pairs, bins, d_counts);
  int const slots = bins.size() + 1;
  TWOBODY_CUDA_TRY(cudaMemsetAsync(d_counts, 0, sizeof(Count) * slots, stream));
  if (pairs.count() == 0) { return; }
  staged_pairs<Points> const staged(pairs, stream);
  pair_set<Points> const dev = staged.pairs();

  using Counter = shared_counter_t<Count>;
  constexpr int B = Input::block_threads;
  using single  = pair_kernel<Input, privatized_histogram_agent<Binning, Count, Counter, B, false>, Points, F>;
  using windowed = pair_kernel<Input, privatized_histogram_agent<Binning, Count, Counter, B, true>, Points, F>;
  auto const plan = plan_privatized(slots, copies, sizeof(Counter), single::dynamic_smem_limit());
  unsigned long long const limit = flush_limit_for<Counter>(max_increments_per_tile<Input>());
  if (plan.passes == 1) {
    typename single::params p{bins, d_counts, plan.copies, 0, slots, limit};
    single::launch(single::plan(dev, plan.smem), dev, f, p, stream);
    return;
  }
  auto const lp = windowed::plan(dev, plan.smem);
  for (int pass = 0; pass < plan.passes; ++pass) {
    int const begin = pass * plan.window;
    int const size  = slots - begin < plan.window ? slots - begin : plan.window;
    typename windowed::params p{bins, d_counts, plan.copies, begin, size, limit};
    windowed::launch(lp, dev, f, p, stream);
  }
}

}  // namespace detail

/// Histogram with H lane-interleaved private copies per block (explicit form).
template <class Input, class Points, class F, class Binning, class Count>
void histogram(pair_set<Points> const& pairs, F f, Binning const& bins, Count* d_counts,
               output::warp_privatized policy, cudaStream_t stream = 0)
{
  TWOBODY_EXPECTS(policy.copies >= 1 && policy.copies <= 32, "warp_privatized: copies must be in [1, 32]");
  detail::privatized_histogram<Input>(pairs, f, bins, d_counts, policy.copies, stream);
}

/// Histogram with one private copy per block (explicit form).
template <class Input, class Points, class F, class Binning, class Count>
void histogram(pair_set<Points> const& pairs, F f, Binning const& bins, Count* d_counts, output::block_privatized,
               cudaStream_t stream = 0)
{
  detail::privatized_histogram<Input>(pairs, f, bins, d_counts, 1, stream);
}

/// Histogram updated with one global atomic per pair (explicit form; baseline).
template <class Input, class Points, class F, class Binning, class Count>
void histogram(pair_set<Points> const& pairs, F f, Binning const& bins, Count* d_counts, output::global_atomics,
               cudaStream_t stream = 0)
{
  detail::check_histogram_args<F>(pairs, bins, d_counts);
  TWOBODY_CUDA_TRY(cudaMemsetAsync(d_counts, 0, sizeof(Count) * (bins.size() + 1), stream));
  if (pairs.count() == 0) { return; }
  detail::staged_pairs<Points> const staged(pairs, stream);
  pair_set<Points> const dev = staged.pairs();
  using kernel = detail::pair_kernel<Input, detail::global_histogram_agent<Binning, Count, Input::block_threads>, Points, F>;
  kernel::launch(kernel::plan(dev, 0), dev, f, typename kernel::params{bins, d_counts}, stream);
}

namespace detail {
template <class Points, class F, class Binning, class Count>
struct histogram_kernels {
  template <class Input>
  using single =
    pair_kernel<Input, privatized_histogram_agent<Binning, Count, shared_counter_t<Count>, Input::block_threads, false>,
                Points, F>;
};
}  // namespace detail

/// The plan the one-call histogram runs for these arguments: input policy, private copies,
/// occupancy and predicted time from the cost model (model/policy.cuh). Needs a GPU (it reads
/// the kernels' register counts); TWOBODY_POLICY forces parts of it.
template <class Count = void, class Points, class F, class Binning>
policy_plan plan_histogram(pair_set<Points> const& pairs, F const&, Binning const& bins)
{
  using C = cuda::std::conditional_t<cuda::std::is_void_v<Count>, pair_count_t<Points>, Count>;
  using kernels = detail::histogram_kernels<Points, F, Binning, C>;
  problem p       = detail::sizes_of(pairs, statistic_kind::histogram);
  p.slots         = bins.size() + 1;
  p.counter_bytes = static_cast<int>(sizeof(detail::shared_counter_t<C>));
  p.output_bytes  = static_cast<long long>(p.slots) * p.counter_bytes;
  return choose_policy(p, device_info::get(),
                       detail::candidates_of<kernels::template single>(detail::histogram_inputs<Points>{}));
}

/// One-call histogram into device memory (asynchronous): the cost model picks the input
/// policy and the number of private copies (plan_histogram says which).
template <class Points, class F, class Binning, class Count>
void histogram(pair_set<Points> const& pairs, F f, Binning const& bins, Count* d_counts, cudaStream_t stream = 0)
{
  detail::check_histogram_args<F>(pairs, bins, d_counts);
  policy_plan const plan = plan_histogram<Count>(pairs, f, bins);
  detail::with_chosen_input(detail::histogram_inputs<Points>{}, plan.input, [&](auto in) {
    histogram<decltype(in)>(pairs, f, bins, d_counts, output::warp_privatized{plan.copies}, stream);
  });
}

/// One-call histogram returned to the host, on the backend `exec` names (the GPU form
/// synchronizes exec.stream). Point arrays may be in host or device memory on the GPU, host
/// memory on the CPU.
template <class Points, class F, class Binning>
histogram_result<pair_count_t<Points>> histogram(execution_policy const& exec, pair_set<Points> const& pairs, F f,
                                                 Binning const& bins)
{
  using Count = pair_count_t<Points>;
  detail::check_bins_accept<F, Binning>();
  detail::validate(pairs);
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram: need at least one bin");
  if (!detail::runs_on_gpu(exec, "histogram")) {
    detail::check_host_readable(pairs);
    return cpu::histogram(pairs, f, bins);
  }
  detail::device_buffer d(sizeof(Count) * (bins.size() + 1), exec.stream);
  histogram(pairs, f, bins, d.as<Count>(), exec.stream);
  std::vector<Count> all(bins.size() + 1);
  TWOBODY_CUDA_TRY(
    cudaMemcpyAsync(all.data(), d.data(), sizeof(Count) * all.size(), cudaMemcpyDeviceToHost, exec.stream));
  TWOBODY_CUDA_TRY(cudaStreamSynchronize(exec.stream));
  return histogram_result<Count>::from_slots(std::move(all), pairs.count());
}

/// One-call histogram returned to the host under exec::automatic on `stream`.
template <class Points, class F, class Binning>
histogram_result<pair_count_t<Points>> histogram(pair_set<Points> const& pairs, F f, Binning const& bins,
                                                 cudaStream_t stream = 0)
{
  return histogram(exec::automatic.on(stream), pairs, f, bins);
}

}  // namespace twobody
