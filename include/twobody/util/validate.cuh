/// \file validate.cuh
/// \brief The checks every statistic runs on a pair set before any work, on every backend.
#pragma once

#include <twobody/util/error.cuh>
#include <twobody/points.cuh>

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

}  // namespace twobody::detail
