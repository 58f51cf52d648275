// Device tests of the joins: every GPU result, as a sorted set, equals the CPU backend's
// (integer coordinates, so every distance test is exact on both), for each output policy,
// self / cross / ordered pairs, pools so small that many resume rounds run, the host
// streaming path, zero results and all pairs.
#include "common.cuh"

#include <twobody/join.cuh>

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace {

using twobody::index_pair;

template <class R>
std::vector<std::tuple<std::uint32_t, std::uint32_t>> keys(std::vector<R> v)
{
  std::vector<std::tuple<std::uint32_t, std::uint32_t>> k;
  k.reserve(v.size());
  for (auto const& r : v) { k.emplace_back(r.i, r.j); }
  std::sort(k.begin(), k.end());
  return k;
}


template <class Input, class Output, class T = float>
void check_policy(char const* what)
{
  SCOPED_TRACE(what);
  tbt::host_points<T, 3> ha(2500, 21, 48), hb(1777, 22, 48);
  tbt::device_points<T, 3> a(ha), b(hb);
  T const eps = 4;
  twobody::within_eps_fn<T> const pred{eps * eps};

  auto self = twobody::join<Input, Output>(twobody::self_pairs(a.view()), pred);
  EXPECT_EQ(self.location(), twobody::result_location::device);
  auto const ref_self = twobody::cpu::join(twobody::self_pairs(ha.view()), pred);
  ASSERT_GT(ref_self.size(), 1000u);
  auto got_self = self.to_host();
  for (auto const& r : got_self) { ASSERT_LT(r.i, r.j); }
  EXPECT_EQ(keys(got_self), keys(ref_self));
  EXPECT_EQ(self.stats().results, ref_self.size());

  auto cross = twobody::join<Input, Output>(twobody::cross_pairs(a.view(), b.view()), pred);
  EXPECT_EQ(keys(cross.to_host()), keys(twobody::cpu::join(twobody::cross_pairs(ha.view(), hb.view()), pred)));

  auto ordered = twobody::join<Input, Output>(twobody::ordered_pairs(b.view()), pred);
  EXPECT_EQ(keys(ordered.to_host()), keys(twobody::cpu::join(twobody::ordered_pairs(hb.view()), pred)));
}

struct less_k1 {
  __host__ __device__ bool operator()(twobody::point<int, 2> const& a, twobody::point<int, 2> const& b) const
  {
    return a[0] < b[0];
  }
};
struct rec {
  std::uint32_t i, j;
  int dk;
};
struct make {
  __host__ __device__ rec operator()(twobody::point<int, 2> const& a, twobody::point<int, 2> const& b,
                                     twobody::size_type i, twobody::size_type j) const
  {
    return {std::uint32_t(i), std::uint32_t(j), b[1] - a[1]};
  }
};

}  // namespace

TEST(GpuJoin, EveryOutputPolicyMatchesTheCpu)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  check_policy<input::shared_tile<256, 4>, output::direct_output_buffer<4>>("dob thread 4");
  check_policy<input::shared_tile<256, 4>, output::direct_output_buffer<1>>("dob thread 1");
  check_policy<input::shared_tile<256, 4>, output::direct_output_buffer<16>>("dob thread 16");
  check_policy<input::shared_tile<256, 4>, output::direct_output_buffer<64, output::page_owner::warp>>("dob warp 64");
  check_policy<input::shared_tile<256, 4>, output::two_pass>("two pass");
  check_policy<input::shuffle_tile<256, 4>, output::direct_output_buffer<4>>("shuffle tile");
  check_policy<input::shared_tile<128, 1>, output::direct_output_buffer<32, output::page_owner::warp>>("st128x1 warp");
  // Column groups: two groups of 128 threads share each tile pair's columns (and its pages).
  check_policy<input::shared_tile<256, 1, 4, 2>, output::direct_output_buffer<4>>("st128x1 groups 2");
  check_policy<input::shared_tile<256, 1, 4, 2>, output::two_pass>("st128x1 groups 2 two pass");
  check_policy<input::readonly_tile<256, 2>, output::direct_output_buffer<4>>("readonly tile");
}

