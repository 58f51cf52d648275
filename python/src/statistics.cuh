// The statistics the module binds, one registration function per translation unit (they
// compile in parallel: each instantiates the one-call forms for float and double, weighted or
// not).
#pragma once

#include "arrays.cuh"

namespace twobody_py {

void bind_counts(nb::module_& m);      // counts.cu
void bind_histograms(nb::module_& m);  // histograms.cu
void bind_joins(nb::module_& m);       // joins.cu
void bind_sums(nb::module_& m);        // sums.cu

/// The periodic box of a call, padded to 3 sides (a zero column's side is the longest given
/// side: its separations are 0 whatever it is).
template <class T>
cuda::std::array<T, dims> box_sides(std::vector<double> const& box, int given)
{
  if (static_cast<int>(box.size()) != given) {
    throw nb::value_error(("twobody: the box needs one side per coordinate (" + std::to_string(given) + "), not " +
                           std::to_string(box.size()))
                            .c_str());
  }
  double longest = 0.0;
  for (double l : box) {
    if (!(l > 0.0) || !std::isfinite(l)) { throw nb::value_error("twobody: box sides must be finite and > 0"); }
    longest = std::max(longest, l);
  }
  cuda::std::array<T, dims> s{};
  for (int d = 0; d < dims; ++d) { s[d] = static_cast<T>(d < given ? box[d] : longest); }
  return s;
}

/// The pair set of a call: self pairs of a, or a x b.
template <class Columns>
auto pairs_of(Columns const& a, std::optional<Columns> const& b)
{
  return b ? twobody::cross_pairs(a.view(), b->view()) : twobody::self_pairs(a.view());
}

/// The D of a call (a and b must agree).
inline int dims_of(array const& a, std::optional<array> const& b)
{
  int const d = check_points(a, "points");
  if (b) {
    int const db = check_points(*b, "points_b");
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
