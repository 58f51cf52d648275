// Estimators on the host: g(r), xi(r) (natural and Landy-Szalay) and w_p(r_p) against
// hand-computed values, and g(r) of a simple cubic lattice through the CPU backend, whose
// shell counts are known exactly (bin edges halfway between the lattice distances).
#include <twobody/estimators.cuh>
#include <twobody/twobody.cuh>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace twobody;

namespace {

template <class Count>
histogram_result<Count> hist(std::vector<Count> counts)
{
  histogram_result<Count> h;
  h.counts = std::move(counts);
  return h;
}

double const pi = 3.14159265358979323846;

}  // namespace

TEST(Estimators, VolumesAndPairTotals)
{
  EXPECT_DOUBLE_EQ(ball_volume(1, 3.0), 6.0);
  EXPECT_NEAR(ball_volume(2, 2.0), 4.0 * pi, 1e-12);
  EXPECT_NEAR(ball_volume(3, 1.0), 4.0 / 3.0 * pi, 1e-12);
  EXPECT_NEAR(shell_volume(3, 2.0, 3.0), 4.0 / 3.0 * pi * 19.0, 1e-12);
  EXPECT_DOUBLE_EQ(self_pair_total(10), 45.0);
  EXPECT_DOUBLE_EQ(self_pair_total(1), 0.0);
  EXPECT_DOUBLE_EQ(self_pair_total(std::vector<double>{1, 2, 3}), 11.0);  // 1*2 + 1*3 + 2*3
  EXPECT_DOUBLE_EQ(cross_pair_total(3, 4), 12.0);
  EXPECT_DOUBLE_EQ(cross_pair_total(std::vector<double>{1, 2}, std::vector<double>{3}), 9.0);
  EXPECT_THROW(ball_volume(0, 1.0), error);
  EXPECT_THROW(self_pair_total(-1), error);
}

TEST(Estimators, RadialDistributionByHand)
{
  // 10 points in a 10^3 box: 45 pairs; shell [0, 1) holds 45 * (4/3 pi) / 1000 pairs of an ideal gas.
  distance_bins<double> const bins(5.0, 5);
  auto const g = radial_distribution(hist<unsigned long long>({1, 0, 7, 0, 0}), bins, {10, 10, 10}, 10);
  ASSERT_EQ(g.size(), 5u);
  EXPECT_NEAR(g[0], 5.305164769729845, 1e-12);
  EXPECT_DOUBLE_EQ(g[1], 0.0);
  EXPECT_NEAR(g[2], 1.9545343888478377, 1e-12);
  // Cross species: 3 x 4 pairs; 2 pairs in [1, 2).
  auto const gab = radial_distribution(hist<unsigned long long>({0, 2, 0, 0, 0}), bins, {10, 10, 10}, 3, 4);
  EXPECT_NEAR(gab[1], 5.6841051104248335, 1e-12);
  // 2-D: shells are annuli.
  auto const g2 = radial_distribution(hist<double>({1.0, 0, 0, 0, 0}), bins, {10, 10}, 2);
  EXPECT_NEAR(g2[0], 100.0 / pi, 1e-12);
  // Shells past half the shortest side are incomplete under the minimum image; sizes must match.
  EXPECT_THROW(radial_distribution(hist<unsigned long long>({0, 0, 0, 0, 0}), bins, {10, 10, 8}, 10), error);
  EXPECT_THROW(radial_distribution(hist<unsigned long long>({0, 0}), bins, {10, 10, 10}, 10), error);
  EXPECT_THROW(radial_distribution(hist<unsigned long long>({0, 0, 0, 0, 0}), bins, {10, 10, 10}, 1), error);
}

TEST(Estimators, RadialDistributionOfASimpleCubicLattice)
{
  // 10^3 points of spacing 1 in a periodic 10^3 box. Each point has 6 neighbours at 1, 12 at
  // sqrt 2, 8 at sqrt 3 and 6 at 2: 3000, 6000, 4000 and 3000 unordered pairs. Bins of width
  // 0.1 from 0.05 put every lattice distance 0.05 or more from an edge.
  int const side = 10;
  std::vector<double> x, y, z;
  for (int i = 0; i < side; ++i) {
    for (int j = 0; j < side; ++j) {
      for (int k = 0; k < side; ++k) {
        x.push_back(i);
        y.push_back(j);
        z.push_back(k);
      }
    }
  }
  auto const p = make_points(static_cast<long long>(x.size()), x.data(), y.data(), z.data());
  periodic_euclidean<double, 3> dist{};
  for (double& l : dist.box) { l = side; }
  uniform_bins<double> const bins(0.05, 4.95, 49);
  auto const h = histogram(exec::cpu, self_pairs(p), dist, bins);
  auto const g = radial_distribution(h, bins, {10.0, 10.0, 10.0}, 1000);
  auto bin_of = [&](double r) { return static_cast<std::size_t>(bins(r)); };
  EXPECT_EQ(h.counts[bin_of(1.0)], 3000u);
  EXPECT_EQ(h.counts[bin_of(std::sqrt(2.0))], 6000u);
  EXPECT_EQ(h.counts[bin_of(std::sqrt(3.0))], 4000u);
  EXPECT_EQ(h.counts[bin_of(2.0)], 3000u);
  EXPECT_EQ(h.counts[bin_of(0.5)], 0u);
  double const ideal = 499500.0 * shell_volume(3, 0.95, 1.05) / 1000.0;
  EXPECT_NEAR(g[bin_of(1.0)], 3000.0 / ideal, 1e-9);
  EXPECT_DOUBLE_EQ(g[bin_of(0.5)], 0.0);
}

