// Histograms past the typed test's cases: large tiles of double points, weighted periodic and
// two-dimensional histograms, and spill windows, each against the CPU backend. Part of
// test_gpu_histogram (test_gpu_histogram.cu and test_gpu_histogram_inputs.cu: the typed test).
#include "gpu_histogram_checks.cuh"

// Column tiles past 32 KiB (2048 double 3-D points: 64 KiB) live in dynamic shared memory ahead
// of the copies (input/shared_tile.cuh): the same counts as the CPU backend, for one pass, for
// windows past shared memory and for global atomics.
TEST(GpuHistogramExtras, LargeTilesOfDoublePoints)
{
  TBT_REQUIRE_GPU();
  using large = input::shared_tile<512, 4>;
  using wide  = input::shared_tile<256, 8>;
  static_assert(large::column_source<points<double, 3>>::tile_is_dynamic, "the tile this test is for");
  static_assert(wide::column_source<points<double, 3>>::tile_is_dynamic, "the tile this test is for");
  // More than one 2048-point tile: 2100 points under the sanitizers (quick), 5000 otherwise.
  sizes const several_tiles = tbt::quick() ? sizes{2100, 333} : sizes{5000, 4099};
  for (pair_mode m : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
    for (sizes s : {sizes{33, 31}, sizes{1000, 333}, several_tiles}) {
      if (m != pair_mode::cross) { s.nb = s.na; }
      for (layout l : {layout::bins256, layout::bins4096, layout::past_shared_memory}) {
        check<large, double>(m, s, l, output::warp_privatized{4}, "shared_tile<512, 4> warp_privatized{4}");
        check<wide, double>(m, s, l, output::warp_privatized{1}, "shared_tile<256, 8> warp_privatized{1}");
        check<large, double>(m, s, l, output::global_atomics{}, "shared_tile<512, 4> global_atomics");
      }
    }
  }
}

TEST(GpuHistogramExtras, WeightedPeriodicAndTwoDimensional)
{
  TBT_REQUIRE_GPU();
  for (pair_mode m : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
    tbt::host_points<float, 3> ha(tbt::quick() ? 300 : 1500, 7), hb(tbt::quick() ? 200 : 700, 8);
    auto hda = ha.as<double>();
    auto hdb = hb.as<double>();
    tbt::device_points<float, 3> a(ha), b(hb);
    // Weighted: w_i w_j per pair in double counts (dyadic weights: exact).
    {
      uniform_bins<float> bins(0.25f, 128.25f, 256);
      std::vector<double> want(257);
      cpu::histogram(tbt::make_pairs(m, hda.weighted_view(), hdb.weighted_view()), euclidean{},
                     uniform_bins<double>(0.25, 128.25, 256), want.data());
      for (int copies : {1, 8, 32}) {
        auto counts = tbt::poisoned<double>(257);
        histogram<default_input>(tbt::make_pairs(m, a.weighted_view(), b.weighted_view()), euclidean{}, bins,
                                 thrust::raw_pointer_cast(counts.data()), output::warp_privatized{copies});
        thrust::host_vector<double> got = counts;
        EXPECT_EQ(std::vector<double>(got.begin(), got.end()), want) << "weighted copies=" << copies << " " << tbt::mode_name(m);
      }
      auto counts = tbt::poisoned<double>(257);
      histogram<input::readonly_tile<128, 2>>(tbt::make_pairs(m, a.weighted_view(), b.weighted_view()), euclidean{}, bins,
                                              thrust::raw_pointer_cast(counts.data()), output::global_atomics{});
      thrust::host_vector<double> got = counts;
      EXPECT_EQ(std::vector<double>(got.begin(), got.end()), want) << "weighted global " << tbt::mode_name(m);
    }
    // Periodic box of side 64 (the data's extent): minimum-image distances.
    {
      auto const pf = make_periodic_euclidean(64.f, 64.f, 64.f);
      auto const pd = make_periodic_euclidean(64.0, 64.0, 64.0);
      std::vector<unsigned long long> want(257);
      cpu::histogram(tbt::make_pairs(m, hda.view(), hdb.view()), pd, uniform_bins<double>(0.25, 128.25, 256), want.data());
      auto r = histogram(tbt::make_pairs(m, a.view(), b.view()), pf, uniform_bins<float>(0.25f, 128.25f, 256));
      r.counts.push_back(r.outside);
      EXPECT_EQ(r.counts, want) << "periodic " << tbt::mode_name(m);
    }
    // (r_p, pi) bins: r_p = sqrt(dx^2 + dy^2) off the edges 0.25 + 2k, pi an integer off 0.5 + 2k.
    {
      auto const b2f = make_bins_2d(uniform_bins<float>(0.25f, 64.25f, 32), uniform_bins<float>(0.5f, 32.5f, 16));
      auto const b2d = make_bins_2d(uniform_bins<double>(0.25, 64.25, 32), uniform_bins<double>(0.5, 32.5, 16));
      std::vector<unsigned long long> want(b2d.size() + 1);
      cpu::histogram(tbt::make_pairs(m, hda.view(), hdb.view()), rp_pi_separation{}, b2d, want.data());
      auto r = histogram(tbt::make_pairs(m, a.view(), b.view()), rp_pi_separation{}, b2f);
      r.counts.push_back(r.outside);
      EXPECT_EQ(r.counts, want) << "rp-pi " << tbt::mode_name(m);
    }
  }
}

