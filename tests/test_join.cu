// Host tests of the join layer: the CPU backend's joins against plain loops, the round
// arithmetic of the direct output buffer, and the argument checks that need no GPU.
#include "common.cuh"

#include <twobody/join.cuh>

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using pair_list = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

template <class R>
pair_list as_pairs(std::vector<R> const& v)
{
  pair_list out;
  for (auto const& r : v) { out.emplace_back(r.i, r.j); }
  return out;
}

// The reference of the reference: squared distances in double, plain loops.
template <int D>
pair_list brute_within(tbt::host_points<float, D> const& a, tbt::host_points<float, D> const* b, double eps,
                       twobody::pair_mode mode)
{
  auto const& bb = b != nullptr ? *b : a;
  pair_list out;
  for (std::int64_t i = 0; i < a.n; ++i) {
    for (std::int64_t j = 0; j < bb.n; ++j) {
      if (mode == twobody::pair_mode::self && j <= i) { continue; }
      if (mode == twobody::pair_mode::ordered && j == i) { continue; }
      double s = 0;
      for (int d = 0; d < D; ++d) {
        double const t = double(a.c[d][i]) - double(bb.c[d][j]);
        s += t * t;
      }
      if (s <= eps * eps) { out.emplace_back(std::uint32_t(i), std::uint32_t(j)); }
    }
  }
  return out;
}

}  // namespace

TEST(CpuJoin, SelfCrossOrderedMatchPlainLoops)
{
  tbt::host_points<float, 3> a(700, 11, 32), b(531, 12, 32);
  float const eps = 5.f;
  auto const self = twobody::cpu::join(twobody::self_pairs(a.view()), twobody::within_eps_fn<float>{eps * eps});
  auto const ref_self = brute_within<3>(a, nullptr, eps, twobody::pair_mode::self);
  ASSERT_GT(ref_self.size(), 100u);
  EXPECT_EQ(as_pairs(self), ref_self);  // cpu::join keeps (i, j) order

  auto const cross = twobody::cpu::join(twobody::cross_pairs(a.view(), b.view()), twobody::within_eps_fn<float>{eps * eps});
  EXPECT_EQ(as_pairs(cross), brute_within<3>(a, &b, eps, twobody::pair_mode::cross));

  auto const ordered =
    twobody::cpu::join(twobody::ordered_pairs(a.view()), twobody::within_eps_fn<float>{eps * eps});
  EXPECT_EQ(as_pairs(ordered), brute_within<3>(a, nullptr, eps, twobody::pair_mode::ordered));
  EXPECT_EQ(ordered.size(), 2 * self.size());
}

TEST(CpuJoin, RecordsWithValuesAndCustomRecords)
{
  tbt::host_points<float, 2> a(300, 5, 16);
  twobody::emit_pairs_within<twobody::euclidean, float> const e{twobody::euclidean{}, 3.f};
  auto const v = twobody::cpu::join(twobody::self_pairs(a.view()), e);
  ASSERT_FALSE(v.empty());
  for (auto const& r : v) {
    double const dx = a.c[0][r.i] - a.c[0][r.j], dy = a.c[1][r.i] - a.c[1][r.j];
    EXPECT_FLOAT_EQ(r.value, float(std::sqrt(dx * dx + dy * dy)));
    EXPECT_LE(r.value, 3.f);
    EXPECT_LT(r.i, r.j);
  }
  struct rec {
    std::uint32_t i, j;
    float dx;
  };
  struct make {
    __host__ __device__ rec operator()(twobody::point<float, 2> const& p, twobody::point<float, 2> const& q,
                                       twobody::size_type i, twobody::size_type j) const
    {
      return {std::uint32_t(i), std::uint32_t(j), q[0] - p[0]};
    }
  };
  auto const custom = twobody::cpu::join(twobody::self_pairs(a.view()),
                                         twobody::emit_if<rec>(twobody::within_eps_fn<float>{9.f}, make{}));
  ASSERT_EQ(custom.size(), v.size());
  for (std::size_t k = 0; k < v.size(); ++k) {
    EXPECT_EQ(custom[k].i, v[k].i);
    EXPECT_EQ(custom[k].dx, a.c[0][v[k].j] - a.c[0][v[k].i]);
  }
}

TEST(CpuJoin, ThetaAndBandJoinOnIntegerTables)
{
  // Two tables with integer keys (k1, k2): a.k1 < b.k1 && |a.k2 - b.k2| <= 3.
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> k(0, 99);
  std::vector<int> a1(400), a2(400), b1(350), b2(350);
  for (auto* v : {&a1, &a2, &b1, &b2}) {
    for (auto& x : *v) { x = k(rng); }
  }
  auto A = twobody::make_points(400, a1.data(), a2.data());
  auto B = twobody::make_points(350, b1.data(), b2.data());
  struct less_k1 {
    __host__ __device__ bool operator()(twobody::point<int, 2> const& a, twobody::point<int, 2> const& b) const
    {
      return a[0] < b[0];
    }
  };
  auto const theta = twobody::cpu::join(twobody::cross_pairs(A, B),
                                        twobody::all_of(less_k1{}, twobody::band_fn<int>{1, -3, 3}));
  pair_list ref;
  for (int i = 0; i < 400; ++i) {
    for (int j = 0; j < 350; ++j) {
      if (a1[i] < b1[j] && std::abs(a2[i] - b2[j]) <= 3) { ref.emplace_back(i, j); }
    }
  }
  ASSERT_GT(ref.size(), 100u);
  EXPECT_EQ(as_pairs(theta), ref);

  auto const band = twobody::cpu::join(twobody::cross_pairs(A, B), twobody::band_fn<int>{0, 2, 5});
  pair_list ref_band;
  for (int i = 0; i < 400; ++i) {
    for (int j = 0; j < 350; ++j) {
      if (b1[j] - a1[i] >= 2 && b1[j] - a1[i] <= 5) { ref_band.emplace_back(i, j); }
    }
  }
  EXPECT_EQ(as_pairs(band), ref_band);
}

