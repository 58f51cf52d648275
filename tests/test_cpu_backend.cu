// The CPU backend against a plain single-threaded double loop written here.
#include "common.cuh"

using twobody::pair_mode;

namespace {

constexpr pair_mode all_modes[] = {pair_mode::self, pair_mode::cross, pair_mode::ordered};

// Brute force over explicit index pairs, in double.
template <class Visit>
void brute(pair_mode mode, std::int64_t na, std::int64_t nb, Visit&& visit)
{
  for (std::int64_t i = 0; i < na; ++i) {
    for (std::int64_t j = 0; j < (mode == pair_mode::cross ? nb : na); ++j) {
      if (mode == pair_mode::self && j <= i) { continue; }
      if (mode == pair_mode::ordered && j == i) { continue; }
      visit(i, j);
    }
  }
}

double d2(tbt::host_points<double, 3> const& a, std::int64_t i, tbt::host_points<double, 3> const& b, std::int64_t j)
{
  double s = 0;
  for (int d = 0; d < 3; ++d) { s += (a.c[d][i] - b.c[d][j]) * (a.c[d][i] - b.c[d][j]); }
  return s;
}

}  // namespace

TEST(CpuBackend, HistogramMatchesBruteForce)
{
  for (pair_mode mode : all_modes) {
    for (std::int64_t n : {0, 1, 2, 31, 257}) {
      tbt::host_points<float, 3> a(n, 11), b(n / 2 + 3, 12);
      auto ad = a.as<double>();
      auto bd = b.as<double>();
      twobody::uniform_bins<float> bins(0.5f, 0.5f + 2.f * 4096, 4096);  // on d^2, exact
      std::vector<unsigned long long> got(bins.size() + 1, 12345), want(bins.size() + 1, 0);
      auto pairs = tbt::make_pairs(mode, a.view(), b.view());
      twobody::cpu::histogram(pairs, twobody::squared_euclidean{}, bins, got.data());
      unsigned long long npairs = 0;
      brute(mode, a.n, b.n, [&](std::int64_t i, std::int64_t j) {
        double const v = d2(ad, i, mode == pair_mode::cross ? bd : ad, j);
        long long const k = static_cast<long long>(std::floor((v - 0.5) / 2.0));
        ++want[(v >= 0.5 && k < 4096) ? k : 4096];
        ++npairs;
      });
      EXPECT_EQ(got, want) << tbt::mode_name(mode) << " n=" << n;
      EXPECT_EQ(npairs, pairs.count());
    }
  }
}

TEST(CpuBackend, WeightedHistogramAndCount)
{
  for (pair_mode mode : all_modes) {
    tbt::host_points<float, 3> a(300, 21), b(123, 22);
    auto ad = a.as<double>();
    auto bd = b.as<double>();
    auto pairs = tbt::make_pairs(mode, a.weighted_view(), b.weighted_view());
    twobody::uniform_bins<float> bins(0.25f, 128.25f, 256);
    std::vector<double> got(257, -1), want(257, 0);
    twobody::cpu::histogram(pairs, twobody::euclidean{}, bins, got.data());
    double wcount = 0;
    auto const& bb = mode == pair_mode::cross ? bd : ad;
    brute(mode, a.n, b.n, [&](std::int64_t i, std::int64_t j) {
      double const v = std::sqrt(d2(ad, i, bb, j));
      long long const k = static_cast<long long>(std::floor((v - 0.25) * 2.0));
      double const w = ad.w[i] * bb.w[j];
      want[(v >= 0.25 && k < 256) ? k : 256] += w;
      if (d2(ad, i, bb, j) < 100.0) { wcount += w; }
    });
    EXPECT_EQ(got, want) << tbt::mode_name(mode);
    EXPECT_EQ(twobody::cpu::count_pairs(pairs, twobody::within_radius(10.f)), wcount);
  }
}

TEST(CpuBackend, ReductionsMatchBruteForce)
{
  for (pair_mode mode : all_modes) {
    tbt::host_points<double, 3> a(400, 31), b(77, 32);
    auto pairs = tbt::make_pairs(mode, a.view(), b.view());
    auto const& bb = mode == pair_mode::cross ? b : a;
    double sum = 0, mn = 1e300, mx = -1;
    unsigned long long close = 0;
    brute(mode, a.n, b.n, [&](std::int64_t i, std::int64_t j) {
      double const v = d2(a, i, bb, j);
      sum += v;
      mn = std::min(mn, v);
      mx = std::max(mx, v);
      close += v < 49.0;
    });
    EXPECT_EQ(twobody::cpu::reduce_pairs(pairs, twobody::squared_euclidean{}, cuda::std::plus<double>{}, 0.0), sum);
    EXPECT_EQ(twobody::cpu::reduce_pairs(pairs, twobody::squared_euclidean{}, cuda::minimum<double>{}, 1e300), mn);
    EXPECT_EQ(twobody::cpu::reduce_pairs(pairs, twobody::squared_euclidean{}, cuda::maximum<double>{}, -1.0), mx);
    EXPECT_EQ(twobody::cpu::count_pairs(pairs, twobody::within_radius(7.0)), close);
  }
}

TEST(CpuBackend, EmptyAndRejected)
{
  tbt::host_points<float, 2> a(0, 1), b(5, 2);
  EXPECT_EQ(twobody::cpu::count_pairs(twobody::cross_pairs(a.view(), b.view()), twobody::within_radius(1.f)), 0ull);
  EXPECT_EQ(twobody::cpu::count_pairs(twobody::self_pairs(b.view()), twobody::within_radius(1e9f)), 10ull);
  auto bad = b.view();
  bad.size = -1;
  EXPECT_THROW(twobody::cpu::count_pairs(twobody::self_pairs(bad), twobody::within_radius(1.f)), twobody::error);
}

TEST(CpuBackend, PerPointSumsMatchBruteForce)
{
  tbt::host_points<double, 2> a(300, 61), b(170, 62);
  for (auto m : {twobody::pair_mode::cross, twobody::pair_mode::ordered}) {
    auto const pairs = tbt::make_pairs(m, a.view(), b.view());
    std::vector<double> got(300, -1.0);
    twobody::cpu::sum_per_point(pairs, twobody::squared_euclidean{}, got.data());
    auto const& bb = m == twobody::pair_mode::cross ? b : a;
    for (std::int64_t i = 0; i < a.n; ++i) {
      double want = 0;
      for (std::int64_t j = 0; j < bb.n; ++j) {
        if (m == twobody::pair_mode::ordered && i == j) { continue; }
        double const dx = a.c[0][i] - bb.c[0][j], dy = a.c[1][i] - bb.c[1][j];
        want += dx * dx + dy * dy;
      }
      EXPECT_EQ(got[i], want) << i;
    }
  }
  std::vector<double> out(300);
  EXPECT_THROW(twobody::cpu::sum_per_point(twobody::self_pairs(a.view()), twobody::squared_euclidean{}, out.data()),
               twobody::error);
}
