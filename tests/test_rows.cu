// High-dimensional rows on the CPU backend (runs everywhere): the exact evaluation's values,
// counts and histograms against plain double sums, the bad-input rules.
#include "rows_data.cuh"

#include <twobody/twobody.cuh>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

using namespace twobody;
using K = detail::row_metric_kind;

TEST(Rows, ExactEvaluationMatchesHandComputedValues)
{
  // a = (1, 2, 2), b = (2, 0, 1): |a - b|^2 = 1 + 4 + 1 = 6, a.b = 4, |a| = 3, |b| = sqrt(5).
  float const a[3] = {1, 2, 2}, b[3] = {2, 0, 1};
  double const sq = detail::exact_sum_host(a, b, 3, false), dot = detail::exact_sum_host(a, b, 3, true);
  double const na = detail::exact_sum_host(a, a, 3, true), nb = detail::exact_sum_host(b, b, 3, true);
  EXPECT_EQ(sq, 6.0);
  EXPECT_EQ(dot, 4.0);
  EXPECT_EQ(detail::metric_from_sum(K::euclidean, sq, na, nb), static_cast<float>(std::sqrt(6.0)));
  EXPECT_EQ(detail::metric_from_sum(K::cosine_similarity, dot, na, nb), static_cast<float>(4.0 / std::sqrt(45.0)));
  EXPECT_EQ(detail::metric_from_sum(K::cosine_distance, dot, na, nb), static_cast<float>(1.0 - 4.0 / std::sqrt(45.0)));
}

TEST(Rows, ExactEvaluationOrderIsTheWarpsOnLongRows)
{
  // Terms that do not add exactly in double: the lane-strided order with a butterfly gives a
  // result a sequential sum need not, and the host must reproduce the warp's exactly.
  std::vector<float> a(1000), b(1000, 0.f);
  for (int k = 0; k < 1000; ++k) { a[k] = k % 7 == 0 ? 1e8f : 1.0f / static_cast<float>(k + 3); }
  double lanes[32];
  for (int l = 0; l < 32; ++l) { lanes[l] = detail::lane_partial(a.data(), b.data(), 1000, l, false); }
  for (int o = 16; o >= 1; o /= 2) {
    double next[32];
    for (int l = 0; l < 32; ++l) { next[l] = lanes[l] + lanes[l ^ o]; }
    std::copy(next, next + 32, lanes);
  }
  EXPECT_EQ(detail::exact_sum_host(a.data(), b.data(), 1000, false), lanes[0]);
  for (int l = 1; l < 32; ++l) { EXPECT_EQ(lanes[l], lanes[0]) << "every lane of the butterfly ends with the same sum"; }
}

