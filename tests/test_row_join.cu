// Joins and per-point sums of high-dimensional rows on the CPU backend (runs everywhere):
// against independent references (plain double sums, exact on integer rows), with thresholds
// on the most common value and one ulp either side, NaN rows and the bad-input rules.
#include "common.cuh"
#include "rows_data.cuh"

#include <twobody/twobody.cuh>

#include <gtest/gtest.h>

#include <cmath>

using namespace twobody;
using K = detail::row_metric_kind;

namespace {

template <class T>
void joins_against_reference(pair_mode mode, tbt::host_rows<T> const& a, tbt::host_rows<T> const& b)
{
  auto const pairs = mode == pair_mode::cross ? cross_pairs(a.view(), b.view())
                     : mode == pair_mode::self ? self_pairs(a.view())
                                                : ordered_pairs(a.view());
  auto exact = [](std::uint32_t, std::uint32_t, float) { return 0.0; };
  for (int shift = -1; shift <= 1; ++shift) {
    auto at = [&](K m) {
      float const v = tbt::most_common_value(m, a);
      return shift == 0 ? v : std::nextafter(v, shift < 0 ? -INFINITY : INFINITY);
    };
    std::string const where = std::string(to_string(mode)) + " shift " + std::to_string(shift);
    float const t_sq = at(K::squared_euclidean), t_e = at(K::euclidean), t_dot = at(K::dot_product), t_cos = at(K::cosine_similarity);
    tbt::expect_same_records(join(exec::cpu, pairs, closer_than(squared_euclidean{}, t_sq)).to_host(),
                             tbt::reference_join(mode, K::squared_euclidean, a, b, [&](float v) { return v < t_sq; }),
                             "squared_euclidean " + where, exact);
    tbt::expect_same_records(pairs_within(exec::cpu, pairs, t_e).to_host(),
                             tbt::reference_join(mode, K::euclidean, a, b, [&](float v) { return v <= t_e; }),
                             "pairs_within " + where, exact);
    tbt::expect_same_records(join(exec::cpu, pairs, at_least(dot_product{}, t_dot)).to_host(),
                             tbt::reference_join(mode, K::dot_product, a, b, [&](float v) { return v >= t_dot; }),
                             "dot_product " + where, exact);
    tbt::expect_same_records(join(exec::cpu, pairs, at_least(cosine_similarity{}, t_cos)).to_host(),
                             tbt::reference_join(mode, K::cosine_similarity, a, b, [&](float v) { return v >= t_cos; }),
                             "cosine_similarity " + where, exact);
  }
}

/// Gaussian and inverse-quadratic sums of every point by plain double sums of the reference values.
template <class T>
void sums_against_reference(pair_mode mode, tbt::host_rows<T> const& a, tbt::host_rows<T> const& b)
{
  auto const pairs = mode == pair_mode::cross ? cross_pairs(a.view(), b.view()) : ordered_pairs(a.view());
  float const h    = 3.0f;
  auto const gauss = sum_per_point(exec::cpu, pairs, gaussian_kernel(h));
  auto const inv   = sum_per_point(exec::cpu, pairs, function_of(euclidean{}, tbt::inverse_quadratic{}));
  ASSERT_EQ(gauss.size(), static_cast<std::size_t>(a.n));
  ASSERT_EQ(inv.size(), static_cast<std::size_t>(a.n));
  std::vector<double> want_g(static_cast<std::size_t>(a.n)), want_i(static_cast<std::size_t>(a.n)), tol_g(want_g.size());
  tbt::for_each_pair(mode, a.n, mode == pair_mode::cross ? b.n : a.n, [&](std::int64_t i, std::int64_t j) {
    auto const& other = mode == pair_mode::cross ? b : a;
    double const d2   = tbt::reference_value(K::squared_euclidean, a, i, other, j);
    double const g = std::exp(-d2 / (2.0 * h * h));
    want_g[static_cast<std::size_t>(i)] += g;
    // The exponent d2 * k (k = -log2(e) / (2 h^2) rounded to float) errs by 2 roundings of
    // its size, exp2f by 2 ulp.
    tol_g[static_cast<std::size_t>(i)] += g * (3e-7 + 1.5e-7 * d2 / (2.0 * h * h));
    want_i[static_cast<std::size_t>(i)] += 1.0 / (1.0 + tbt::reference_value(K::euclidean, a, i, other, j));
  });
  for (std::size_t i = 0; i < want_g.size(); ++i) {
    EXPECT_NEAR(gauss[i], want_g[i], tol_g[i]) << "gaussian point " << i << " " << to_string(mode);
    EXPECT_NEAR(inv[i], want_i[i], 2e-7 * want_i[i]) << "inverse quadratic point " << i << " " << to_string(mode);
  }
}

}  // namespace

TEST(RowJoin, CpuJoinsEqualPlainSumsOnTies)
{
  for (int dims : {1, 7, 37}) {
    tbt::host_rows<float> const a(90, dims, 300 + dims), b(71, dims, 400 + dims);
    joins_against_reference(pair_mode::self, a, b);
    joins_against_reference(pair_mode::ordered, a, b);
    joins_against_reference(pair_mode::cross, a, b);
    tbt::host_rows<__half> const ha(90, dims, 500 + dims), hb(71, dims, 600 + dims);
    joins_against_reference(pair_mode::self, ha, hb);
    joins_against_reference(pair_mode::cross, ha, hb);
    tbt::host_rows<__nv_bfloat16> const ba(90, dims, 700 + dims);
    joins_against_reference(pair_mode::self, ba, ba);
  }
}