// A column tile of 2048 double 3-D points (64 KiB) lives in dynamic shared memory
// (input/shared_tile.cuh): both join drivers give it room.
TEST(GpuJoin, LargeTilesOfDoublePoints)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  using large = input::shared_tile<512, 4>;
  static_assert(large::column_source<points<double, 3>>::tile_is_dynamic, "the tile this test is for");
  check_policy<large, output::direct_output_buffer<4>, double>("shared_tile<512, 4> double, dob");
  check_policy<large, output::two_pass, double>("shared_tile<512, 4> double, two pass");
}

TEST(GpuJoin, TinyPoolForcesManyResumeRounds)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> h(3000, 31, 40);
  tbt::device_points<float, 3> d(h);
  within_eps_fn<float> const pred{9.f};
  auto const ref = keys(cpu::join(self_pairs(h.view()), pred));
  ASSERT_GT(ref.size(), 5000u);
  join_options opt;
  opt.pool_records = 512;
  opt.grow_pool    = false;
  // Small tiles (32 x 32 pairs a unit), so units fit a small pool.
  auto thread_pages = join<input::shared_tile<32, 1>, output::direct_output_buffer<4>>(self_pairs(d.view()), pred, opt);
  EXPECT_EQ(keys(thread_pages.to_host()), ref);
  EXPECT_GT(thread_pages.stats().rounds, 5);
  EXPECT_GT(thread_pages.stats().units_rolled_back, 0u);
  auto warp_pages = join<input::shared_tile<32, 1>, output::direct_output_buffer<32, output::page_owner::warp>>(
    self_pairs(d.view()), pred, opt);
  EXPECT_EQ(keys(warp_pages.to_host()), ref);
  EXPECT_GT(warp_pages.stats().rounds, 5);
  // A pool too small for one unit doubles until one fits (grow_pool = false or not).
  opt.pool_records = 4;
  auto grown = join<input::shared_tile<256, 4>, output::direct_output_buffer<4>>(self_pairs(d.view()), pred, opt);
  EXPECT_EQ(keys(grown.to_host()), ref);
  EXPECT_GT(grown.stats().pool_records, 4u);
}

TEST(GpuJoin, HostStreamingWithASmallBudget)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> h(4000, 41, 40);
  tbt::device_points<float, 3> d(h);
  within_eps_fn<float> const pred{16.f};
  auto const ref = keys(cpu::join(self_pairs(h.view()), pred));
  ASSERT_GT(ref.size(), 20000u);
  join_options opt;
  opt.location             = result_location::host;
  opt.device_memory_budget = 64 * 1024;  // pool + drain buffer: ~3200 records a round
  auto r = join<input::shared_tile<64, 1>, output::direct_output_buffer<4>>(self_pairs(d.view()), pred, opt);
  EXPECT_EQ(r.location(), result_location::host);
  EXPECT_EQ(keys(r.to_host()), ref);
  EXPECT_GT(r.stats().rounds, 5);
  EXPECT_LE(r.stats().pool_records * 20, 64u * 1024u);
  // The same through a callback, with host-resident input points (staged by the call).
  std::size_t calls = 0;
  std::vector<index_pair> got;
  auto stats = join_each<input::shared_tile<64, 1>>(self_pairs(h.view()), pred, [&](index_pair const* p, std::size_t n) {
    ++calls;
    got.insert(got.end(), p, p + n);
  }, opt);
  EXPECT_EQ(keys(got), ref);
  EXPECT_EQ(static_cast<int>(calls), stats.rounds);
  EXPECT_GT(calls, 5u);
}

