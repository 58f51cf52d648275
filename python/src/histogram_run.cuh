// The histogram of one coordinate type, weighted or not: the part of histograms.cu that
// instantiates kernels, compiled in four translation units (histograms_*.cu) that run in parallel.
#pragma once

#include "statistics.cuh"

namespace twobody_py {

struct histogram_args {
  std::string kind;   // "distance", "sqdistance" (open box, linear bins), "rp_pi", "angular"
  std::string scale;  // "linear", "log" (distance)
  bool exact = false; // distance from 0, linear: IEEE square root and edges (slower)
  double lo = 0, hi = 0;
  int bins = 0;
  double hi_y = 0;  // rp_pi: pi_max
  int bins_y = 0;   // rp_pi: pi bins
  std::optional<std::vector<double>> box;
  twobody::pair_search search = twobody::pair_search::brute_force;  // distance bins from 0, unweighted: a grid may serve
};

template <class Count>
struct histogram_out {
  std::vector<Count> counts;
  Count outside{};
  unsigned long long pairs = 0;
};

template <class T, bool Weighted>
using count_of = twobody::pair_count_t<twobody::points<T, dims, Weighted>>;

/// The histogram a call asks for (checked by histograms.cu). Weighted sets in a periodic box
/// are not instantiated (each form adds minutes of compile time; RDFs are unweighted).
template <class T, bool Weighted>
histogram_out<count_of<T, Weighted>> histogram_typed(array const& a, std::optional<array> const& b, std::optional<array> const& wa,
                     std::optional<array> const& wb, histogram_args const& h, twobody::execution_policy exec)
{
  using points = twobody::points<T, dims, Weighted>;
  using Count  = twobody::pair_count_t<points>;
  point_sets<T, Weighted> const sets(a, b, wa, wb, exec.stream);
  auto const pairs = sets.pairs();
  auto run = [&](auto f, auto const& bins) {
    auto r = twobody::histogram(exec, pairs, f, bins);
    return histogram_out<Count>{std::move(r.counts), r.outside, r.pairs};
  };
  T const lo = static_cast<T>(h.lo), hi = static_cast<T>(h.hi);
  // Fast distance bins (from 0) of unweighted sets over a grid of cell side hi when it pays: the
  // pairs it skips lie past hi, so they go to `outside`, and `pairs` counts every pair, as with
  // brute force.
  auto run_fast = [&](auto f) {
    twobody::distance_bins<T> const bins(hi, h.bins);
    if constexpr (!Weighted) {
      if (h.search != twobody::pair_search::brute_force) {
        auto r = twobody::histogram(exec, pairs, f, bins, twobody::within_cutoff<T>{hi, h.search});
        Count in_bins{};
        for (Count c : r.counts) { in_bins += c; }
        unsigned long long const all = pairs.count();
        return histogram_out<Count>{std::move(r.counts), static_cast<Count>(all - in_bins), all};
      }
    }
    return run(f, bins);
  };

  if (h.kind == "rp_pi") {
    return run(twobody::rp_pi_separation{},
               twobody::make_bins_2d(twobody::uniform_bins<T>(T(0), hi, h.bins),
                                     twobody::uniform_bins<T>(T(0), static_cast<T>(h.hi_y), h.bins_y)));
  }
  if (h.kind == "angular") { return run(twobody::angular_separation{}, twobody::uniform_bins<T>(lo, hi, h.bins)); }
  if (h.kind == "sqdistance") { return run(twobody::squared_euclidean{}, twobody::uniform_bins<T>(lo, hi, h.bins)); }

  bool const fast = h.scale == "linear" && h.lo == 0.0 && !h.exact;
  if (h.box) {
    if constexpr (Weighted) {
      throw nb::value_error("twobody: weights with a periodic box are not supported by the Python package");
    } else {
      if (fast) { return run_fast(periodic<twobody::periodic_squared_euclidean<T, dims>>(*h.box, sets.dims_given())); }
      auto const dist = periodic<twobody::periodic_euclidean<T, dims>>(*h.box, sets.dims_given());
      if (h.scale == "log") { return run(dist, twobody::log_bins<T>(lo, hi, h.bins)); }
      return run(dist, twobody::uniform_bins<T>(lo, hi, h.bins));
    }
  }
  if (fast) { return run_fast(twobody::squared_euclidean{}); }
  if (h.scale == "log") { return run(twobody::euclidean{}, twobody::log_bins<T>(lo, hi, h.bins)); }
  return run(twobody::euclidean{}, twobody::uniform_bins<T>(lo, hi, h.bins));
}

/// The fast distance histogram (linear bins from 0, unweighted) over host sets of any size, block
/// pair by block pair (out_of_core.cu), with the kernels of histogram_typed's fast path.
template <class T>
histogram_out<count_of<T, false>> histogram_out_of_core_typed(array const& a, std::optional<array> const& b, double hi,
                                                              int bins, std::optional<std::vector<double>> const& box,
                                                              twobody::host::scale_options const& opt)
{
  point_sets<T, false> const sets(a, b, std::nullopt, std::nullopt, cudaStream_t{});
  twobody::distance_bins<T> const edges(static_cast<T>(hi), bins);
  auto run = [&](auto f) {
    auto r = twobody::host::histogram(sets.pairs(), f, edges, opt);
    return histogram_out<count_of<T, false>>{std::move(r.counts), r.outside, r.pairs};
  };
  if (box) { return run(periodic<twobody::periodic_squared_euclidean<T, dims>>(*box, sets.dims_given())); }
  return run(twobody::squared_euclidean{});
}

/// The cost model's plan of the fast distance histogram (unweighted sets).
template <class T>
std::string plan_typed(array const& a, std::optional<array> const& b, double hi, int bins,
                       std::optional<std::vector<double>> const& box)
{
  point_sets<T, false> const sets(a, b, std::nullopt, std::nullopt, cudaStream_t{});
  auto const pairs = sets.pairs();
  twobody::distance_bins<T> const edges(static_cast<T>(hi), bins);
  if (box) {
    auto const sq = periodic<twobody::periodic_squared_euclidean<T, dims>>(*box, sets.dims_given());
    return twobody::plan_histogram(pairs, sq, edges).to_string();
  }
  return twobody::plan_histogram(pairs, twobody::squared_euclidean{}, edges).to_string();
}

#define TWOBODY_PY_HISTOGRAM(T, W)                                                                                 \
  template histogram_out<count_of<T, W>> histogram_typed<T, W>(array const&, std::optional<array> const&,          \
                                                               std::optional<array> const&, std::optional<array> const&, \
                                                               histogram_args const&, twobody::execution_policy)
#define TWOBODY_PY_PLAN(T)                                                                                         \
  template std::string plan_typed<T>(array const&, std::optional<array> const&, double, int,                     \
                                     std::optional<std::vector<double>> const&)
#define TWOBODY_PY_OUT_OF_CORE(T)                                                                                  \
  template histogram_out<count_of<T, false>> histogram_out_of_core_typed<T>(                                    \
    array const&, std::optional<array> const&, double, int, std::optional<std::vector<double>> const&,          \
    twobody::host::scale_options const&)

}  // namespace twobody_py
