// Tile forms against the general kernel on float data, bit for bit (only the GPU's own evaluation
// is the reference there), through the one-call form on large sets, in ordered passes against the
// explicit form, and for distance histograms and weighted periodic points against the CPU backend
// (test_gpu_tile_forms.cu has the order itself, the passes and the CPU comparisons).
#include "gpu_tile_forms_checks.cuh"

// The minimum image's forms, bins from a fine RDF to r_max = L/2 (where the outside slot is
// about half the pairs).
TEST(GpuTileForms, EqualTheGeneralKernelOnFloatData)
{
  TBT_REQUIRE_GPU();
  float const L = 25.f;
  expect_forms_equal_the_general_kernel(make_periodic_squared_euclidean(L, L, L), L,
                                        {distance_bins<float>(L / 2, 256), distance_bins<float>(3.1f, 1000)}, 31);
}

// The one-call histogram orders large sets itself (device and host results), and gives the
// explicit unordered form's counts.
TEST(GpuTileForms, OneCallOrdersLargeSets)
{
  TBT_REQUIRE_GPU();
  std::int64_t const n = tbt::quick() ? 140000 : 262144;
  float const L        = 50.f;
  awkward_cloud const cloud(n, L, 41);
  points<float, 3> const p = cloud.view();
  auto const f     = make_periodic_squared_euclidean(L, L, L);
  auto const pairs = self_pairs(p);
  distance_bins<float> const bins(L / 2, 256);
  auto counts = tbt::poisoned<Count>(257);
  histogram(pairs, f, bins, thrust::raw_pointer_cast(counts.data()));
  auto const got = to_host(counts);
  auto want      = tbt::poisoned<Count>(257);
  histogram<input::shared_tile<256, 4>>(pairs, f, bins, thrust::raw_pointer_cast(want.data()), output::warp_privatized{32});
  EXPECT_EQ(got, to_host(want));
  auto const host = histogram(exec::gpu, pairs, f, bins);
  EXPECT_EQ(host.counts, std::vector<Count>(got.begin(), got.end() - 1));
  EXPECT_EQ(host.outside, got.back());
}

// Past shared memory the one-call histogram may plan passes over spread windows of ordered
// points (model::choose_ordered_passes): that plan, and the one-call form's own, give the counts
// of the explicit unordered form (one copy in windows), bit for bit: float data with faces, NaN
// and repeated points; the SDH over the whole box, a fine RDF to L/2 and 300 x 300 (r_p, pi)
// bins, self and cross.
TEST(GpuTileForms, OrderedPassesEqualTheExplicitForm)
{
  TBT_REQUIRE_GPU();
  std::int64_t const n = tbt::quick() ? 140000 : 200000;
  float const L        = 50.f;
  awkward_cloud const ca(n, L, 43), cb(n - 1000, L, 44);
  auto check = [&](auto const& f, auto const& bins, pair_mode m) {
    using F           = std::decay_t<decltype(f)>;
    using Bins        = std::decay_t<decltype(bins)>;
    auto const pairs  = tbt::make_pairs(m, ca.view(), cb.view());
    int const slots   = bins.size() + 1;
    auto want         = tbt::poisoned<Count>(slots);
    histogram<input::shared_tile<256, 4>>(pairs, f, bins, thrust::raw_pointer_cast(want.data()), output::warp_privatized{1});
    auto const expect = to_host(want);
    Count total = 0;
    for (Count c : expect) { total += c; }
    ASSERT_EQ(total, static_cast<Count>(pairs.count()));
    // The ordered passes' plan of each candidate input.
    using kernels = detail::histogram_kernels<points<float, 3>, detail::tile_formed<F>, Bins, Count>;
    problem const p = detail::histogram_problem<unsigned, F>(pairs, slots);
    int planned     = 0;
    for (input_candidate const& c : detail::candidates_of<kernels::template passes>(detail::histogram_inputs<points<float, 3>>{})) {
      if (!detail::takes_ordered_passes(c)) { continue; }
      auto const sample = detail::ordered_passes_sample(pairs, f, bins, c, 0);
      policy_plan const plan =
        model::choose_ordered_passes(p, device_info::get(), c, [&](detail::pass_windows const& w) { return detail::ordered_passes_visits<F>(sample, w); });
      ASSERT_GT(plan.passes, 1) << c.name();
      auto counts = tbt::poisoned<Count>(slots);
      detail::run_planned_histogram(pairs, f, bins, thrust::raw_pointer_cast(counts.data()), plan, 0);
      EXPECT_EQ(to_host(counts), expect) << c.name() << " " << plan.to_string() << " " << tbt::mode_name(m);
      ++planned;
    }
    EXPECT_GE(planned, 1);
    auto counts = tbt::poisoned<Count>(slots);
    histogram(pairs, f, bins, thrust::raw_pointer_cast(counts.data()));
    EXPECT_EQ(to_host(counts), expect) << "one call: " << plan_histogram(pairs, f, bins).to_string();
    // The same points in host memory: the planner orders a device copy.
    auto const host_pairs = tbt::make_pairs(m, ca.host_view(), cb.host_view());
    auto from_host        = tbt::poisoned<Count>(slots);
    histogram(host_pairs, f, bins, thrust::raw_pointer_cast(from_host.data()));
    EXPECT_EQ(to_host(from_host), expect) << "host points: " << plan_histogram(host_pairs, f, bins).to_string();
  };
  for (pair_mode m : {pair_mode::self, pair_mode::cross}) {
    check(squared_euclidean{}, distance_bins<float>(L * 1.7321f, 131072), m);
    check(make_periodic_squared_euclidean(L, L, L), distance_bins<float>(L / 2, 100000), m);
    check(rp_pi_separation{}, make_bins_2d(uniform_bins<float>(0.f, L, 300), uniform_bins<float>(0.f, L, 300)), m);
  }
}

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
