// Device tests of the joins over a grid index: sorted results equal the CPU backend's and the
// brute-force GPU join's (integer coordinates: every distance test is exact), for 1-D..6-D,
// periodic and not, eps below and at the cutoff, cutoffs around the data extent, duplicate
// points, cross mode, every traversal option, pools so small that many rounds run, host
// streaming, empty sets and bad input.
#include "common.cuh"

#include <twobody/grid_join.cuh>

#include <algorithm>
#include <tuple>
#include <vector>

namespace {

using twobody::index_pair;

template <class R>
std::vector<std::tuple<std::uint32_t, std::uint32_t>> keys(std::vector<R> const& v)
{
  std::vector<std::tuple<std::uint32_t, std::uint32_t>> k;
  k.reserve(v.size());
  for (auto const& r : v) { k.emplace_back(r.i, r.j); }
  std::sort(k.begin(), k.end());
  return k;
}

template <int D>
void check_dimension(std::int64_t n, int range, float cutoff)
{
  SCOPED_TRACE("D = " + std::to_string(D) + ", range " + std::to_string(range) + ", cutoff " + std::to_string(cutoff));
  using namespace twobody;
  tbt::host_points<float, D> h(n, 500 + D, range);
  tbt::device_points<float, D> d(h);
  grid_index<float, D> grid(d.view(), cutoff);
  for (float eps : {cutoff, cutoff * 0.5f}) {  // one index, several eps <= its cutoff
    SCOPED_TRACE("eps " + std::to_string(eps));
    within_eps_fn<float> const pred{eps * eps};
    auto const ref = keys(cpu::join(self_pairs(h.view()), pred));
    auto got       = pairs_within(grid, eps).to_host();
    for (auto const& r : got) { ASSERT_LT(r.i, r.j); }
    EXPECT_EQ(keys(got), ref);
    EXPECT_EQ(keys(pairs_within(self_pairs(d.view()), eps).to_host()), ref) << "brute-force GPU join";
    for (int k : {1, 4, 32}) {
      grid_options o;
      o.threads_per_query = k;
      o.order_by_workload = k != 4;
      o.half_stencil      = k != 32;
      EXPECT_EQ(keys(pairs_within(grid, eps, {}, o).to_host()), ref) << "threads_per_query " << k;
    }
  }
  // Cross: queries partly outside the indexed box, host-resident and on the device.
  tbt::host_points<float, D> hq(n / 2 + 5, 600 + D, range + range / 2);
  tbt::device_points<float, D> q(hq);
  within_eps_fn<float> const pred{cutoff * cutoff};
  auto const ref_cross = keys(cpu::join(cross_pairs(hq.view(), h.view()), pred));
  EXPECT_EQ(keys(pairs_within(q.view(), grid, cutoff).to_host()), ref_cross);
  EXPECT_EQ(keys(pairs_within(hq.view(), grid, cutoff).to_host()), ref_cross) << "host-resident queries";
}

}  // namespace

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

TEST(GpuGridJoin, TinyPoolsRoundsAndHostStreaming)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> h(4000, 909, 40);
  tbt::device_points<float, 3> d(h);
  grid_index<float, 3> grid(d.view(), 4.f);
  within_eps_fn<float> const pred{16.f};
  auto const ref = keys(cpu::join(self_pairs(h.view()), pred));
  ASSERT_GT(ref.size(), 20000u);

  join_options opt;
  opt.pool_records = 2048;
  opt.grow_pool    = false;
  auto r = join<output::direct_output_buffer<4>>(grid, pred, opt);
  EXPECT_EQ(keys(r.to_host()), ref);
  EXPECT_GT(r.stats().rounds, 5);
  EXPECT_GT(r.stats().units_rolled_back, 0u);

  join_options host;
  host.location             = result_location::host;
  host.device_memory_budget = 256 * 1024;
  auto s = pairs_within(grid, 4.f, host);
  EXPECT_EQ(s.location(), result_location::host);
  EXPECT_EQ(keys(s.to_host()), ref);
  EXPECT_GT(s.stats().rounds, 1);

  std::vector<index_pair> got;
  std::size_t calls = 0;
  join_each(grid, pred, [&](index_pair const* p, std::size_t n) {
    ++calls;
    got.insert(got.end(), p, p + n);
  }, host);
  EXPECT_EQ(keys(got), ref);
  EXPECT_GT(calls, 1u);

  // Cross mode through rounds too.
  tbt::host_points<float, 3> hq(3000, 910, 40);
  auto const ref_cross = keys(cpu::join(cross_pairs(hq.view(), h.view()), pred));
  EXPECT_EQ(keys(join<output::direct_output_buffer<4>>(hq.view(), grid, pred, opt).to_host()), ref_cross);
}

