// The one-call histogram of small self sets over the cells of a periodic box
// (detail/cell_list_traversal.cuh): the cell grid's host math (no GPU needed), and on the GPU the
// cell kernel against the tile kernels' all-pairs result, the CPU backend and an independent
// double-precision reference (gpu_cell_list_checks.cuh), with integer coordinates (every
// minimum-image squared distance an exact integer) and bins whose edges lie away from every
// sqrt(integer) the data can give. Sizes, boxes and graphs: test_gpu_cell_list_cases.cu.
#include "gpu_cell_list_checks.cuh"

// The cells from the bins' reach: at least sqrt(values_outside_from) (1 + 2^-10) wide, at least 3
// and at most 32 per axis, at most 4096 in all.
TEST(CellGrid, CellsFollowTheReachAndTheCaps)
{
  auto const cube = make_periodic_squared_euclidean(100.f, 100.f, 100.f);
  cell_grid<3> const g = cell_grid_of(cube, distance_bins<float>(12.f, 128));
  EXPECT_EQ(g.cells[0], 8);
  EXPECT_EQ(g.cells[1], 8);
  EXPECT_EQ(g.cells[2], 8);
  EXPECT_DOUBLE_EQ(g.visited_share(), 27.0 / 512.0);
  double const reach = std::sqrt(static_cast<double>(detail::values_outside_from(distance_bins<float>(12.f, 128))));
  EXPECT_GE(100.0 / g.cells[0], reach * (1.0 + 1.0 / 1024.0));
  EXPECT_FLOAT_EQ(g.inv_width[0], 0.08f);

  cell_grid<3> const aniso = cell_grid_of(make_periodic_squared_euclidean(100.f, 60.f, 40.f), distance_bins<float>(9.7f, 83));
  EXPECT_EQ(aniso.cells[0], 10);
  EXPECT_EQ(aniso.cells[1], 6);
  EXPECT_EQ(aniso.cells[2], 4);

  // Many cells per axis: 32 at most, then fewer until 4096 in all.
  cell_grid<3> const fine = cell_grid_of(cube, distance_bins<float>(0.1f, 10));
  EXPECT_EQ(fine.total(), 4096);
  EXPECT_EQ(fine.cells[0], 16);
  cell_grid<2> const flat = cell_grid_of(make_periodic_squared_euclidean(100.f, 100.f), distance_bins<float>(0.1f, 10));
  EXPECT_EQ(flat.cells[0], 32);
  EXPECT_EQ(flat.cells[1], 32);

  // A reach past a third of an axis: no grid.
  EXPECT_FALSE(cell_grid_of(cube, distance_bins<float>(34.f, 10)).usable());
  EXPECT_FALSE(cell_grid_of(make_periodic_squared_euclidean(100.f, 100.f, 30.f), distance_bins<float>(12.f, 10)).usable());
  EXPECT_TRUE(cell_grid_of(cube, distance_bins<float>(33.f, 10)).usable());
}

// Which calls the cells serve (self sets of 2 to 4096 points, 3 cells per axis or more), and which
// the one-call histogram gives them: from 2048 points, at most a quarter of the pairs visited.
TEST(CellGrid, WhichCallsTakeTheCells)
{
  auto const cube = make_periodic_squared_euclidean(100.f, 100.f, 100.f);
  std::vector<float> x(5000, 1.f);
  auto with = [&](size_type n) { return make_points(n, x.data(), x.data(), x.data()); };
  distance_bins<float> const bins(12.f, 128);
  EXPECT_TRUE(detail::cell_list_serves(self_pairs(with(2)), cube, bins));
  EXPECT_FALSE(detail::cell_list_pays(self_pairs(with(2047)), cube, bins));
  EXPECT_TRUE(detail::cell_list_pays(self_pairs(with(2048)), cube, bins));
  EXPECT_TRUE(detail::cell_list_pays(self_pairs(with(4096)), cube, bins));
  EXPECT_FALSE(detail::cell_list_serves(self_pairs(with(1)), cube, bins));
  EXPECT_FALSE(detail::cell_list_serves(self_pairs(with(4097)), cube, bins));
  EXPECT_FALSE(detail::cell_list_serves(cross_pairs(with(100), with(100)), cube, bins));
  EXPECT_FALSE(detail::cell_list_serves(self_pairs(with(100)), cube, distance_bins<float>(12.f, 1 << 14)));
  // 5 cells per axis visit 27/125 of the pairs (taken), 4 visit 27/64 (served, not taken).
  EXPECT_TRUE(detail::cell_list_pays(self_pairs(with(3000)), cube, distance_bins<float>(19.9f, 128)));
  EXPECT_FALSE(detail::cell_list_pays(self_pairs(with(3000)), cube, distance_bins<float>(24.9f, 128)));
  EXPECT_TRUE(detail::cell_list_serves(self_pairs(with(3000)), cube, distance_bins<float>(24.9f, 128)));
  // Other statistics keep the tiles: bins without an outside threshold, an open box.
  EXPECT_FALSE((detail::cell_list_serves_v<points<float, 3>, periodic_squared_euclidean<float, 3>, uniform_bins<float>>));
  EXPECT_FALSE((detail::cell_list_serves_v<points<float, 3>, squared_euclidean, distance_bins<float>>));
  EXPECT_FALSE((detail::cell_list_serves_v<points<double, 3>, periodic_squared_euclidean<double, 3>, distance_bins<double>>));
  EXPECT_FALSE((detail::cell_list_serves_v<points<float, 3, true>, periodic_squared_euclidean<float, 3>, distance_bins<float>>));
  EXPECT_FALSE((detail::cell_list_serves_v<points<float, 1>, periodic_squared_euclidean<float, 1>, distance_bins<float>>));
  EXPECT_TRUE((detail::cell_list_serves_v<points<float, 2>, periodic_squared_euclidean<float, 2>, distance_bins<float>>));
}

TEST(GpuCellList, MatchesTheTilesTheCpuBackendAndTheReference)
{
  TBT_REQUIRE_GPU();
  distance_bins<float> const bins(12.3f, 100);
  ASSERT_GT(edge_margin(bins, 3 * 50 * 50), 1e-5);
  for (int n : {1000, 2047, 2048, 2049, 3001, 4096}) {
    integer_set<3> const s = integer_points<3>(n, {100.f, 100.f, 100.f}, 11 + n);
    auto const ref = reference(s, bins);
    check_set(s, bins, n >= detail::cell_list_min_points, &ref);
  }
  // A shorter reach: 4096 cells.
  distance_bins<float> const fine(4.7f, 100);
  ASSERT_GT(edge_margin(fine, 3 * 50 * 50), 1e-5);
  ASSERT_EQ(cell_grid_of(make_periodic_squared_euclidean(100.f, 100.f, 100.f), fine).total(), 4096);
  integer_set<3> const s = integer_points<3>(4096, {100.f, 100.f, 100.f}, 5);
  auto const ref         = reference(s, fine);
  check_set(s, fine, true, &ref);
}
