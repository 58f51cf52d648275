/// \file grid_index.cuh
/// \brief A uniform grid of cutoff-sized cells over a point set, built on the GPU, so that
/// range-limited statistics (pair counts and histograms up to a cutoff) visit only pairs in
/// adjacent cells instead of all N^2.
///
///     twobody::grid_index<float, 3> grid(pts, 5.f);                       // cells of side >= 5
///     auto dd = twobody::count_pairs(grid, twobody::within_radius(5.f));  // see grid.cuh
///
/// Only non-empty cells are stored: the points are sorted by 64-bit linear cell id (CUB radix
/// sort), the runs of equal ids give the cells (CUB run-length encode) and a prefix sum gives
/// each cell's range; memory is O(N), never O(number of possible cells). A periodic box
/// [0, L_d) wraps the cells (coordinates must lie in the box). The index keeps the points in
/// cell order and the permutation back to input order.
#pragma once

#include <twobody/detail/grid_index.cuh>
