// Host tests of the grid cell arithmetic: cell counts and ids, the stencil (periodic wrap,
// one-cell dimensions, grid edges), the 2^62 cap, and the property the grid rests on: two
// points closer than the cutoff always lie in the same or adjacent cells.
#include <twobody/math/grid_geometry.cuh>
#include <twobody/grid.cuh>
#include <twobody/grid_join.cuh>
#include <twobody/error.cuh>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

using twobody::detail::grid_geometry;
using twobody::detail::make_grid_geometry;
using twobody::detail::make_periodic_grid_geometry;

TEST(GridGeometry, CellsCoverTheBoxWithSidesOfAtLeastTheCutoff)
{
  double lo[2] = {0, -5}, hi[2] = {10, 5};
  auto const g = make_grid_geometry<2>(lo, hi, 2.5);
  EXPECT_EQ(g.cells[0], 4);  // side 2.5 (+1e-9): cells [0,2.5) [2.5,5) [5,7.5) [7.5,10]
  EXPECT_EQ(g.cells[1], 4);
  EXPECT_EQ(g.stride[0], 1u);
  EXPECT_EQ(g.stride[1], 4u);
  EXPECT_EQ(g.total(), 16u);
  EXPECT_EQ(g.coordinate(10.0, 0), 3);  // the highest point lands in the last cell
  EXPECT_EQ(g.coordinate(0.0, 0), 0);
  EXPECT_EQ(g.coordinate(2.5, 0), 0);   // exactly on a border: the side is a hair above 2.5
  EXPECT_EQ(g.coordinate(-100.0, 0), -2);  // far outside (queries of another set): no neighbours
  EXPECT_EQ(g.coordinate(std::nan(""), 0), -2);
  long long c[2] = {3, 0};
  EXPECT_EQ(g.id_of(c), 3u);
  // Extent 0 and a cutoff larger than the extent: one cell.
  double same[2] = {1, 1};
  auto const one = make_grid_geometry<2>(same, same, 0.5);
  EXPECT_EQ(one.total(), 1u);
  double big_hi[2] = {3, 3}, zero[2] = {0, 0};
  EXPECT_EQ(make_grid_geometry<2>(zero, big_hi, 100.0).total(), 1u);
  EXPECT_THROW(make_grid_geometry<2>(lo, hi, 0.0), twobody::error);
  EXPECT_THROW(make_grid_geometry<2>(lo, hi, std::nan("")), twobody::error);
}

TEST(GridGeometry, StencilStopsAtEdgesAndWrapsPeriodically)
{
  double lo[2] = {0, 0}, hi[2] = {9.9, 9.9};
  auto const g = make_grid_geometry<2>(lo, hi, 1.0);  // 10 x 10 cells
  ASSERT_EQ(g.cells[0], 10);
  long long corner[2] = {0, 0};
  std::set<unsigned long long> ids;
  for (int o = 0; o < 9; ++o) {
    unsigned long long id = 0;
    if (g.neighbour(corner, o, id)) { ids.insert(id); }
  }
  EXPECT_EQ(ids, (std::set<unsigned long long>{0, 1, 10, 11}));

  double box[2] = {10, 2};
  auto const p = make_periodic_grid_geometry<2>(box, 1.0);
  EXPECT_EQ(p.cells[0], 9);  // floor(10 / (1 + 1e-9)) = 9 (side 10/9 >= 1)
  EXPECT_EQ(p.cells[1], 1);  // fewer than 3 cells: one, so -1 and +1 never name the same cell
  ids.clear();
  int visits = 0;
  for (int o = 0; o < 9; ++o) {
    unsigned long long id = 0;
    if (p.neighbour(corner, o, id)) {
      ids.insert(id);
      ++visits;
    }
  }
  EXPECT_EQ(visits, 3);
  EXPECT_EQ(ids, (std::set<unsigned long long>{8, 0, 1}));  // wraps to the last cell
}

