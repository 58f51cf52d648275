// The statistics the module binds, one registration function per translation unit (they
// compile in parallel: each instantiates the one-call forms for float and double, weighted or
// not).
#pragma once

#include "arrays.cuh"

#include <twobody/host/out_of_core.cuh>

namespace twobody_py {

void bind_counts(nb::module_& m);      // counts.cu
void bind_histograms(nb::module_& m);  // histograms.cu
void bind_joins(nb::module_& m);       // joins.cu
void bind_sums(nb::module_& m);        // sums.cu
void bind_frames(nb::module_& m);      // frames.cu
void bind_functors(nb::module_& m);    // functors.cu

/// The block layer's options of an out-of-core call (out_of_core.cu): host arrays only,
/// memory_budget bytes (0: a quarter of free memory), the devices (empty: all), the block size
/// (0: from the budget) and a progress callback progress(done, total) over block pairs.
twobody::host::scale_options scale_options_of(array const& a, std::optional<array> const& b, long long memory_budget,
                                              std::optional<std::vector<int>> const& devices, long long block_points,
                                              nb::object const& progress);

/// Calls the caller's progress(done, total) from a long run of the library (which calls it with
/// the interpreter unlocked, maybe from a worker thread): takes the interpreter, and lets Ctrl-C
/// and the callback's own exceptions end the run (the library frees what it holds as they pass).
inline void report_progress(nb::handle progress, long long done, long long total)
{
  nb::gil_scoped_acquire locked;
  if (PyErr_CheckSignals() != 0) { throw nb::python_error(); }
  progress(done, total);
}

/// A join's index pairs as an (m, 2) uint32 array where they are: NumPy for host results, a
/// DLPack-capable array on `device` for device results (the package converts it).
nb::object index_pairs_to_python(twobody::join_result<twobody::index_pair> result, int device);

/// The `given` sides of one box, checked (finite, > 0), as 3 sides of T at out: a zero
/// column's side is the longest given side (its separations are 0 whatever it is).
template <class T>
void padded_box(double const* sides, int given, T* out)
{
  double longest = 0.0;
  for (int d = 0; d < given; ++d) {
    if (!(sides[d] > 0.0) || !std::isfinite(sides[d])) { throw nb::value_error("twobody: box sides must be finite and > 0"); }
    longest = std::max(longest, sides[d]);
  }
  for (int d = 0; d < dims; ++d) { out[d] = static_cast<T>(d < given ? sides[d] : longest); }
}

/// A minimum-image metric (periodic_euclidean or periodic_squared_euclidean) for the box of a
/// call, padded to 3 sides (padded_box).
template <class Metric>
Metric periodic(std::vector<double> const& box, int given)
{
  if (static_cast<int>(box.size()) != given) {
    throw nb::value_error(("twobody: the box needs one side per coordinate (" + std::to_string(given) + "), not " +
                           std::to_string(box.size()))
                            .c_str());
  }
  Metric f{};
  padded_box(box.data(), given, &f.box[0]);
  return f;
}

/// Calls fn(pred) with the predicate "closer than r" of a count: within_radius, or the
/// minimum-image distance in `box` (sides for the `given` coordinates) below r.
template <class T, class Fn>
decltype(auto) with_radius_predicate(double r, std::optional<std::vector<double>> const& box, int given, Fn&& fn)
{
  auto const near = twobody::within_radius(static_cast<T>(r));
  if (box) {
    using metric = twobody::periodic_squared_euclidean<T, dims>;
    return fn(twobody::within<metric, T>{periodic<metric>(*box, given), near.r2});
  }
  return fn(near);
}

/// The one or two point sets of a call, as columns, and the pairs a statistic visits.
template <class T, bool Weighted>
class point_sets {
 public:
  point_sets(array const& a, std::optional<array> const& b, std::optional<array> const& wa,
             std::optional<array> const& wb, cudaStream_t stream)
    : a_(a, wa, "points", stream)
  {
    if (b) { b_.emplace(*b, wb, "points_b", stream); }
  }

  /// Self pairs of a, or a x b.
  auto pairs() const { return b_ ? twobody::cross_pairs(a_.view(), b_->view()) : twobody::self_pairs(a_.view()); }
  /// Every ordered pair: a x b, or (i, j), i != j, of a (the partners of per-point sums).
  auto partners() const { return b_ ? twobody::cross_pairs(a_.view(), b_->view()) : twobody::ordered_pairs(a_.view()); }
  /// D as the caller gave it (before the zero columns).
  int dims_given() const { return a_.dims_given(); }

 private:
  point_columns<T, Weighted> a_;
  std::optional<point_columns<T, Weighted>> b_;
};

/// How a statistic with a cutoff finds its pairs: "auto" (a grid when it pays, on the GPU),
/// "brute" (every pair) or "grid".
inline twobody::pair_search search_of(std::string const& s)
{
  if (s == "auto") { return twobody::pair_search::automatic; }
  if (s == "brute") { return twobody::pair_search::brute_force; }
  if (s == "grid") { return twobody::pair_search::grid; }
  throw nb::value_error(("twobody: search must be 'auto', 'brute' or 'grid', not '" + s + "'").c_str());
}

/// The D of a call (a and b must agree), each set checked by `check` (check_points, or
/// check_rows for the high-dimensional statistics).
inline int dims_of(array const& a, std::optional<array> const& b, int (*check)(array const&, char const*) = check_points)
{
  int const d = check(a, "points");
  if (b) {
    int const db = check(*b, "points_b");
    check_same_kind(a, *b, "points_b");
    if (db != d) { throw nb::value_error("twobody: both point sets need the same number of coordinates"); }
  }
  return d;
}

/// Runs fn with the interpreter unlocked (other Python threads go on while the GPU or the CPU
/// backend works); fn must not touch Python objects.
template <class Fn>
auto without_gil(Fn&& fn)
{
  nb::gil_scoped_release unlocked;
  return fn();
}

/// The GPU of a call's arrays (-1 for host memory).
inline int device_of(array const& a) { return memory_of(a, "points") == memory::device ? a.device_id() : -1; }

}  // namespace twobody_py
