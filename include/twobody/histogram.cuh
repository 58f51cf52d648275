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
#pragma once

#include <twobody/binning.cuh>
#include <twobody/defaults.cuh>
#include <twobody/detail/auto_policy.cuh>
#include <twobody/detail/error.cuh>
#include <twobody/detail/histogram_plan.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/detail/staging.cuh>
#include <twobody/output/global_atomics.cuh>
#include <twobody/output/privatized_histogram.cuh>
#include <twobody/points.cuh>

#include <cuda_runtime_api.h>

#include <limits>
#include <vector>

namespace twobody {

/// A histogram brought back to the host.
template <class Count>
struct histogram_result {
  std::vector<Count> counts;   ///< one per bin
  Count outside{};             ///< pairs whose value was outside the bins (or NaN)
  unsigned long long pairs{};  ///< pairs visited
};

namespace detail {

/// The bins + 1 counter slots (the last: outside) as a result over `pairs` visited pairs.
template <class Count>
histogram_result<Count> to_histogram_result(std::vector<Count> slots, unsigned long long pairs)
{
  histogram_result<Count> r;
  r.outside = slots.back();
  slots.pop_back();
  r.counts = std::move(slots);
  r.pairs  = pairs;
  return r;
}

template <class Points>
using default_count_t = cuda::std::conditional_t<Points::weighted, double, unsigned long long>;

template <class Points, class Count, class Binning>
void check_histogram_args(pair_set<Points> const& pairs, Binning const& bins, Count const* d_counts)
{
  static_assert(cuda::std::is_same_v<Count, unsigned long long> || cuda::std::is_same_v<Count, double>,
                "twobody::histogram: counts must be unsigned long long (or double for weighted point sets)");
  static_assert(!Points::weighted || cuda::std::is_floating_point_v<Count>,
                "twobody::histogram: a weighted point set needs double counts");
  validate(pairs);
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram: need at least one bin");
  TWOBODY_EXPECTS(bins.size() < std::numeric_limits<int>::max() - 1, "histogram: too many bins");
  TWOBODY_EXPECTS(d_counts != nullptr, "histogram: the counts pointer is null");
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
  check_histogram_args(pairs, bins, d_counts);
  int const slots = bins.size() + 1;
  TWOBODY_CUDA_TRY(cudaMemsetAsync(d_counts, 0, sizeof(Count) * slots, stream));
  if (pairs.count() == 0) { return; }
  staged_points<Points> a(pairs.a, stream);
  staged_points<Points> b(pairs.b, stream);
  pair_set<Points> const dev{pairs.mode, a.view(), pairs.mode == pair_mode::cross ? b.view() : a.view()};

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
  detail::check_histogram_args(pairs, bins, d_counts);
  TWOBODY_CUDA_TRY(cudaMemsetAsync(d_counts, 0, sizeof(Count) * (bins.size() + 1), stream));
  if (pairs.count() == 0) { return; }
  detail::staged_points<Points> a(pairs.a, stream);
  detail::staged_points<Points> b(pairs.b, stream);
  pair_set<Points> const dev{pairs.mode, a.view(), pairs.mode == pair_mode::cross ? b.view() : a.view()};
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
  using C = cuda::std::conditional_t<cuda::std::is_void_v<Count>, detail::default_count_t<Points>, Count>;
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
  detail::check_histogram_args(pairs, bins, d_counts);
  policy_plan const plan = plan_histogram<Count>(pairs, f, bins);
  detail::with_chosen_input(detail::histogram_inputs<Points>{}, plan.input, [&](auto in) {
    histogram<decltype(in)>(pairs, f, bins, d_counts, output::warp_privatized{plan.copies}, stream);
  });
}

/// One-call histogram returned to the host (synchronizes `stream`). Point arrays may be
/// in host or device memory.
template <class Points, class F, class Binning>
histogram_result<detail::default_count_t<Points>> histogram(pair_set<Points> const& pairs, F f, Binning const& bins,
                                                            cudaStream_t stream = 0)
{
  using Count = detail::default_count_t<Points>;
  detail::validate(pairs);
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram: need at least one bin");
  detail::device_buffer d(sizeof(Count) * (bins.size() + 1), stream);
  histogram(pairs, f, bins, d.as<Count>(), stream);
  std::vector<Count> all(bins.size() + 1);
  TWOBODY_CUDA_TRY(cudaMemcpyAsync(all.data(), d.data(), sizeof(Count) * all.size(), cudaMemcpyDeviceToHost, stream));
  TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
  return detail::to_histogram_result(std::move(all), pairs.count());
}

}  // namespace twobody
