// Tile forms against the general kernel on float data, bit for bit (only the GPU's own evaluation
// is the reference there), through the one-call form on large sets and in ordered passes against
// the explicit form (test_gpu_tile_forms.cu has the order itself, the passes and the CPU
// comparisons; test_gpu_tile_forms_distances.cu, the same binary, the distance histograms).
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