TEST(GpuGridJoin, DefaultPoolFinishesInOneRound)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> h(20000, 111, 200);
  tbt::device_points<float, 3> d(h);
  grid_index<float, 3> grid(d.view(), 6.f);
  auto r = pairs_within(grid, 6.f);
  auto const n = twobody::count_pairs(self_pairs(d.view()), within_eps_fn<float>{36.f});  // |a - b| <= 6
  ASSERT_GT(n, 10000u);
  EXPECT_EQ(r.size(), n);
  EXPECT_EQ(r.stats().rounds, 1);
  EXPECT_GT(double(r.stats().estimated_results), 0.5 * double(n));
  EXPECT_LT(double(r.stats().estimated_results), 2.0 * double(n));
}

TEST(GpuGridJoin, EmptySetsBadInputAndABatchTooBigForTheBudget)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  points<float, 3> empty;
  grid_index<float, 3> g0(empty, 1.f);
  EXPECT_EQ(pairs_within(g0, 1.f).size(), 0u);
  tbt::host_points<float, 3> h(500, 5, 32);
  grid_index<float, 3> g(h.view(), 2.f);
  EXPECT_EQ(pairs_within(empty, g, 2.f).size(), 0u);
  EXPECT_EQ(pairs_within(h.view(), g0, 1.f).size(), 0u);
  EXPECT_THROW(pairs_within(g, 2.5f), twobody::error);  // eps past the cutoff: pairs would be missed
  EXPECT_THROW(pairs_within(g, -1.f), twobody::error);
  grid_options bad;
  bad.threads_per_query = 3;
  EXPECT_THROW(pairs_within(g, 2.f, {}, bad), twobody::error);

  // 3000 copies of one point: one batch of queries yields ~96000 records; 64 KiB cannot hold them.
  std::vector<float> x(3000, 1.f), y(3000, 2.f), z(3000, 3.f);
  auto const same = make_points(3000, x.data(), y.data(), z.data());
  grid_index<float, 3> dense(same, 1.f);
  join_options small;
  small.device_memory_budget = 64 * 1024;
  try {
    (void)pairs_within(dense, 1.f, small);
    ADD_FAILURE() << "expected an error";
  } catch (twobody::error const& err) {
    EXPECT_NE(std::string(err.what()).find("device_memory_budget"), std::string::npos) << err.what();
  }
  // With room, every one of the 3000 * 2999 / 2 pairs comes back.
  EXPECT_EQ(pairs_within(dense, 1.f).size(), 3000u * 2999u / 2u);
}

TEST(GpuGridJoin, OneCallWithACutoffChoosesTheSearchAndAgrees)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> h(tbt::quick() ? 8000 : 20000, 313, 400);  // sparse: few pairs within 6
  tbt::device_points<float, 3> d(h);
  auto const pairs = self_pairs(d.view());
  auto const ref   = keys(pairs_within(pairs, 6.f).to_host());
  ASSERT_GT(ref.size(), 100u);
  pair_search used = pair_search::brute_force;
  within_cutoff<float> rg{6.f};
  rg.chosen = &used;
  EXPECT_EQ(keys(pairs_within(pairs, 6.f, rg).to_host()), ref);
  EXPECT_EQ(used, pair_search::grid);
  EXPECT_EQ(keys(pairs_within(pairs, 3.f, rg).to_host()), keys(pairs_within(pairs, 3.f).to_host()));
  rg.search = pair_search::brute_force;
  EXPECT_EQ(keys(pairs_within(pairs, 6.f, rg).to_host()), ref);
  EXPECT_EQ(used, pair_search::brute_force);
  EXPECT_THROW(pairs_within(pairs, 7.f, rg), twobody::error);
  // Cross pairs: the B side is indexed.
  tbt::host_points<float, 3> hq(5000, 314, 420);
  tbt::device_points<float, 3> q(hq);
  within_cutoff<float> cross{6.f};
  cross.search = pair_search::grid;
  EXPECT_EQ(keys(pairs_within(cross_pairs(q.view(), d.view()), 6.f, cross).to_host()),
            keys(pairs_within(cross_pairs(q.view(), d.view()), 6.f).to_host()));
}
