// The histogram of one coordinate type, weighted or not: the part of histograms.cu that
// instantiates kernels, compiled in four translation units (histograms_*.cu) that run in parallel.
#pragma once

#include "statistics.cuh"

namespace twobody_py {

struct histogram_args {
  std::string kind;   // "distance", "rp_pi", "angular"
  std::string scale;  // "linear", "log" (distance)
  bool exact = false; // distance from 0, linear: IEEE square root and edges (slower)
  double lo = 0, hi = 0;
  int bins = 0;
  double hi_y = 0;  // rp_pi: pi_max
  int bins_y = 0;   // rp_pi: pi bins
  std::optional<std::vector<double>> box;
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
  point_columns<T, Weighted> A(a, wa, "points", exec.stream);
  std::optional<point_columns<T, Weighted>> B;
  if (b) { B.emplace(*b, wb, "points_b", exec.stream); }
  auto const pairs = pairs_of(A, B);
  auto run = [&](auto f, auto const& bins) {
    auto r = twobody::histogram(exec, pairs, f, bins);
    return histogram_out<Count>{std::move(r.counts), r.outside, r.pairs};
  };
  T const lo = static_cast<T>(h.lo), hi = static_cast<T>(h.hi);

  if (h.kind == "rp_pi") {
    return run(twobody::rp_pi_separation{},
               twobody::make_bins_2d(twobody::uniform_bins<T>(T(0), hi, h.bins),
                                     twobody::uniform_bins<T>(T(0), static_cast<T>(h.hi_y), h.bins_y)));
  }
  if (h.kind == "angular") { return run(twobody::angular_separation{}, twobody::uniform_bins<T>(lo, hi, h.bins)); }

  bool const fast = h.scale == "linear" && h.lo == 0.0 && !h.exact;
  if (h.box) {
    if constexpr (Weighted) {
      throw nb::value_error("twobody: weights with a periodic box are not supported by the Python package");
    } else {
    auto const sides = box_sides<T>(*h.box, A.dims_given());
    twobody::periodic_squared_euclidean<T, dims> sq{};
    twobody::periodic_euclidean<T, dims> dist{};
    for (int d = 0; d < dims; ++d) { sq.box[d] = dist.box[d] = sides[d]; }
    if (fast) { return run(sq, twobody::distance_bins<T>(hi, h.bins)); }
    if (h.scale == "log") { return run(dist, twobody::log_bins<T>(lo, hi, h.bins)); }
    return run(dist, twobody::uniform_bins<T>(lo, hi, h.bins));
    }
  }
  if (fast) { return run(twobody::squared_euclidean{}, twobody::distance_bins<T>(hi, h.bins)); }
  if (h.scale == "log") { return run(twobody::euclidean{}, twobody::log_bins<T>(lo, hi, h.bins)); }
  return run(twobody::euclidean{}, twobody::uniform_bins<T>(lo, hi, h.bins));
}

/// The cost model's plan of the fast distance histogram (unweighted sets).
template <class T>
std::string plan_typed(array const& a, std::optional<array> const& b, double hi, int bins,
                       std::optional<std::vector<double>> const& box)
{
  point_columns<T, false> A(a, std::nullopt, "points", cudaStream_t{});
  std::optional<point_columns<T, false>> B;
  if (b) { B.emplace(*b, std::nullopt, "points_b", cudaStream_t{}); }
  auto const pairs = pairs_of(A, B);
  twobody::distance_bins<T> const edges(static_cast<T>(hi), bins);
  if (box) {
    twobody::periodic_squared_euclidean<T, dims> sq{};
    auto const sides = box_sides<T>(*box, A.dims_given());
    for (int d = 0; d < dims; ++d) { sq.box[d] = sides[d]; }
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

}  // namespace twobody_py
