// Device tests of the fast paths: distance_bins (approximate sqrt folded into the bin),
// within_radius's fused sign-bit count (also with NaN and inf), and per-point sums. The host
// forms' zeroed scratch: test_gpu_fast_paths_scratch.cu (the same binary).
#include "gpu_fast_paths_checks.cuh"

TEST(GpuFastPaths, ApproxSqrtIsWithinTwoUlps)
{
  TBT_REQUIRE_GPU();
  // Squared distances of a 100^3 box and beyond: random floats over 2^-20 .. 2^20, plus all integers up to 2^16.
  std::vector<float> x;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> e(-20.f, 20.f);
  for (int i = 0; i < (1 << 20); ++i) { x.push_back(std::exp2(e(rng))); }
  for (int i = 0; i <= (1 << 16); ++i) { x.push_back(static_cast<float>(i)); }
  thrust::device_vector<float> dx = x;
  auto da = tbt::poisoned<float>(x.size());
  auto di = tbt::poisoned<float>(x.size());
  int const n = static_cast<int>(x.size());
  approx_sqrt_kernel<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(dx.data()), thrust::raw_pointer_cast(da.data()),
                                                thrust::raw_pointer_cast(di.data()), n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  thrust::host_vector<float> a = da, r = di;
  long long worst = 0;
  for (int i = 0; i < n; ++i) { worst = std::max(worst, ulp_distance(a[i], r[i])); }
  std::printf("approx sqrt: max %lld ulp from the IEEE square root over %d inputs\n", worst, n);
  EXPECT_LE(worst, 2) << "distance_bins documents a few ulps";
  EXPECT_EQ(a[x.size() - (1 << 16) - 1], 0.f) << "sqrt(0) must be 0 (bin 0), not NaN";
}

TEST(GpuFastPaths, DistanceBinsMatchDoubleReferenceAwayFromEdges)
{
  TBT_REQUIRE_GPU();
  std::int64_t const n = tbt::quick() ? 700 : 3000;
  for (pair_mode m : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
    // Width 1: every perfect-square squared distance sits exactly on an edge (tolerated);
    // width 0.7 and r_max below the largest distance (outside slot used).
    check_distance_bins<default_input>(m, n, n / 2 + 3, 111, 111.f);
    check_distance_bins<input::shared_tile<256, 8>>(m, n, n / 3 + 1, 100, 70.f);
    check_distance_bins<input::shuffle_tile<128, 2>>(m, n / 2, n / 3, 16, 64.f);
    check_distance_bins<input::readonly_tile<256, 4>>(m, n / 2, n / 3, 4096, 111.f);
  }
}

TEST(GpuFastPaths, WithinRadiusNeverCountsNanOrInfinitePoints)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> h(2500, 31);
  float const nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (std::int64_t i = 0; i < h.n; i += 97) { h.c[i % 3][i] = (i % 2) ? nan : -nan; }
  for (std::int64_t i = 5; i < h.n; i += 89) { h.c[(i + 1) % 3][i] = (i % 2) ? inf : -inf; }
  tbt::device_points<float, 3> d(h);
  for (float r : {0.f, 1.f, 9.f, 1e30f}) {
    for (pair_mode m : {pair_mode::self, pair_mode::ordered}) {
      auto const want = cpu::count_pairs(tbt::make_pairs(m, h.view(), h.view()), within_radius(r));
      EXPECT_EQ(count_pairs(tbt::make_pairs(m, d.view(), d.view()), within_radius(r)), want) << "r=" << r;
      EXPECT_EQ((count_pairs<input::naive<128>>(tbt::make_pairs(m, d.view(), d.view()), within_radius(r))), want);
    }
  }
}

TEST(GpuFastPaths, WithinRadiusDoubleMatchesCpu)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<double, 3> h(tbt::quick() ? 900 : 5000, 32);
  tbt::device_points<double, 3> d(h);
  for (double r : {0.0, 3.0, 8.0, 20.5}) {
    EXPECT_EQ(count_pairs(self_pairs(d.view()), within_radius(r)), cpu::count_pairs(self_pairs(h.view()), within_radius(r)));
  }
}

TEST(GpuFastPaths, PerPointSumsMatchCpu)
{
  TBT_REQUIRE_GPU();
  std::int64_t const n = tbt::quick() ? 600 : 4100;
  for (pair_mode m : {pair_mode::cross, pair_mode::ordered}) {
    check_per_point<default_input, float>(m, n, n / 2 + 7);
    check_per_point<input::shared_tile<128, 1>, double>(m, n / 2 + 1, n);
    check_per_point<input::shared_tile<256, 1, 4, 2>, float>(m, n / 2 + 3, n / 3 + 5);  // column groups
    check_per_point<input::shared_tile<128, 2, 1, 2>, double>(m, n / 3 + 1, n / 2);
    // Diagonal tiles of symmetric sums with several own chunks per warp (64 x 2 and 32 x 4 in
    // four column groups): each pair counts once, for q > p.
    check_per_point<input::shared_tile<256, 2, 4, 4>, float>(m, n / 2 + 5, n / 3);
    check_per_point<input::shared_tile<128, 4, 8, 4>, double>(m, n / 3 + 2, n / 2);
    check_per_point<input::readonly_tile<64, 2>, float>(m, n / 3, n / 4);
    check_per_point<input::shuffle_tile<256, 4>, float>(m, n, 33);
    check_per_point<input::naive<128>, double>(m, n / 3, n / 5);
  }
  // One-call host result; zero partners leave zeros (poison overwritten).
  tbt::host_points<float, 3> h(300, 43);
  auto v = sum_per_point(cross_pairs(h.view(), points<float, 3>{}), gaussian_kernel(1.f));
  EXPECT_EQ(v, std::vector<float>(300, 0.f));
  EXPECT_THROW(sum_per_point(self_pairs(h.view()), gaussian_kernel(1.f)), twobody::error);
}
