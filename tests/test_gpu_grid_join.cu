// Device tests of the joins over a grid index: sorted results equal the CPU backend's (and, in 3-D,
// the brute-force GPU join's; integer coordinates: every distance test is exact), for 1-D..6-D,
// periodic and not, eps below and at the cutoff, cutoffs around the data extent, duplicate points,
// cross mode, every traversal option, records with values. Pools, rounds, host streaming, empty
// sets and bad input: test_gpu_grid_join_rounds.cu (the same binary).
#include "gpu_grid_join_checks.cuh"

TEST(GpuGridJoin, SelfAndCrossJoinsMatchTheCpuIn1To6Dimensions)
{
  TBT_REQUIRE_GPU();
  std::int64_t const n = tbt::quick() ? 1500 : 3000;
  check_dimension<1>(n, 4000, 3.f);
  check_dimension<2>(n, 200, 4.f);
  check_dimension<3>(n, 64, 5.f);
  check_dimension<4>(n, 24, 4.f);
  check_dimension<5>(n, 12, 3.f);
  check_dimension<6>(n, 8, 3.f);
}

TEST(GpuGridJoin, CutoffsAroundTheExtentDuplicatesAndOneCell)
{
  TBT_REQUIRE_GPU();
  check_dimension<3>(1500, 16, 16.f);   // cutoff = the range: at most 2 cells per axis
  check_dimension<3>(1200, 16, 100.f);  // larger than the extent: every point in one cell
  check_dimension<2>(1500, 4, 1.f);     // a 4 x 4 lattice: many duplicates, points on every border
}

TEST(GpuGridJoin, PeriodicBoxUsesTheMinimumImage)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  int const L = 40;
  tbt::host_points<float, 3> h(3000, 707, L);
  tbt::device_points<float, 3> d(h);
  for (float r : {3.f, 7.f, 20.f}) {
    SCOPED_TRACE("r = " + std::to_string(r));
    grid_index<float, 3> grid(d.view(), r, {float(L), float(L), float(L)});
    auto const sq = make_periodic_squared_euclidean(float(L), float(L), float(L));
    metric_within_fn<decltype(sq), float> const pred{sq, r * r};
    auto const ref = keys(cpu::join(self_pairs(h.view()), pred));
    ASSERT_GT(ref.size(), 100u);
    EXPECT_EQ(keys(pairs_within(grid, r).to_host()), ref);
    EXPECT_EQ(keys(join(grid, pred).to_host()), ref) << "the same predicate through join()";
  }
}

TEST(GpuGridJoin, RecordsWithValuesEqualTheBruteForceJoin)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> h(2500, 808, 48);
  tbt::device_points<float, 3> d(h);
  grid_index<float, 3> grid(d.view(), 4.f);
  emit_pairs_within<squared_euclidean, float> const e{squared_euclidean{}, 16.f};
  auto g = join(grid, e).to_host();
  auto b = join(self_pairs(d.view()), e).to_host();
  ASSERT_GT(b.size(), 1000u);
  sort_by_index(g);
  sort_by_index(b);
  ASSERT_EQ(g.size(), b.size());
  for (std::size_t k = 0; k < g.size(); ++k) {
    ASSERT_EQ(g[k].i, b[k].i);
    ASSERT_EQ(g[k].j, b[k].j);
    ASSERT_EQ(g[k].value, b[k].value);  // the emitter saw (a_i, a_j) in the same order
  }
}