TEST(GpuJoin, ZeroResultsAllPairsAndEmptySets)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 2> h(1500, 51), hb(700, 52);
  tbt::device_points<float, 2> d(h), db(hb);
  auto none = join(self_pairs(d.view()), tbt::never{});
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.stats().rounds, 1);

  auto all = join(self_pairs(d.view()), tbt::always{});
  ASSERT_EQ(all.size(), 1500u * 1499u / 2u);
  auto const all_keys = keys(all.to_host());
  EXPECT_EQ(all_keys, keys(cpu::join(self_pairs(h.view()), tbt::always{})));
  auto all_cross = join<input::shared_tile<256, 4>, output::direct_output_buffer<64, output::page_owner::warp>>(
    cross_pairs(d.view(), db.view()), tbt::always{});
  EXPECT_EQ(all_cross.size(), 1500u * 700u);
  EXPECT_EQ(keys(all_cross.to_host()), keys(cpu::join(cross_pairs(h.view(), hb.view()), tbt::always{})));
  auto all_two_pass = join<input::shared_tile<256, 4>, output::two_pass>(self_pairs(d.view()), tbt::always{});
  EXPECT_EQ(keys(all_two_pass.to_host()), all_keys);

  points<float, 2> empty;
  EXPECT_TRUE(pairs_within(self_pairs(empty), 1.f).empty());
  EXPECT_TRUE(pairs_within(cross_pairs(d.view(), empty), 1.f).empty());
  auto one = d.view();
  one.size = 1;
  EXPECT_TRUE(pairs_within(self_pairs(one), 100.f).empty());
}

TEST(GpuJoin, DefaultPoolFinishesInOneRound)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> h(tbt::quick() ? 6000 : 30000, 61, 256);
  tbt::device_points<float, 3> d(h);
  auto r = pairs_within(self_pairs(d.view()), 6.f);
  auto const ref = cpu::join(self_pairs(h.view()), within_eps_fn<float>{36.f});
  EXPECT_EQ(keys(r.to_host()), keys(ref));
  EXPECT_EQ(r.stats().rounds, 1);
  EXPECT_GT(r.stats().estimated_results, ref.size() / 3);
  EXPECT_LT(r.stats().estimated_results, ref.size() * 3);
  // Sorted on the device: (i, j) order, as the CPU backend gives it.
  sort_by_index(r);
  auto const sorted = r.to_host();
  ASSERT_EQ(sorted.size(), ref.size());
  for (std::size_t k = 0; k < ref.size(); ++k) {
    ASSERT_EQ(sorted[k].i, ref[k].i);
    ASSERT_EQ(sorted[k].j, ref[k].j);
  }
}

TEST(GpuJoin, RecordsWithValuesThetaAndBandJoins)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<double, 3> h(2000, 71, 32);
  tbt::device_points<double, 3> d(h);
  auto with_d = pairs_within(self_pairs(d.view()), 3.0, euclidean{});
  auto const ref = cpu::join(self_pairs(h.view()), emit_pairs_within<euclidean, double>{euclidean{}, 3.0});
  auto got = with_d.to_host();
  sort_by_index(got);
  ASSERT_EQ(got.size(), ref.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].i, ref[k].i);
    ASSERT_EQ(got[k].j, ref[k].j);
    // Hardware and host sqrt of the same exact double: correctly rounded on both.
    ASSERT_EQ(got[k].value, ref[k].value);
  }

  // Theta join of two integer tables: a.k1 < b.k1 && |a.k2 - b.k2| <= 2, and a band join.
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> key(0, 999);
  std::int64_t const na = 3001, nb = 2047;
  std::vector<int> a1(na), a2(na), b1(nb), b2(nb);
  for (auto* v : {&a1, &a2, &b1, &b2}) {
    for (auto& x : *v) { x = key(rng); }
  }
  thrust::device_vector<int> da1(a1), da2(a2), db1(b1), db2(b2);
  auto A  = make_points(na, thrust::raw_pointer_cast(da1.data()), thrust::raw_pointer_cast(da2.data()));
  auto B  = make_points(nb, thrust::raw_pointer_cast(db1.data()), thrust::raw_pointer_cast(db2.data()));
  auto hA = make_points(na, a1.data(), a2.data());
  auto hB = make_points(nb, b1.data(), b2.data());
  auto const theta_pred = all_of(less_k1{}, band_fn<int>{1, -2, 2});
  auto theta = join(cross_pairs(A, B), theta_pred);
  auto const theta_ref = cpu::join(cross_pairs(hA, hB), theta_pred);
  ASSERT_GT(theta_ref.size(), 1000u);
  EXPECT_EQ(keys(theta.to_host()), keys(theta_ref));
  auto band = band_join(cross_pairs(A, B), 0, -1, 1);
  EXPECT_EQ(keys(band.to_host()), keys(cpu::join(cross_pairs(hA, hB), band_fn<int>{0, -1, 1})));

  // A custom record through emit_if.
  auto custom = join(cross_pairs(A, B), emit_if<rec>(theta_pred, make{}), {}, 0);
  auto cg     = custom.to_host();
  sort_by_index(cg);
  ASSERT_EQ(cg.size(), theta_ref.size());
  for (std::size_t k = 0; k < cg.size(); ++k) {
    ASSERT_EQ(cg[k].i, theta_ref[k].i);
    ASSERT_EQ(cg[k].dk, b2[cg[k].j] - a2[cg[k].i]);
  }
}

