// Grid joins in rounds of a tiny or the default pool, streamed to the host, on empty sets, bad
// input and a batch too big for the budget, and the one-call join with a cutoff. Part of
// test_gpu_grid_join (test_gpu_grid_join.cu has the joins against the CPU in 1 to 6 dimensions).
#include "gpu_grid_join_checks.cuh"

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