// Past shared memory, one pass can count a window of the slots in shared memory and spill the
// others' updates to global atomics (the outside slot stays in per-lane shared counters):
// windows at the start, the middle and the end of the slots, small ones (most updates spill)
// and large ones, plain and weighted counts, every mode, with bins that leave nothing outside
// and bins that leave most pairs outside; and the one-call form, which plans a spilling pass
// where its sample falls inside one window.
TEST(GpuHistogramExtras, SpillWindowsMatchCpuBackend)
{
  TBT_REQUIRE_GPU();
  struct window {
    int begin, size;
  };
  struct bins_case {
    double lo, hi;
    int n;
  };
  // Squared distances are integers in [0, 11907]; edges k / 4 - 1 / 8 stay off them.
  for (bins_case const bc : {bins_case{-0.125, 14999.875, 60000}, bins_case{-0.125, 2999.875, 12000}}) {
    uniform_bins<float> const bins(static_cast<float>(bc.lo), static_cast<float>(bc.hi), bc.n);
    uniform_bins<double> const bins_d(bc.lo, bc.hi, bc.n);
    int const slots = bc.n + 1;
    for (pair_mode m : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
      tbt::host_points<float, 3> ha(tbt::quick() ? 400 : 1500, 21), hb(tbt::quick() ? 300 : 700, 22);
      auto hda = ha.as<double>();
      auto hdb = hb.as<double>();
      tbt::device_points<float, 3> a(ha), b(hb);
      auto const pairs = tbt::make_pairs(m, a.view(), b.view());
      std::vector<unsigned long long> want(slots);
      cpu::histogram(tbt::make_pairs(m, hda.view(), hdb.view()), squared_euclidean{}, bins_d, want.data());
      std::vector<double> want_w(slots);
      cpu::histogram(tbt::make_pairs(m, hda.weighted_view(), hdb.weighted_view()), squared_euclidean{}, bins_d, want_w.data());
      for (window const w : {window{0, 1000}, window{slots / 3, 1000}, window{slots - 1000, 1000}, window{slots / 20, slots / 3},
                             window{0, std::min(slots - 1, 50000)}}) {
        std::string const what = std::to_string(slots) + " slots, " + tbt::mode_name(m) + ", window " + std::to_string(w.begin) +
                                 "+" + std::to_string(w.size);
        auto counts = tbt::poisoned<unsigned long long>(slots);
        detail::launch_spilling<default_input>(pairs, squared_euclidean{}, bins, thrust::raw_pointer_cast(counts.data()),
                                               detail::plan_spill(slots, w.begin, w.size, sizeof(unsigned int)), 0);
        thrust::host_vector<unsigned long long> got = counts;
        EXPECT_EQ(std::vector<unsigned long long>(got.begin(), got.end()), want) << what;
        if (w.size > 20000) { continue; }  // 8-byte counters: 20000 of them fit
        auto weighted = tbt::poisoned<double>(slots);
        detail::launch_spilling<default_input>(tbt::make_pairs(m, a.weighted_view(), b.weighted_view()), squared_euclidean{},
                                               bins, thrust::raw_pointer_cast(weighted.data()),
                                               detail::plan_spill(slots, w.begin, w.size, sizeof(double)), 0);
        thrust::host_vector<double> got_w = weighted;
        EXPECT_EQ(std::vector<double>(got_w.begin(), got_w.end()), want_w) << "weighted " << what;
      }
      // The one-call form on these small sets (whatever it plans) gives the same counts.
      auto r = histogram(pairs, squared_euclidean{}, bins);
      r.counts.push_back(r.outside);
      EXPECT_EQ(r.counts, want) << "one call " << tbt::mode_name(m);
    }
  }
  // A set large enough for the plan to matter: 60001 slots need two passes, and the sample puts
  // every pair inside one window, so the one-call form plans one spilling pass.
  tbt::host_points<float, 3> hl(tbt::quick() ? 4000 : 20000, 23);
  auto hdl = hl.as<double>();
  tbt::device_points<float, 3> l(hl);
  uniform_bins<float> const bins(-0.125f, 14999.875f, 60000);
  std::vector<unsigned long long> want(60001);
  cpu::histogram(self_pairs(hdl.view()), squared_euclidean{}, uniform_bins<double>(-0.125, 14999.875, 60000), want.data());
  policy_plan const plan = plan_histogram(self_pairs(l.view()), squared_euclidean{}, bins);
  if (!tbt::quick()) {  // the sanitizers' smaller set may plan otherwise
    EXPECT_TRUE(plan.spill) << plan;
    EXPECT_EQ(plan.passes, 1) << plan;
  }
  auto r = histogram(self_pairs(l.view()), squared_euclidean{}, bins);
  r.counts.push_back(r.outside);
  EXPECT_EQ(r.counts, want) << plan;
}
