// Device tests of the grid index itself and of the one-call forms with a cutoff: every point
// once in non-empty cells, empty and one-point sets and bad input, the search the one-call form
// chooses (and the periodic box it takes from its functor), histograms past 48 KiB of shared
// memory. Part of test_gpu_grid (test_gpu_grid.cu has the counts and histograms against brute force).
#include "gpu_grid_checks.cuh"
#include <array>

TEST(GpuGrid, IndexHoldsEveryPointOnceInNonEmptyCells)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<double, 3> h(5000, 9, 50);
  twobody::grid_index<double, 3> grid(h.view(), 4.0);  // host input, staged
  auto const sizes = grid.cell_sizes();
  ASSERT_EQ(static_cast<long long>(sizes.size()), grid.cell_count());
  std::uint64_t total = 0;
  for (auto s : sizes) {
    EXPECT_GT(s, 0u);
    total += s;
  }
  EXPECT_EQ(total, 5000u);
  EXPECT_LE(static_cast<unsigned long long>(grid.cell_count()), grid.geometry().total());
  std::vector<std::uint32_t> perm(5000);
  ASSERT_EQ(cudaMemcpy(perm.data(), grid.permutation(), 5000 * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  std::vector<int> seen(5000, 0);
  for (auto p : perm) { ++seen[p]; }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
  std::vector<double> x(5000);
  ASSERT_EQ(cudaMemcpy(x.data(), grid.sorted_points().coords[0], 5000 * 8, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int k = 0; k < 5000; ++k) { ASSERT_EQ(x[k], h.c[0][perm[k]]); }
}

TEST(GpuGrid, EmptyAndSinglePointSetsAndBadInput)
{
  TBT_REQUIRE_GPU();
  twobody::points<float, 3> empty;
  twobody::grid_index<float, 3> g0(empty, 1.f);
  EXPECT_EQ(g0.cell_count(), 0);
  EXPECT_EQ(twobody::count_pairs(g0, twobody::within_radius(1.f)), 0u);
  tbt::host_points<float, 3> h(1, 3);
  twobody::grid_index<float, 3> g1(h.view(), 1.f);
  EXPECT_EQ(twobody::count_pairs(g1, twobody::within_radius(1.f)), 0u);
  EXPECT_EQ(twobody::count_pairs(empty, g1, twobody::within_radius(1.f)), 0u);

  tbt::host_points<float, 3> bad(100, 4);
  bad.c[1][17] = std::numeric_limits<float>::quiet_NaN();
  using grid3 = twobody::grid_index<float, 3>;
  EXPECT_THROW(grid3(bad.view(), 2.f), twobody::error);
  tbt::host_points<float, 3> ok(100, 4, 64);
  EXPECT_THROW(grid3(ok.view(), 0.f), twobody::error);
  cuda::std::array<float, 3> const small_box{32.f, 64.f, 64.f};  // coordinates reach 63
  EXPECT_THROW(grid3(ok.view(), 2.f, small_box), twobody::error);
  twobody::grid_index<float, 3> g(ok.view(), 2.f);
  twobody::grid_options o;
  o.threads_per_query = 3;
  EXPECT_THROW(twobody::count_pairs(g, twobody::within_radius(2.f), o), twobody::error);
}

TEST(GpuGrid, OneCallWithACutoffChoosesTheSearchAndAgrees)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> h(tbt::quick() ? 8000 : 20000, 303, 400);  // sparse: few pairs within 6
  tbt::device_points<float, 3> d(h);
  auto const pairs = self_pairs(d.view());
  auto const pred  = within_radius(6.f);
  auto const brute = count_pairs(pairs, pred);
  ASSERT_GT(brute, 100u);
  pair_search used = pair_search::brute_force;
  within_cutoff<float> rg{6.f};
  rg.chosen = &used;
  EXPECT_EQ(count_pairs(pairs, pred, rg), brute);
  EXPECT_EQ(used, pair_search::grid);
  rg.search = pair_search::brute_force;
  EXPECT_EQ(count_pairs(pairs, pred, rg), brute);
  EXPECT_EQ(used, pair_search::brute_force);
  rg.search = pair_search::grid;
  EXPECT_EQ(count_pairs(pairs, pred, rg), brute);
  uniform_bins<float> bins(0.f, 6.f, 6);
  EXPECT_EQ(histogram(pairs, euclidean{}, bins, rg).counts, histogram(pairs, euclidean{}, bins).counts);
  // A cutoff near the extent: the grid would visit everything, brute force is kept.
  within_cutoff<float> wide{300.f};
  wide.chosen = &used;
  EXPECT_EQ(count_pairs(pairs, within_radius(300.f), wide), count_pairs(pairs, within_radius(300.f)));
  EXPECT_EQ(used, pair_search::brute_force);
  // Cross pairs: the B side is indexed.
  tbt::host_points<float, 3> hq(5000, 304, 420);
  tbt::device_points<float, 3> q(hq);
  within_cutoff<float> cross{6.f};
  cross.search = pair_search::grid;
  EXPECT_EQ(count_pairs(cross_pairs(q.view(), d.view()), pred, cross), count_pairs(cross_pairs(q.view(), d.view()), pred));
}

TEST(GpuGrid, OneCallWithACutoffTakesThePeriodicBoxOfItsFunctor)
{
  // A minimum-image predicate or metric with a cutoff: the grid is periodic in the functor's
  // box, so pairs across the box's faces are found (an open grid would miss them).
  TBT_REQUIRE_GPU();
  using namespace twobody;
  int const L = 64;
  tbt::host_points<float, 3> h(tbt::quick() ? 6000 : 12000, 305, L);  // integer coordinates in [0, 64)
  tbt::device_points<float, 3> d(h);
  auto const metric = make_periodic_squared_euclidean(float(L), float(L), float(L));
  within<decltype(metric), float> const pred{metric, 4.5f * 4.5f};
  for (auto const& pairs : {self_pairs(d.view()), cross_pairs(d.view(), d.view())}) {
    auto const brute = count_pairs(pairs, pred);
    pair_search used = pair_search::brute_force;
    within_cutoff<float> rg{4.5f, pair_search::grid};
    rg.chosen = &used;
    EXPECT_EQ(count_pairs(pairs, pred, rg), brute);
    EXPECT_EQ(used, pair_search::grid);
    rg.search = pair_search::automatic;
    EXPECT_EQ(count_pairs(pairs, pred, rg), brute);
    distance_bins<float> bins(4.5f, 9);
    rg.search = pair_search::grid;
    EXPECT_EQ(histogram(pairs, metric, bins, rg).counts, histogram(pairs, metric, bins).counts);
  }
  auto const self = self_pairs(h.view());
  EXPECT_EQ(count_pairs(self_pairs(d.view()), pred, within_cutoff<float>{4.5f, pair_search::grid}),
            cpu::count_pairs(self, pred));
}

TEST(GpuGrid, HistogramsPastFortyEightKiBOfSharedMemory)
{
  TBT_REQUIRE_GPU();
  // 5000 bins x 8 copies x 4 bytes = 160 KB of shared counters: the kernel's dynamic shared
  // memory attribute must be raised before its occupancy is asked.
  tbt::host_points<float, 3> h(3000, 55, 48);
  tbt::device_points<float, 3> d(h);
  twobody::grid_index<float, 3> grid(d.view(), 5.f);
  twobody::uniform_bins<float> bins(0.f, 5.f, 5000);
  EXPECT_EQ(twobody::histogram(grid, twobody::euclidean{}, bins).counts,
            twobody::histogram(twobody::self_pairs(d.view()), twobody::euclidean{}, bins).counts);
}