TEST(CpuJoin, EmptyAndAllPairs)
{
  tbt::host_points<float, 3> a(200, 2);
  auto none = twobody::cpu::join(twobody::self_pairs(a.view()), tbt::never{});
  EXPECT_TRUE(none.empty());
  auto all = twobody::cpu::join(twobody::self_pairs(a.view()), tbt::always{});
  EXPECT_EQ(all.size(), 200u * 199u / 2u);
  twobody::points<float, 3> empty;
  EXPECT_TRUE(twobody::cpu::join(twobody::self_pairs(empty), twobody::within_eps_fn<float>{1.f}).empty());
  EXPECT_TRUE(twobody::cpu::join(twobody::cross_pairs(a.view(), empty), twobody::within_eps_fn<float>{1.f}).empty());
}

TEST(JoinRounds, NextRoundKeepsEveryUnitOnce)
{
  using v = std::vector<unsigned long long>;
  // First round over [0, 100): 40 handed out, units 7 and 31 rolled back.
  auto r = twobody::detail::next_round({}, 0, 100, 40, {31, 7});
  EXPECT_EQ(r.redo, (v{31, 7}));
  EXPECT_EQ(r.range_begin, 40u);
  EXPECT_EQ(r.range_end, 100u);
  EXPECT_EQ(r.count(), 62u);
  // Second round: redo list {31, 7} then [40, 100); only 1 handed out and it failed.
  auto r2 = twobody::detail::next_round(r.redo, r.range_begin, r.range_end, 1, {31});
  EXPECT_EQ(r2.redo, (v{31, 7}));
  EXPECT_EQ(r2.range_begin, 40u);
  // Counter ran past the end (blocks draw after the last unit): capped by the caller; all done.
  auto r3 = twobody::detail::next_round(r.redo, r.range_begin, r.range_end, 62, {});
  EXPECT_EQ(r3.count(), 0u);
  // Simulated rounds over random failures: every unit done exactly once.
  std::mt19937 rng(9);
  std::vector<int> done(1000, 0);
  twobody::detail::remaining_work w{{}, 0, 1000};
  for (int round = 0; round < 10000 && w.count() != 0; ++round) {
    unsigned long long const handed =
      std::uniform_int_distribution<unsigned long long>(1, std::min<unsigned long long>(w.count(), 50))(rng);
    std::vector<unsigned long long> failed;
    for (unsigned long long k = 0; k < handed; ++k) {
      unsigned long long const unit = k < w.redo.size() ? w.redo[k] : w.range_begin + (k - w.redo.size());
      if (rng() % 4 == 0) {
        failed.push_back(unit);
      } else {
        ++done[unit];
      }
    }
    w = twobody::detail::next_round(w.redo, w.range_begin, w.range_end, handed, failed);
  }
  EXPECT_EQ(w.count(), 0u);
  EXPECT_TRUE(std::all_of(done.begin(), done.end(), [](int d) { return d == 1; }));
}

TEST(JoinRounds, EstimateAndPoolArithmetic)
{
  using twobody::detail::estimate_results_high;
  EXPECT_EQ(estimate_results_high(0, 0, 1e6), 0.0);
  double const none = estimate_results_high(0, 1000, 1e6);
  EXPECT_GT(none, 0.0);  // never zero: a few pages are always worth having
  EXPECT_GE(estimate_results_high(100, 1000, 1e6), 100.0 / 1000 * 1e6);
  EXPECT_LE(estimate_results_high(1000, 1000, 1e6), 1e6);  // never more than all pairs
  EXPECT_DOUBLE_EQ(twobody::detail::pool_bytes_per_record(8, 4, false), 12.0);
  EXPECT_DOUBLE_EQ(twobody::detail::pool_bytes_per_record(8, 4, true), 20.0);
}

TEST(JoinArguments, BadInputIsAnError)
{
  tbt::host_points<float, 3> a(100, 1);
  auto const pairs = twobody::self_pairs(a.view());
  EXPECT_THROW(twobody::pairs_within(pairs, std::numeric_limits<float>::quiet_NaN()), twobody::error);
  EXPECT_THROW(twobody::pairs_within(pairs, -1.f), twobody::error);
  EXPECT_THROW(twobody::band_join(pairs, 0, 2.f, 1.f), twobody::error);
  EXPECT_THROW(twobody::band_join(pairs, 3, 0.f, 1.f), twobody::error);
  twobody::join_options tiny;
  tiny.pool_records = 3;  // less than one page of 4 records
  EXPECT_THROW(twobody::pairs_within(pairs, 1.f, tiny), twobody::error);
  twobody::join_options small;
  small.device_memory_budget = 16;  // less than one page (4 x 8 bytes + bookkeeping)
  EXPECT_THROW(twobody::pairs_within(pairs, 1.f, small), twobody::error);
}