TEST(GridGeometry, CloserThanTheCutoffMeansAdjacentCells)
{
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    double const cutoff = std::uniform_real_distribution<double>(0.01, 3)(rng);
    double lo[3], hi[3], box[3];
    for (int d = 0; d < 3; ++d) {
      lo[d]  = std::uniform_real_distribution<double>(-10, 0)(rng);
      hi[d]  = lo[d] + std::uniform_real_distribution<double>(0, 20)(rng);
      box[d] = std::uniform_real_distribution<double>(0.5, 30)(rng);
    }
    auto const g = make_grid_geometry<3>(lo, hi, cutoff);
    auto const p = make_periodic_grid_geometry<3>(box, cutoff);
    for (int k = 0; k < 200; ++k) {
      double a[3], b[3], pa[3], pb[3];
      for (int d = 0; d < 3; ++d) {
        a[d]  = std::uniform_real_distribution<double>(lo[d], hi[d])(rng);
        b[d]  = std::min(hi[d], std::max(lo[d], a[d] + std::uniform_real_distribution<double>(-cutoff, cutoff)(rng)));
        pa[d] = std::uniform_real_distribution<double>(0, box[d])(rng);
        double w = pa[d] + std::uniform_real_distribution<double>(-cutoff, cutoff)(rng);
        w     = w < 0 ? w + box[d] : (w >= box[d] ? w - box[d] : w);
        pb[d] = w;
      }
      for (int d = 0; d < 3; ++d) {
        EXPECT_LE(std::llabs(g.coordinate(a[d], d) - g.coordinate(b[d], d)), 1);
        long long const diff = std::llabs(p.coordinate(pa[d], d) - p.coordinate(pb[d], d));
        EXPECT_TRUE(p.cells[d] == 1 || diff <= 1 || diff == p.cells[d] - 1) << diff << " of " << p.cells[d];
      }
    }
  }
}

TEST(GridGeometry, LinearIdsStayWithin62Bits)
{
  double lo[6] = {0, 0, 0, 0, 0, 0}, hi[6] = {1e6, 1e6, 1e6, 1e6, 1e6, 1e6};
  auto const g = make_grid_geometry<6>(lo, hi, 1e-3);  // 1e9 cells per axis would need 180 bits
  double bits = 0;
  for (int d = 0; d < 6; ++d) {
    bits += std::log2(static_cast<double>(g.cells[d]));
    EXPECT_LE(1.0 / g.inv_side[d], 1e6 + 1);
    EXPECT_GE(1.0 / g.inv_side[d], 1e-3);
  }
  EXPECT_LE(bits, 62.0);
  EXPECT_EQ(g.coordinate(1e6, 5), g.cells[5] - 1);
}

TEST(GridGeometry, GridPaysWhereNeighbourhoodsCoverLittle)
{
  double lo[3] = {0, 0, 0}, hi[3] = {100, 100, 100};
  double const many = 1e12;
  EXPECT_TRUE(twobody::detail::grid_pays(make_grid_geometry<3>(lo, hi, 5.0), many));    // 21^3 cells
  EXPECT_TRUE(twobody::detail::grid_pays(make_grid_geometry<3>(lo, hi, 20.0), many));   // (3/5)^3 = 0.22
  EXPECT_FALSE(twobody::detail::grid_pays(make_grid_geometry<3>(lo, hi, 40.0), many));  // 3 cells: all of it
  EXPECT_FALSE(twobody::detail::grid_pays(make_grid_geometry<3>(lo, hi, 5.0), 1e6));   // too few pairs
}

TEST(GridJoinEstimate, SampledBatchesAreDistinctSpreadAndInRange)
{
  using twobody::detail::sampled_units;
  EXPECT_TRUE(sampled_units(0, 1024).empty());
  for (unsigned long long batches : {1ull, 7ull, 1024ull, 1025ull, 65536ull, 1000003ull}) {
    auto const picks = sampled_units(batches, 1024);
    ASSERT_EQ(picks.size(), std::min<unsigned long long>(batches, 1024)) << batches;
    std::set<unsigned long long> distinct(picks.begin(), picks.end());
    EXPECT_EQ(distinct.size(), picks.size()) << batches;
    EXPECT_LT(picks.back(), batches);
    // Spread: the last pick lies in the last stride of the batches.
    EXPECT_GE(picks.back() + batches / picks.size() + 1, batches - batches % picks.size()) << batches;
  }
}

TEST(GridJoinEstimate, UpperEstimateScalesTheSampleWithAMargin)
{
  using twobody::detail::units_estimate_high;
  EXPECT_EQ(units_estimate_high(0, 0, 100), 0.0);
  double const high = units_estimate_high(10000, 1024, 65536);  // 64x the sample
  EXPECT_GE(high, 10000.0 * 64 * 1.2);
  EXPECT_LE(high, 10000.0 * 64 * 1.3);
  EXPECT_GT(units_estimate_high(0, 1024, 65536), 0.0);  // nothing sampled: still a few pages
}
