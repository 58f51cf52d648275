// Tile forms of distance histograms (the SDH's clamp and tile pairs past r_max counted at once)
// and of weighted periodic points against the CPU backend and the general kernel. Part of
// test_gpu_tile_forms_kernels (test_gpu_tile_forms_kernels.cu has the minimum image's forms, the
// one-call order and the ordered passes).
#include "gpu_tile_forms_checks.cuh"

// The SDH (squared_euclidean + distance_bins) on ordered tiles takes each slot without the
// clamp where a tile pair's bounds prove every value in range, and counts tile pairs past
// r_max at once. Integer coordinates in [0, 64)^3 (bin edges checked away from every
// distance): r_max past the largest distance (every tile pair inside but those that span the
// cube) and r_max = 13.1 (most tile pairs outside); unweighted and weighted (weights k / 4,
// sums exact in double), against the CPU backend.
template <class Input>
void check_sdh_against_cpu()
{
  tbt::host_points<float, 3> ha(9000, 23), hb(5000, 24);
  tbt::device_points<float, 3> a(ha), b(hb);
  for (auto const& [r_max, nbins] : {std::pair{110.5f, 83}, std::pair{13.1f, 41}}) {
    for (int s = 1; s <= 3 * 63 * 63; ++s) {
      double const t = std::sqrt(double(s)) * nbins / r_max;
      if (t > nbins + 1) { break; }  // past the last edge
      ASSERT_GT(std::abs(t - std::round(t)), 1e-4) << "a distance lies on a bin edge: " << s;
    }
    distance_bins<float> const bins(r_max, nbins);
    for (pair_mode m : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
      std::vector<Count> want(nbins + 1);
      cpu::histogram(tbt::make_pairs(m, ha.view(), hb.view()), squared_euclidean{}, bins, want.data());
      EXPECT_EQ(run_histogram<Input>(tbt::make_pairs(m, a.view(), b.view()), squared_euclidean{}, bins, true), want)
        << tbt::mode_name(m) << " r_max " << r_max;
      std::vector<double> want_w(nbins + 1);
      cpu::histogram(tbt::make_pairs(m, ha.weighted_view(), hb.weighted_view()), squared_euclidean{}, bins, want_w.data());
      EXPECT_EQ((run_histogram<Input, double>(tbt::make_pairs(m, a.weighted_view(), b.weighted_view()), squared_euclidean{}, bins, true)),
                want_w)
        << "weighted " << tbt::mode_name(m) << " r_max " << r_max;
    }
  }
}

TEST(GpuTileForms, DistanceHistogramsMatchTheCpuBackend)
{
  TBT_REQUIRE_GPU();
  check_sdh_against_cpu<input::shared_tile<32, 1>>();
  check_sdh_against_cpu<input::shared_tile<64, 2>>();
  check_sdh_against_cpu<input::shared_tile<256, 8>>();  // the large-N tile, capped at 128 registers
}

// The minimum image with weights: the weighted ordered path (gather of weights, forms without
// whole tile pairs counted at once) against the CPU backend.
TEST(GpuTileForms, WeightedPeriodicMatchesTheCpuBackend)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> ha(9000, 25), hb(5000, 26);
  tbt::device_points<float, 3> a(ha), b(hb);
  float const r_max = 13.1f;
  int const nbins   = 41;
  auto const f      = make_periodic_squared_euclidean(64.f, 64.f, 64.f);
  distance_bins<float> const bins(r_max, nbins);
  for (pair_mode m : {pair_mode::self, pair_mode::cross}) {
    std::vector<double> want(nbins + 1);
    cpu::histogram(tbt::make_pairs(m, ha.weighted_view(), hb.weighted_view()), f, bins, want.data());
    EXPECT_EQ((run_histogram<input::shared_tile<64, 2>, double>(tbt::make_pairs(m, a.weighted_view(), b.weighted_view()), f, bins, true)),
              want)
      << tbt::mode_name(m);
  }
}

// The SDH's clamp-free slots, with bins over the whole cube (about every tile pair inside) and
// a fine histogram to a short r_max (most tile pairs outside).
TEST(GpuTileForms, DistanceHistogramsEqualTheGeneralKernelOnFloatData)
{
  TBT_REQUIRE_GPU();
  float const L = 25.f;
  expect_forms_equal_the_general_kernel(squared_euclidean{}, L, {distance_bins<float>(L * 1.7321f, 256), distance_bins<float>(3.1f, 1000)},
                                        51);
}
