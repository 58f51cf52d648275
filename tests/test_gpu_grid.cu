// Device tests of the grid index: pair counts and histograms up to a cutoff equal the CPU backend's
// brute force (and the GPU's one-call forms in 3-D), for 1-D..3-D (4-D..6-D:
// test_gpu_grid_high_dims.cu), periodic and not, cutoffs smaller than, equal to and larger than the
// data extent, integer coordinates (many points exactly on cell borders), duplicate points, all
// points in one cell, cross mode, every traversal option. The index itself and the one-call forms
// with a cutoff: test_gpu_grid_index.cu (the same binary).
#include "gpu_grid_checks.cuh"
#include <array>

// (4 to 6 dimensions: test_gpu_grid_high_dims.cu, so that no translation unit compiles all six.)
TEST(GpuGrid, CountsAndHistogramsMatchBruteForceIn1To3Dimensions)
{
  TBT_REQUIRE_GPU();
  std::int64_t const n = tbt::quick() ? 1500 : 4000;
  tbt_grid::check_dimension<1>(n, 4000, 3.f);
  tbt_grid::check_dimension<2>(n, 200, 4.f);
  tbt_grid::check_dimension<3>(n, 64, 5.f);
}

TEST(GpuGrid, CutoffsAroundTheDataExtent)
{
  TBT_REQUIRE_GPU();
  tbt_grid::check_dimension<3>(2000, 16, 15.f);   // cutoff ~ extent: a few cells
  tbt_grid::check_dimension<3>(2000, 16, 16.f);   // equal to the range: 2 cells per axis at most
  tbt_grid::check_dimension<3>(1500, 16, 100.f);  // larger than the extent: all points in one cell
  tbt_grid::check_dimension<2>(2000, 4, 1.f);     // many duplicate points on a tiny lattice, r = lattice step
}

TEST(GpuGrid, PeriodicBoxMatchesMinimumImageBruteForce)
{
  TBT_REQUIRE_GPU();
  for (float r : {3.f, 7.f, 20.f}) {
    SCOPED_TRACE("r = " + std::to_string(r));
    int const L = 40;
    tbt::host_points<float, 3> h(3000, 77, L);  // integer coordinates in [0, 40)
    tbt::device_points<float, 3> d(h);
    auto const metric = twobody::make_periodic_euclidean(float(L), float(L), float(L));
    twobody::within<decltype(metric), float> const pred{metric, r};
    auto const brute = twobody::count_pairs(twobody::self_pairs(d.view()), pred);
    EXPECT_EQ(brute, twobody::cpu::count_pairs(twobody::self_pairs(h.view()), pred));
    twobody::grid_index<float, 3> grid(d.view(), r, {float(L), float(L), float(L)});
    EXPECT_TRUE(grid.periodic());
    EXPECT_EQ(twobody::count_pairs(grid, pred), brute);
    twobody::grid_options full;
    full.half_stencil = false;
    EXPECT_EQ(twobody::count_pairs(grid, pred, full), brute);
    twobody::uniform_bins<float> bins(0.f, r, 9);
    EXPECT_EQ(twobody::histogram(grid, metric, bins).counts,
              twobody::histogram(twobody::self_pairs(d.view()), metric, bins).counts);
  }
}
