/// \file validate.cuh
/// \brief The checks every statistic runs on a pair set before any work, on every backend.
#pragma once

#include <twobody/points.cuh>
#include <twobody/rows.cuh>
#include <twobody/util/error.cuh>

#include <string>

namespace twobody::detail {

/// Sizes, null arrays, self/ordered sides. Point sets of 2^32 points or more are refused:
/// join records hold 32-bit indices and one launch indexes tiles in 64-bit pair counts.
template <class Points>
void validate(pair_set<Points> const& pairs)
{
  TWOBODY_EXPECTS(pairs.a.size >= 0 && pairs.b.size >= 0, "point sets must not have a negative size");
  TWOBODY_EXPECTS(pairs.a.size < (size_type(1) << 32) && pairs.b.size < (size_type(1) << 32),
                  "point sets of 2^32 points or more are not supported in one call: split them into blocks "
                  "(twobody::host, which keeps each block under 2^32 points)");
  auto check_arrays = [](Points const& p, char const* side) {
    if (p.size == 0) { return; }
    for (auto const* c : p.coords) {
      TWOBODY_EXPECTS(c != nullptr, (std::string("a coordinate array of point set ") + side + " is null").c_str());
    }
    if constexpr (Points::weighted) {
      TWOBODY_EXPECTS(p.weights != nullptr, (std::string("the weights of point set ") + side + " are null").c_str());
    }
  };
  check_arrays(pairs.a, "A");
  if (pairs.mode == pair_mode::cross) {
    check_arrays(pairs.b, "B");
  } else {
    TWOBODY_EXPECTS(pairs.b.size == pairs.a.size, "self and ordered pair sets need b == a (use self_pairs / ordered_pairs)");
  }
}

/// The checks of a k-nearest-neighbour query, after the pair set's own (every backend).
template <class Points>
void validate_nearest(pair_set<Points> const& pairs, int k)
{
  TWOBODY_EXPECTS(pairs.mode != pair_mode::self,
                  "nearest_neighbors: self_pairs visit each pair once; use ordered_pairs(x) for every point's "
                  "neighbours among the others, or cross_pairs(queries, x)");
  TWOBODY_EXPECTS(k >= 1, "nearest_neighbors: k must be at least 1");
  if (pairs.a.size == 0) { return; }
  size_type const partners = pairs.mode == pair_mode::cross ? pairs.b.size : pairs.a.size - 1;
  TWOBODY_EXPECTS(k <= partners, ("nearest_neighbors: k = " + std::to_string(k) + " but each point has only " +
                                  std::to_string(partners) + " partners (k must be <= n - 1 for ordered pairs, <= |B| for cross pairs)")
                                   .c_str());
}

/// The checks of a row pair set, before any work on any backend.
template <class T, bool W>
void validate(pair_set<rows<T, W>> const& pairs)
{
  auto check = [](rows<T, W> const& r, char const* side) {
    std::string const s(side);
    TWOBODY_EXPECTS(r.size >= 0, ("row set " + s + " has a negative size").c_str());
    TWOBODY_EXPECTS(r.size < (size_type(1) << 31),
                    ("row set " + s + " has 2^31 points or more: split it into blocks of fewer points").c_str());
    TWOBODY_EXPECTS(r.dims >= 1, ("row set " + s + " needs at least one dimension (dims >= 1)").c_str());
    TWOBODY_EXPECTS(r.ld >= r.dims, ("row set " + s + ": the leading dimension must be >= dims").c_str());
    if (r.size == 0) { return; }
    TWOBODY_EXPECTS(r.data != nullptr, ("the data of row set " + s + " is null").c_str());
    if constexpr (W) { TWOBODY_EXPECTS(r.weights != nullptr, ("the weights of row set " + s + " are null").c_str()); }
  };
  check(pairs.a, "A");
  if (pairs.mode == pair_mode::cross) {
    check(pairs.b, "B");
    TWOBODY_EXPECTS(pairs.a.dims == pairs.b.dims, "cross pairs of rows need the same dims on both sides");
  } else {
    TWOBODY_EXPECTS(pairs.b.size == pairs.a.size && pairs.b.data == pairs.a.data,
                    "self and ordered pair sets need b == a (use self_pairs / ordered_pairs)");
  }
}

/// The checks of a per-point sum over rows (sum_per_point), after validate().
template <class T, bool W>
void check_row_sums(pair_set<rows<T, W>> const& pairs)
{
  static_assert(!W, "sum_per_point of rows: weighted rows are not supported; fold the weights into f or scale the sums");
  TWOBODY_EXPECTS(pairs.mode != pair_mode::self,
                  "sum_per_point: self pairs visit each pair once; use ordered_pairs (all j != i) or cross_pairs");
}


}  // namespace twobody::detail
