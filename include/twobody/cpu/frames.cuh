/// \file frames.cuh (CPU backend)
/// \brief Batched frames on the host: the frames run in parallel (OpenMP over frames), each
/// one a plain loop over its pairs (cpu::histogram / cpu::count_pairs) with its own box. The
/// reference of the GPU frame kernels and the backend of exec::cpu.
#pragma once

#include <twobody/cpu/backend.cuh>
#include <twobody/detail/frames_host.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/frame_set.cuh>
#include <twobody/results.cuh>
#include <twobody/util/progress_scope.cuh>

#include <vector>

namespace twobody::cpu {
namespace detail {

/// The layout of a batch whose arrays the host reads (checked like the GPU's).
template <class Points, class F>
twobody::detail::frame_layout<Points> host_frame_layout(frame_pairs<Points> const& fp, F const& f, double reach)
{
  twobody::detail::frame_layout<Points> layout(fp, 0);
  twobody::detail::check_host_readable(fp.a.points, "A");
  if (fp.mode == pair_mode::cross) { twobody::detail::check_host_readable(fp.b.points, "B"); }
  twobody::detail::check_frame_boxes(layout, f, reach);
  return layout;
}

/// out[f] = per_frame(pair set of frame f, functor of frame f), frames in parallel. Each frame
/// runs on one thread (the backend's own parallel loop inside is then serial). Progress counts
/// frames; the per-frame loops report nothing of their own.
template <class Out, class Points, class F, class PerFrame>
std::vector<Out> for_frames(twobody::detail::frame_layout<Points> const& layout, frame_pairs<Points> const& fp, F const& f,
                            PerFrame&& per_frame)
{
  std::vector<Out> out(static_cast<std::size_t>(layout.frames));
  progress_poll poll(static_cast<std::uint64_t>(layout.frames));
#pragma omp parallel for schedule(dynamic)
  for (long long k = 0; k < static_cast<long long>(layout.frames); ++k) {
    if (poll.stopped()) { continue; }
    {
      twobody::detail::progress_scope const quiet(nullptr);
      out[static_cast<std::size_t>(k)] = per_frame(layout.frame(fp, k), layout.functor_of(f, k));
    }
    poll.done(1);
  }
  poll.finish();
  return out;
}

}  // namespace detail

/// One histogram per frame.
template <class Points, class F, class Binning>
std::vector<histogram_result<pair_count_t<Points>>> histogram_per_frame(frame_pairs<Points> const& fp, F f, Binning const& bins)
{
  auto const layout = detail::host_frame_layout(fp, f, twobody::detail::bin_reach<F>(bins));
  return detail::for_frames<histogram_result<pair_count_t<Points>>>(
    layout, fp, f, [&](pair_set<Points> const& pairs, F const& g) { return cpu::histogram(pairs, g, bins); });
}

/// The histogram summed over the frames.
template <class Points, class F, class Binning>
histogram_result<pair_count_t<Points>> histogram_frames(frame_pairs<Points> const& fp, F f, Binning const& bins)
{
  histogram_result<pair_count_t<Points>> sum;
  sum.counts.assign(static_cast<std::size_t>(bins.size()), pair_count_t<Points>{});
  for (auto const& h : cpu::histogram_per_frame(fp, f, bins)) {
    for (std::size_t k = 0; k < sum.counts.size(); ++k) { sum.counts[k] += h.counts[k]; }
    sum.outside += h.outside;
    sum.pairs += h.pairs;
  }
  return sum;
}

/// Pairs with pred(a, b) true in each frame.
template <class Points, class Pred>
std::vector<pair_count_t<Points>> count_per_frame(frame_pairs<Points> const& fp, Pred pred)
{
  auto const layout = detail::host_frame_layout(fp, pred, twobody::detail::predicate_reach(pred));
  return detail::for_frames<pair_count_t<Points>>(
    layout, fp, pred, [&](pair_set<Points> const& pairs, Pred const& g) { return cpu::count_pairs(pairs, g); });
}

/// Pairs with pred(a, b) true, summed over the frames.
template <class Points, class Pred>
pair_count_t<Points> count_frames(frame_pairs<Points> const& fp, Pred pred)
{
  pair_count_t<Points> total{};
  for (auto c : cpu::count_per_frame(fp, pred)) { total += c; }
  return total;
}

}  // namespace twobody::cpu