TEST(Estimators, CorrelationFunctionByHand)
{
  // Totals 100 (DD), 150 (DR), 200 (RR): normalized DD {.1, .2}, DR {.1, 2/15}, RR {.1, .1, 0}.
  auto const dd = normalized(hist<unsigned long long>({10, 20, 5}), 100.0);
  auto const dr = normalized(hist<unsigned long long>({15, 20, 7}), 150.0);
  auto const rr = normalized(hist<unsigned long long>({20, 20, 0}), 200.0);
  auto const nat = xi_natural(dd, rr);
  EXPECT_NEAR(nat[0], 0.0, 1e-15);
  EXPECT_NEAR(nat[1], 1.0, 1e-15);
  EXPECT_TRUE(std::isnan(nat[2]));  // no random pairs: no estimate, never a silent 0
  auto const ls = xi_landy_szalay(dd, dr, rr);
  EXPECT_NEAR(ls[0], 0.0, 1e-15);
  EXPECT_NEAR(ls[1], (0.2 - 2.0 * 20.0 / 150.0 + 0.1) / 0.1, 1e-14);
  EXPECT_TRUE(std::isnan(ls[2]));
  // Weighted counts normalise by weighted totals.
  auto const wdd = normalized(hist<double>({5.5}), self_pair_total(std::vector<double>{1, 2, 3}));
  EXPECT_DOUBLE_EQ(wdd[0], 0.5);
  EXPECT_THROW(normalized(hist<unsigned long long>({1}), 0.0), error);
  EXPECT_THROW(xi_natural(dd, std::vector<double>{1.0}), error);
  EXPECT_THROW(xi_landy_szalay(dd, dr, std::vector<double>{1.0}), error);
}

TEST(Estimators, ProjectedCorrelationByHand)
{
  // 2 r_p bins x 3 pi bins of width 1 (pi_max = 3); xi in bins_2d's slot order j * 2 + i.
  auto const bins = make_bins_2d(uniform_bins<double>(0.0, 2.0, 2), uniform_bins<double>(0.0, 3.0, 3));
  std::vector<double> const xi{1, 2, 3, 4, 5, 6};
  auto const wp = projected_correlation(xi, bins);
  ASSERT_EQ(wp.size(), 2u);
  EXPECT_DOUBLE_EQ(wp[0], 2.0 * (1 + 3 + 5));
  EXPECT_DOUBLE_EQ(wp[1], 2.0 * (2 + 4 + 6));
  // Width-weighted for uneven pi bins; NaN (an empty RR bin) propagates to its r_p bin.
  auto const logb = make_bins_2d(uniform_bins<double>(0.0, 1.0, 1), log_bins<double>(1.0, 4.0, 2));  // [1, 2), [2, 4)
  auto const wl   = projected_correlation(std::vector<double>{1.0, 3.0}, logb);
  EXPECT_NEAR(wl[0], 2.0 * (1.0 * 1.0 + 3.0 * 2.0), 1e-12);
  EXPECT_TRUE(std::isnan(projected_correlation(std::vector<double>{1.0, std::nan("")}, logb)[0]));
  EXPECT_THROW(projected_correlation(std::vector<double>{1.0}, bins), error);
}

// The frame average is the mean of the frames' own g (different boxes and sizes), skipping
// frames without pairs.
TEST(Estimators, RadialDistributionOverFramesAveragesTheFrames)
{
  using namespace twobody;
  uniform_bins<float> const bins(0.f, 2.f, 2);
  histogram_result<unsigned long long> a, b, empty;
  a.counts = {3, 5};
  b.counts = {1, 2};
  empty.counts = {0, 0};
  std::vector<double> const boxes{10, 10, 10, 8, 8, 8, 9, 9, 9};
  std::vector<double> const g = radial_distribution_over_frames<unsigned long long>({a, b, empty}, bins, boxes, 3, {20, 12, 1});
  std::vector<double> const ga = radial_distribution(a, bins, {10, 10, 10}, 20), gb = radial_distribution(b, bins, {8, 8, 8}, 12);
  ASSERT_EQ(g.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) { EXPECT_DOUBLE_EQ(g[k], (ga[k] + gb[k]) / 2); }
  EXPECT_THROW(radial_distribution_over_frames<unsigned long long>({empty}, bins, {9, 9, 9}, 3, {1}), twobody::error);
}