TEST(GpuJoin, ThrowingCallbackStopsTheJoinCleanly)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> h(3000, 81, 40);
  tbt::device_points<float, 3> d(h);
  join_options opt;
  opt.device_memory_budget = 32 * 1024;
  int calls = 0;
  auto throwing = [&](index_pair const*, std::size_t) {
    if (++calls == 2) { throw std::runtime_error("consumer full"); }
  };
  auto run = [&] { join_each<input::shared_tile<64, 1>>(self_pairs(d.view()), within_eps_fn<float>{16.f}, throwing, opt); };
  EXPECT_THROW(run(), std::runtime_error);
  EXPECT_EQ(calls, 2);
  // The device and the library are still usable.
  auto r = pairs_within(self_pairs(d.view()), 4.f);
  EXPECT_EQ(keys(r.to_host()), keys(cpu::join(self_pairs(h.view()), within_eps_fn<float>{16.f})));
}

TEST(GpuJoin, BudgetTooSmallForOneUnitIsAClearError)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> h(2000, 91, 8);  // dense: a unit yields thousands of records
  tbt::device_points<float, 3> d(h);
  join_options opt;
  opt.device_memory_budget = 1024;
  try {
    (void)join(self_pairs(d.view()), tbt::always{}, opt);
    FAIL() << "expected twobody::error";
  } catch (twobody::error const& e) {
    EXPECT_NE(std::string(e.what()).find("device_memory_budget"), std::string::npos) << e.what();
  }
}

TEST(GpuJoin, MoreThan2To32ResultsStreamToTheHost)
{
  TBT_REQUIRE_GPU();
  if (tbt::quick()) { GTEST_SKIP() << "4.3e9 records: not in quick mode"; }
  using namespace twobody;
  // All pairs of 92683 points: 4,295,022,903 records, past 2^32 (64-bit counts and offsets).
  std::int64_t const n = 92683;
  tbt::host_points<float, 1> h(n, 101);
  tbt::device_points<float, 1> d(h);
  unsigned long long count = 0, index_sum = 0;
  bool ordered             = true;
  join_options opt;
  opt.device_memory_budget = std::size_t(8) << 30;
  auto st = join_each(self_pairs(d.view()), tbt::always{}, [&](index_pair const* p, std::size_t k) {
    count += k;
    for (std::size_t t = 0; t < k; ++t) {
      index_sum += p[t].i + p[t].j;
      ordered = ordered && p[t].i < p[t].j;
    }
  }, opt);
  unsigned long long const pairs = static_cast<unsigned long long>(n) * (n - 1) / 2;
  ASSERT_GT(pairs, 1ull << 32);
  EXPECT_EQ(count, pairs);
  EXPECT_EQ(st.results, pairs);
  EXPECT_GT(st.rounds, 1);
  EXPECT_TRUE(ordered);
  // Every index appears in n - 1 pairs: the sum of i + j over all pairs is (n - 1) n (n - 1) / 2.
  EXPECT_EQ(index_sum, static_cast<unsigned long long>(n - 1) * pairs);
}