TEST(RowJoin, PairsWithinIncludesTheEdgeAndJoinEachDeliversTheSame)
{
  tbt::host_rows<float> const a(120, 16, 11);
  float const eps = tbt::most_common_value(K::squared_euclidean, a);
  auto const within = pairs_within(exec::cpu, self_pairs(a.view()), eps, squared_euclidean{}).to_host();
  auto const below  = join(exec::cpu, self_pairs(a.view()), closer_than(squared_euclidean{}, eps)).to_host();
  std::size_t on_edge = 0;
  for (auto const& r : within) {
    EXPECT_LE(r.value, eps);
    on_edge += r.value == eps ? 1 : 0;
  }
  EXPECT_GT(on_edge, 10u);  // the most common value: many pairs sit exactly on eps
  EXPECT_EQ(within.size(), below.size() + on_edge);

  std::vector<index_pair_value<float>> streamed;
  int calls = 0;
  auto const st = join_each(exec::cpu, self_pairs(a.view()), detail::at_most(squared_euclidean{}, eps),
                            [&](index_pair_value<float> const* r, std::size_t n) {
                              ++calls;
                              streamed.insert(streamed.end(), r, r + n);
                            });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(st.results, within.size());
  tbt::expect_same_records(streamed, within, "join_each", [](std::uint32_t, std::uint32_t, float) { return 0.0; });
}

TEST(RowJoin, CpuKernelSumsEqualPlainSums)
{
  for (int dims : {1, 9, 64}) {
    tbt::host_rows<float> const a(70, dims, 800 + dims), b(45, dims, 900 + dims);
    sums_against_reference(pair_mode::ordered, a, b);
    sums_against_reference(pair_mode::cross, a, b);
    tbt::host_rows<__half> const ha(70, dims, 810 + dims), hb(45, dims, 910 + dims);
    sums_against_reference(pair_mode::cross, ha, hb);
    tbt::host_rows<__nv_bfloat16> const ba(70, dims, 820 + dims);
    sums_against_reference(pair_mode::ordered, ba, ba);
  }
}

TEST(RowJoin, NaNRowsNeverJoinAndMakeTheirSumsNaN)
{
  tbt::host_rows<float> a(40, 8, 5), b(30, 8, 6);
  a.data[3 * 8 + 2] = NAN;
  auto const j = join(exec::cpu, cross_pairs(a.view(), b.view()), closer_than(squared_euclidean{}, 1e30f)).to_host();
  EXPECT_EQ(j.size(), std::size_t(39 * 30));
  for (auto const& r : j) { EXPECT_NE(r.i, 3u); }
  auto const cross = sum_per_point(exec::cpu, cross_pairs(a.view(), b.view()), gaussian_kernel(2.0f));
  for (std::size_t i = 0; i < cross.size(); ++i) { EXPECT_EQ(std::isnan(cross[i]), i == 3) << i; }
  auto const ordered = sum_per_point(exec::cpu, ordered_pairs(a.view()), gaussian_kernel(2.0f));
  for (double s : ordered) { EXPECT_TRUE(std::isnan(s)); }  // every point has the NaN row as a partner
}

TEST(RowJoin, BadInputIsRefusedWithAClearError)
{
  tbt::host_rows<float> const a(10, 4, 1);
  auto const pairs = self_pairs(a.view());
  tbt::expect_error([&] { (void)pairs_within(exec::cpu, pairs, -1.0f); }, "eps must be >= 0");
  tbt::expect_error([&] { (void)pairs_within(exec::cpu, pairs, NAN); }, "eps must be finite");
  tbt::expect_error([&] { (void)pairs_within(exec::cpu, pairs, INFINITY); }, "eps must be finite");
  tbt::expect_error([&] { (void)join(exec::cpu, pairs, closer_than(euclidean{}, NAN)); }, "threshold is NaN");
  tbt::expect_error([&] { (void)sum_per_point(exec::cpu, pairs, gaussian_kernel(1.0f)); }, "self pairs visit each pair once");
  tbt::expect_error([&] { (void)sum_per_point(exec::cpu, pairs, gaussian_kernel(0.0f)); }, "h must be finite and > 0");
  auto bad = a.view();
  bad.dims = 0;
  tbt::expect_error([&] { (void)join(exec::cpu, self_pairs(bad), closer_than(euclidean{}, 1.0f)); }, "at least one dimension");
  tbt::expect_error([&] { (void)sum_per_point(exec::cpu, ordered_pairs(bad), gaussian_kernel(1.0f)); }, "at least one dimension");
  // Empty sets: no records, no sums.
  tbt::host_rows<float> const none(0, 4, 2);
  EXPECT_EQ(join(exec::cpu, self_pairs(none.view()), closer_than(euclidean{}, 1.0f)).size(), 0u);
  EXPECT_TRUE(sum_per_point(exec::cpu, ordered_pairs(none.view()), gaussian_kernel(1.0f)).empty());
  auto const lone = sum_per_point(exec::cpu, cross_pairs(a.view(), none.view()), gaussian_kernel(1.0f));
  EXPECT_EQ(lone, std::vector<double>(10, 0.0));
}
