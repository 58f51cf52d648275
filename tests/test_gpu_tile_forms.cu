// Minimum-image histograms on points ordered into compact tiles (detail/tile_order.cuh) with
// the cheapest exact form per tile pair (math/tile_forms.cuh) and whole tile pairs counted
// into the outside slot: against the CPU backend (integer coordinates, bin edges checked to be
// away from every distance) and, bit for bit, against the same kernel on unordered points
// without forms (float data, where only the GPU's own evaluation is the reference).
// (test_gpu_tile_forms_kernels.cu has the rest: the general kernel on float data, the one-call
// form, ordered passes, distance histograms.)
#include "gpu_tile_forms_checks.cuh"

// The order is a permutation into tiles that lie in their boxes, and the boxes are compact; with
// 8 sub-tiles per tile (one per warp of a 256-thread block) each full tile's sub-tile k, its
// positions 32 k + l + 256 i, lies in its own box, and those boxes are compact too.
TEST(GpuTileForms, OrderIsAPermutationIntoCompactTiles)
{
  TBT_REQUIRE_GPU();
  std::int64_t const n = 100003;
  int const tile       = 1024;
  float const L        = 64.f;
  awkward_cloud const cloud(n, L, 11);
  auto const& c = cloud.c;
  for (int sub : {1, 8}) {
    detail::tile_ordered_points<points<float, 3>> const o(cloud.view(), tile, sub, 0);
    ASSERT_EQ(o.sub_tiles(), sub);
    std::int64_t const tiles = (n + tile - 1) / tile, full = n / tile;
    std::vector<float> sorted[3];
    for (int d = 0; d < 3; ++d) {
      sorted[d].resize(n);
      ASSERT_EQ(cudaMemcpy(sorted[d].data(), o.view().coords[d], n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    }
    std::int64_t const count = tiles + (sub > 1 ? tiles * sub : 0);
    std::vector<detail::tile_box<float, 3>> boxes(count);
    ASSERT_EQ(cudaMemcpy(boxes.data(), o.boxes(), count * sizeof(boxes[0]), cudaMemcpyDeviceToHost), cudaSuccess);
    // The same multiset of points (NaN compared as bits).
    auto key = [](std::vector<float> const (&v)[3], std::int64_t i) {
      std::array<std::uint32_t, 3> k{};
      for (int d = 0; d < 3; ++d) { std::memcpy(&k[d], &v[d][i], 4); }
      return k;
    };
    std::vector<std::array<std::uint32_t, 3>> before(n), after(n);
    for (std::int64_t i = 0; i < n; ++i) { before[i] = key(c, i), after[i] = key(sorted, i); }
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    EXPECT_TRUE(before == after) << sub;
    // Box b: its points in it; an axis with a NaN coordinate has hi = +inf there, and only such
    // an axis; the mean volume of the boxes of `boxes_count` full parts near the ideal.
    auto check = [&](std::int64_t b, std::vector<std::int64_t> const& members, double& volume, std::int64_t& known) {
      double v     = 1;
      bool has_nan = false;
      for (int d = 0; d < 3; ++d) {
        for (std::int64_t i : members) {
          float const x = sorted[d][i];
          if (x == x) {
            ASSERT_TRUE(x >= boxes[b].lo[d] && x <= boxes[b].hi[d]) << sub << " box " << b << " axis " << d;
          } else {
            has_nan = true;
          }
        }
        v *= boxes[b].hi[d] - boxes[b].lo[d];
      }
      EXPECT_EQ(std::isinf(v), has_nan) << sub << " box " << b;
      if (!has_nan) { volume += v, ++known; }
    };
    double volume = 0;
    std::int64_t known = 0;
    for (std::int64_t t = 0; t < tiles; ++t) {
      std::vector<std::int64_t> members;
      for (std::int64_t i = t * tile; i < std::min(n, (t + 1) * tile); ++i) { members.push_back(i); }
      check(t, members, volume, known);
    }
    EXPECT_GT(known, tiles / 2);
    EXPECT_LT(volume / known, 2.0 * double(L) * L * L / tiles) << sub;
    if (sub == 1) { continue; }
    volume = 0, known = 0;
    for (std::int64_t t = 0; t < full; ++t) {
      for (int k = 0; k < sub; ++k) {
        std::vector<std::int64_t> members;
        for (int i = 0; i < tile / (32 * sub); ++i) {
          for (int l = 0; l < 32; ++l) { members.push_back(t * tile + 32 * k + l + 32 * sub * i); }
        }
        check(tiles + t * sub + k, members, volume, known);
      }
    }
    EXPECT_GT(known, full * sub / 2);
    EXPECT_LT(volume / known, 2.0 * double(L) * L * L / (tiles * sub)) << "sub-tiles";
  }
}

// Integer coordinates in a box of side 64: squared distances are integers, and the bin edges
// of r_max = 13.1 in 41 bins are checked to be off every square root by far more than the
// approximate square root's error, so the CPU backend is the exact reference. Self, cross
// (partial tiles on both sides) and ordered pairs; tiles of 32 and 128 points, so most tile
// pairs are past r_max (counted at once) and the rest take every form.
template <class Input>
void check_against_cpu()
{
  float const r_max = 13.1f;
  int const nbins   = 41;
  for (int s = 1; s <= 3 * 32 * 32; ++s) {  // (0 is edge 0 of bin 0 everywhere)
    double const t = std::sqrt(double(s)) * nbins / r_max;
    ASSERT_GT(std::abs(t - std::round(t)), 1e-4) << "a distance lies on a bin edge: " << s;
  }
  tbt::host_points<float, 3> ha(9000, 21), hb(5000, 22);
  tbt::device_points<float, 3> a(ha), b(hb);
  auto const f = make_periodic_squared_euclidean(64.f, 64.f, 64.f);
  distance_bins<float> const bins(r_max, nbins);
  for (pair_mode m : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
    std::vector<Count> want(nbins + 1);
    cpu::histogram(tbt::make_pairs(m, ha.view(), hb.view()), f, bins, want.data());
    auto const pairs = tbt::make_pairs(m, a.view(), b.view());
    EXPECT_EQ(run_histogram<Input>(pairs, f, bins, true), want) << tbt::mode_name(m);
    EXPECT_EQ(run_histogram<Input>(pairs, f, bins, false), want) << tbt::mode_name(m);
  }
}

// Passes over spread windows of the bins visit on ordered points only the tile pairs whose slots
// they count (a tile pair whose slots lie in one window whole in the first such window, any other
// in every pass for the pass's own share of the slots): the SDH (clamp-free slots where a tile
// pair lies whole in a window) and the minimum image, unweighted and weighted, self, cross and
// ordered, in 2 overlapping windows, 3 that only tile the slots and 5 overlapping ones; ordered
// and unordered points; (r_p, pi) histograms (bins_2d) and squared distances in uniform_bins;
// against the CPU backend (integer coordinates, edges away from every distance, as above).
TEST(GpuTileForms, PassesVisitOnlyTheTilePairsTheyCount)
{
  TBT_REQUIRE_GPU();
  using Input = input::shared_tile<64, 2>;
  tbt::host_points<float, 3> ha(9000, 27), hb(5000, 28);
  tbt::device_points<float, 3> a(ha), b(hb);
  auto const periodic = make_periodic_squared_euclidean(64.f, 64.f, 64.f);
  distance_bins<float> const whole_cube(110.5f, 83), short_range(13.1f, 41);
  for (windows_layout const w : {windows_layout{2, 0.7}, windows_layout{3, 0.0}, windows_layout{5, 0.4}}) {
    for (pair_mode m : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
      auto const pairs   = tbt::make_pairs(m, a.view(), b.view());
      auto const weighed = tbt::make_pairs(m, a.weighted_view(), b.weighted_view());
      std::string const what = tbt::mode_name(m) + std::string(" in ") + std::to_string(w.passes) + " passes";
      for (distance_bins<float> const& bins : {whole_cube, short_range}) {
        std::vector<Count> want(bins.size() + 1);
        cpu::histogram(tbt::make_pairs(m, ha.view(), hb.view()), squared_euclidean{}, bins, want.data());
        EXPECT_EQ(run_histogram<Input>(pairs, squared_euclidean{}, bins, true, w), want) << "sdh " << what << " " << bins.r_max;
        EXPECT_EQ(run_histogram<Input>(pairs, squared_euclidean{}, bins, false, w), want) << "unordered sdh " << what;
        std::vector<double> want_w(bins.size() + 1);
        cpu::histogram(tbt::make_pairs(m, ha.weighted_view(), hb.weighted_view()), squared_euclidean{}, bins, want_w.data());
        EXPECT_EQ((run_histogram<Input, double>(weighed, squared_euclidean{}, bins, true, w)), want_w) << "weighted sdh " << what;
      }
      std::vector<Count> want(short_range.size() + 1);
      cpu::histogram(tbt::make_pairs(m, ha.view(), hb.view()), periodic, short_range, want.data());
      EXPECT_EQ(run_histogram<Input>(pairs, periodic, short_range, true, w), want) << "rdf " << what;
      // (r_p, pi): bounds of both from the boxes, the slots' range from the corner bins. r_p is
      // an IEEE square root of an integer and pi an integer, binned by exact products on both
      // sides (dyadic widths where edges meet integers): no value is near an edge by rounding.
      for (auto const& rp_pi : {make_bins_2d(uniform_bins<float>(0.f, 64.f, 64), uniform_bins<float>(0.f, 64.f, 32)),
                                make_bins_2d(uniform_bins<float>(2.f, 34.f, 128), uniform_bins<float>(0.f, 16.f, 16))}) {
        std::vector<Count> want_rp(rp_pi.size() + 1);
        cpu::histogram(tbt::make_pairs(m, ha.view(), hb.view()), rp_pi_separation{}, rp_pi, want_rp.data());
        EXPECT_EQ(run_histogram<Input>(pairs, rp_pi_separation{}, rp_pi, true, w), want_rp) << "rp_pi " << what;
        std::vector<double> want_w(rp_pi.size() + 1);
        cpu::histogram(tbt::make_pairs(m, ha.weighted_view(), hb.weighted_view()), rp_pi_separation{}, rp_pi, want_w.data());
        EXPECT_EQ((run_histogram<Input, double>(weighed, rp_pi_separation{}, rp_pi, true, w)), want_w) << "weighted rp_pi " << what;
      }
      // Squared distances (integers) in uniform bins of dyadic width: their slot bounds too.
      uniform_bins<float> const squares(0.f, 4096.f, 256);
      std::vector<Count> want_sq(squares.size() + 1);
      cpu::histogram(tbt::make_pairs(m, ha.view(), hb.view()), squared_euclidean{}, squares, want_sq.data());
      EXPECT_EQ(run_histogram<Input>(pairs, squared_euclidean{}, squares, true, w), want_sq) << "squares " << what;
    }
  }
}

// The same on a small set, for the sanitizers: passes deciding per sub-tile pair (the sub-tile
// pools of full off-diagonal tile pairs, each warp deciding its own), SDH and (r_p, pi), self and
// cross, in 3 overlapping windows.
TEST(GpuTileForms, PassesDecidePerSubTilePair)
{
  TBT_REQUIRE_GPU();
  using Input = input::shared_tile<64, 2>;  // 128-point tiles of 2 sub-tiles
  tbt::host_points<float, 3> ha(1500, 31), hb(1100, 32);
  tbt::device_points<float, 3> a(ha), b(hb);
  distance_bins<float> const bins(110.5f, 83);
  auto const rp_pi = make_bins_2d(uniform_bins<float>(0.f, 64.f, 64), uniform_bins<float>(0.f, 64.f, 32));
  for (pair_mode m : {pair_mode::self, pair_mode::cross}) {
    auto const pairs      = tbt::make_pairs(m, a.view(), b.view());
    auto const host_pairs = tbt::make_pairs(m, ha.view(), hb.view());
    std::vector<Count> want(bins.size() + 1), want_rp(rp_pi.size() + 1);
    cpu::histogram(host_pairs, squared_euclidean{}, bins, want.data());
    cpu::histogram(host_pairs, rp_pi_separation{}, rp_pi, want_rp.data());
    EXPECT_EQ(run_histogram<Input>(pairs, squared_euclidean{}, bins, true, {3, 0.4}), want) << tbt::mode_name(m);
    EXPECT_EQ(run_histogram<Input>(pairs, rp_pi_separation{}, rp_pi, true, {3, 0.4}), want_rp) << tbt::mode_name(m);
  }
}

TEST(GpuTileForms, MatchTheCpuBackend)
{
  TBT_REQUIRE_GPU();
  check_against_cpu<input::shared_tile<32, 1>>();
  check_against_cpu<input::shared_tile<64, 2>>();
  check_against_cpu<input::shared_tile<256, 2>>();
  check_against_cpu<input::shared_tile<256, 8>>();  // the large-N tile, capped at 128 registers (spills)
}