// closer_than(euclidean, t) on the GPU decides on squared values (squared_below_threshold): a
// squared value x = float(S) below `pass` must give float(sqrt(S)) < t, one at or above `fail`
// float(sqrt(S)) >= t, for every S that rounds to x; and the band between them stays a few ulps.
TEST(Rows, SquaredThresholdDecidesLikeTheEuclideanValue)
{
  std::vector<float> ts = {1.0f, 2.0f, 0.5f, 3.0f, 1e-3f, 1e3f, 7.3e-15f, 1.7e15f, std::nextafter(1.0f, 2.0f), std::nextafter(2.0f, 0.0f)};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> e(-20.0f, 20.0f);
  for (int k = 0; k < 200; ++k) { ts.push_back(std::exp2(e(rng))); }
  for (float t : ts) {
    auto const rule = detail::squared_below_threshold::of(t);
    float const t2  = static_cast<float>(static_cast<double>(t) * t);
    EXPECT_LE(rule.pass, rule.fail);
    for (float edge : {rule.pass, rule.fail}) {
      float x = edge;
      for (int u = 0; u < 16; ++u) { x = std::nextafter(x, 0.0f); }
      for (int u = 0; u < 32; ++u, x = std::nextafter(x, INFINITY)) {
        double const lo = (static_cast<double>(std::nextafter(x, 0.0f)) + x) / 2, hi = (static_cast<double>(std::nextafter(x, INFINITY)) + x) / 2;
        for (double S : {lo, static_cast<double>(x), hi}) {
          float const v = detail::metric_from_sum(K::euclidean, S, 0, 0);
          if (x < rule.pass || x >= rule.fail) {  // certain on the GPU, whose outward rounding of [x - 0, x + 0] is exact
            ASSERT_EQ(rule(x), v < t) << "t=" << t << " x=" << x << " S=" << S;
          }
          ASSERT_EQ(rule(rule.surrogate(v)), v < t);
        }
      }
    }
    // Not more than a few ulps of t^2 are left to the exact recomputation.
    int band = 0;
    for (float x = rule.pass; x < rule.fail && band < 100; x = std::nextafter(x, INFINITY)) { ++band; }
    EXPECT_LE(band, 8) << "t=" << t << " t^2=" << t2;
  }
  // t = +inf: every finite squared value is certainly below, none certainly not.
  auto const all = detail::squared_below_threshold::of(std::numeric_limits<float>::infinity());
  EXPECT_TRUE(all.certain(std::numeric_limits<float>::max() / 2, 0.0f) && all(std::numeric_limits<float>::max() / 2));
  EXPECT_TRUE(all(all.surrogate(std::numeric_limits<float>::max())));
  EXPECT_FALSE(all(all.surrogate(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_FALSE(detail::squared_below_threshold::of(1.0f)(std::numeric_limits<float>::quiet_NaN()));
  EXPECT_FALSE(detail::squared_below_threshold::of(1.0f).certain(std::numeric_limits<float>::quiet_NaN(), 0.0f));
}

// The squared rule's certain() takes no finiteness guard (row_rules.cuh): wherever the margin
// holds 2^-22 |s|, as the squared margin does, or is NaN, a certain pair's whole interval
// [s - m, s + m] lies below `pass` or at or above `fail`, and with finite ends the test agrees with
// the guarded one.
TEST(Rows, SquaredRuleIsCertainOnlyWhereTheWholeIntervalDecides)
{
  float const inf = std::numeric_limits<float>::infinity(), big = std::numeric_limits<float>::max();
  float const nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> const ss = {0.0f, 1e-30f, 0.25f, 0.999f, 1.0f, 1.001f, 4.0f, 1e19f, 1e38f, big / 2, big, inf, -inf, nan, -1.0f};
  std::vector<float> const ms = {0.0f, 1e-30f, 1e-6f, 0.01f, 1.0f, 1e38f, big, inf, nan};
  int decided = 0;
  for (float t : {1.0f, 2.0f, 1e9f, 1.8e19f, inf}) {
    auto const rule = detail::squared_below_threshold::of(t);
    for (float s : ss) {
      for (float m : ms) {
        if (!(std::isnan(m) || m >= 0x1p-22f * std::fabs(s))) { continue; }  // not a margin row_margin gives
        bool const certain = rule.certain(s, m);
        float lo, hi;
        bool const finite = detail::outward_interval(s, m, lo, hi);
        if (finite) { EXPECT_EQ(certain, (hi < rule.pass) || (lo >= rule.fail)) << "t=" << t << " s=" << s << " m=" << m; }
        if (!certain) { continue; }
        ++decided;
        ASSERT_FALSE(std::isnan(s) || std::isnan(m)) << "t=" << t << " s=" << s << " m=" << m;
        double const a = static_cast<double>(s) - m, b = static_cast<double>(s) + m;  // exact in double
        EXPECT_TRUE(b < rule.pass || a >= rule.fail) << "t=" << t << " s=" << s << " m=" << m;
      }
    }
  }
  EXPECT_GT(decided, 40);
}

template <class T>
class RowsCpu : public ::testing::Test {};
using RowTypes = ::testing::Types<float, __half, __nv_bfloat16, double>;
TYPED_TEST_SUITE(RowsCpu, RowTypes);

TYPED_TEST(RowsCpu, CountsEqualPlainSumsOnEveryMetricAndMode)
{
  using T = TypeParam;
  tbt::host_rows<T> const a(150, 37, 11, 2, 40), b(90, 37, 12);
  struct Case {
    K metric;
    bool at_least;
  };
  for (Case c : {Case{K::squared_euclidean, false}, Case{K::euclidean, false}, Case{K::dot_product, true},
                 Case{K::cosine_similarity, true}, Case{K::cosine_distance, false}}) {
    float const t = tbt::most_common_value(c.metric, a);
    for (pair_mode mode : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
      auto const& other = mode == pair_mode::cross ? b : a;
      unsigned long long expected = 0;
      tbt::for_each_pair(mode, a.n, other.n, [&](std::int64_t i, std::int64_t j) {
        float const v = tbt::reference_value(c.metric, a, i, other, j);
        expected += c.at_least ? (v >= t) : (v < t);
      });
      pair_set<rows<T>> const pairs{mode, a.view(), other.view()};
      unsigned long long got = 0;
      switch (c.metric) {
        case K::squared_euclidean: got = count_pairs(exec::cpu, pairs, closer_than(squared_euclidean{}, t)); break;
        case K::euclidean: got = count_pairs(exec::cpu, pairs, closer_than(euclidean{}, t)); break;
        case K::dot_product: got = count_pairs(exec::cpu, pairs, at_least(dot_product{}, t)); break;
        case K::cosine_similarity: got = count_pairs(exec::cpu, pairs, at_least(cosine_similarity{}, t)); break;
        case K::cosine_distance: got = count_pairs(exec::cpu, pairs, closer_than(cosine_distance{}, t)); break;
      }
      EXPECT_EQ(got, expected) << "metric " << int(c.metric) << " mode " << to_string(mode) << " t " << t;
      EXPECT_GT(expected, 0u);
    }
  }
}

TYPED_TEST(RowsCpu, HistogramsEqualPlainSums)
{
  using T = TypeParam;
  tbt::host_rows<T> const a(120, 20, 5);
  // Edges at whole numbers: the squared distances are integers, so many pairs sit on edges.
  uniform_bins<float> const bins(0.f, 64.f, 32);
  std::vector<unsigned long long> expected(33, 0);
  tbt::for_each_pair(pair_mode::self, a.n, a.n, [&](std::int64_t i, std::int64_t j) {
    ++expected[static_cast<std::size_t>(bins(tbt::reference_value(K::squared_euclidean, a, i, a, j)))];
  });
  auto const h = histogram(exec::cpu, self_pairs(a.view()), squared_euclidean{}, bins);
  ASSERT_EQ(h.counts.size(), 32u);
  for (int k = 0; k < 32; ++k) { EXPECT_EQ(h.counts[k], expected[k]) << "bin " << k; }
  EXPECT_EQ(h.outside, expected[32]);
  EXPECT_EQ(h.pairs, 120u * 119u / 2u);
}

// Double rows are evaluated in double (row_exact.cuh), not rounded to float first: coordinates
// 2^-40 apart, which float cannot tell apart, give the squared distance 2^-80 and the cosine just
// below 1.
TEST(Rows, DoubleRowsKeepDifferencesFloatCannotHold)
{
  std::vector<double> const x{1.0, 3.0, 1.0 + 0x1p-40, 3.0};
  auto const r = make_rows(2, 2, x.data());
  EXPECT_EQ(static_cast<float>(x[0]), static_cast<float>(x[2]));
  EXPECT_EQ(count_pairs(exec::cpu, self_pairs(r), closer_than(squared_euclidean{}, 0x1p-79f)), 1u);
  EXPECT_EQ(count_pairs(exec::cpu, self_pairs(r), closer_than(squared_euclidean{}, 0x1p-80f)), 0u);  // the value is 2^-80, not below it
  EXPECT_EQ(count_pairs(exec::cpu, self_pairs(r), closer_than(euclidean{}, 0x1p-40f)), 0u);
  EXPECT_EQ(count_pairs(exec::cpu, self_pairs(r), closer_than(euclidean{}, std::nextafter(0x1p-40f, 1.f))), 1u);
  auto const h = histogram(exec::cpu, self_pairs(r), squared_euclidean{}, uniform_bins<float>(0.f, 0x1p-78f, 4));
  EXPECT_EQ(h.counts, (std::vector<unsigned long long>{0, 1, 0, 0}));  // bins of width 2^-80: [2^-80, 2^-79)
}

TEST(Rows, WeightedCountsAddProductsOfWeights)
{
  tbt::host_rows<float> const a(80, 9, 3);
  double expected = 0;
  tbt::for_each_pair(pair_mode::self, a.n, a.n, [&](std::int64_t i, std::int64_t j) {
    if (tbt::reference_value(K::squared_euclidean, a, i, a, j) < 12.f) { expected += double(a.w[i]) * a.w[j]; }
  });
  EXPECT_EQ(count_pairs(exec::cpu, self_pairs(a.weighted()), within_radius(std::sqrt(12.f))), expected);
  EXPECT_GT(expected, 0.0);
}

TEST(Rows, NaNRowsNeverCountAndLandOutside)
{
  tbt::host_rows<float> a(40, 5, 8);
  a.data[3 * 5 + 2] = NAN;  // row 3
  auto const all = count_pairs(exec::cpu, self_pairs(a.view()), closer_than(euclidean{}, 1e30f));
  EXPECT_EQ(all, 40u * 39u / 2u - 39u);
  auto const far = count_pairs(exec::cpu, self_pairs(a.view()), at_least(euclidean{}, -1.f));
  EXPECT_EQ(far, 40u * 39u / 2u - 39u);
  auto const h = histogram(exec::cpu, self_pairs(a.view()), euclidean{}, uniform_bins<float>(0.f, 1e6f, 4));
  EXPECT_EQ(h.outside, 39u);
}

TEST(Rows, EmptyAndSinglePointSetsHaveNoPairs)
{
  tbt::host_rows<float> const one(1, 4, 1);
  EXPECT_EQ(count_pairs(exec::cpu, self_pairs(one.view()), closer_than(euclidean{}, 10.f)), 0u);
  auto const empty = make_rows<float>(0, 4, nullptr);
  EXPECT_EQ(count_pairs(exec::cpu, cross_pairs(empty, one.view()), closer_than(euclidean{}, 10.f)), 0u);
  auto const h = histogram(exec::cpu, self_pairs(empty), euclidean{}, uniform_bins<float>(0.f, 1.f, 4));
  EXPECT_EQ(h.pairs, 0u);
  EXPECT_EQ(h.outside, 0u);
}

TEST(Rows, BadInputIsRefusedWithAClearError)
{
  tbt::host_rows<float> const a(10, 4, 1);
  auto const pred = closer_than(euclidean{}, 1.f);
  tbt::expect_error([&] { count_pairs(exec::cpu, self_pairs(make_rows(10, 0, a.data.data())), pred); }, "dims >= 1");
  tbt::expect_error([&] { count_pairs(exec::cpu, self_pairs(make_rows(10, 4, a.data.data(), 3)), pred); }, "leading dimension");
  tbt::expect_error([&] { count_pairs(exec::cpu, self_pairs(make_rows<float>(10, 4, nullptr)), pred); }, "is null");
  tbt::expect_error([&] { count_pairs(exec::cpu, self_pairs(make_rows(size_type(1) << 31, 4, a.data.data())), pred); }, "2^31");
  tbt::expect_error([&] { count_pairs(exec::cpu, cross_pairs(a.view(), make_rows(10, 5, a.data.data())), pred); }, "same dims");
  tbt::expect_error([&] { count_pairs(exec::cpu, self_pairs(a.view()), closer_than(euclidean{}, NAN)); }, "NaN");
  tbt::expect_error([&] { count_pairs(exec::cpu, self_pairs(make_weighted_rows<float>(10, 4, a.data.data(), nullptr)), pred); },
               "weights");
  tbt::expect_error([&] { histogram(exec::cpu, self_pairs(a.view()), euclidean{}, uniform_bins<float>(0.f, 1.f, 0)); }, "bin");
}
