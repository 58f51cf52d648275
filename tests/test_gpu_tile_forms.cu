// Minimum-image histograms on points ordered into compact tiles (detail/tile_order.cuh) with
// the cheapest exact form per tile pair (math/tile_forms.cuh) and whole tile pairs counted
// into the outside slot: against the CPU backend (integer coordinates, bin edges checked to be
// away from every distance) and, bit for bit, against the same kernel on unordered points
// without forms (float data, where only the GPU's own evaluation is the reference).
#include "common.cuh"

#include <algorithm>
#include <array>
#include <cstring>
#include <initializer_list>
#include <cmath>
#include <random>

using namespace twobody;
using Count = unsigned long long;

namespace {

template <class T, class C = Count>
std::vector<C> to_host(thrust::device_vector<T> const& v)
{
  thrust::host_vector<T> h = v;
  return std::vector<C>(h.begin(), h.end());
}

/// Passes over windows of the slots (one copy): `passes` windows of `window` slots each.
struct windows_layout {
  int passes = 1;
  double window_share = 1.0;  ///< window / slots
};

/// The privatized histogram of Input with tile forms, on `pairs` as given (no boxes: the general
/// form everywhere) or ordered into Input's tiles with their boxes; 32 copies in one pass, or
/// `windows`. Weighted points sum in C.
template <class Input, class C = Count, class Points, class F, class Bins>
std::vector<C> run_histogram(pair_set<Points> const& pairs, F const& f, Bins const& bins, bool ordered,
                             windows_layout windows = {})
{
  using kernel = detail::privatized_kernel<Input, Points, detail::tile_formed<F>, Bins, C, detail::window_mode::none>;
  int const slots = bins.size() + 1;
  auto counts     = tbt::poisoned<C>(slots);
  std::size_t const counter_bytes = Points::weighted ? sizeof(C) : sizeof(unsigned);
  detail::privatized_plan layout  = detail::plan_privatized(slots, 32, counter_bytes, kernel::dynamic_smem_limit());
  if (windows.passes > 1) {
    layout.copies = 1;
    layout.passes = windows.passes;
    layout.window = std::max((slots + windows.passes - 1) / windows.passes, static_cast<int>(windows.window_share * slots));
    layout.smem   = (static_cast<std::size_t>(layout.window) + detail::window_spare_counters) * counter_bytes;
  }
  if (ordered) {
    // As the one-call form orders (sub-tiles for the minimum image's forms and for passes).
    int const sub_tiles = detail::ordered_sub_tiles<Input, F>(layout.passes);
    detail::tile_ordered_pairs<Points> const o(pairs, detail::tile_points_v<Input>, sub_tiles, 0);
    detail::launch_privatized<Input>(o.pairs(), detail::tile_formed<F>(f), bins, thrust::raw_pointer_cast(counts.data()), layout, 0, detail::result_mirror<C>{},
                                     o.boxes_a(), o.boxes_b(), o.sub_tiles());
  } else {
    detail::launch_privatized<Input>(pairs, f, bins, thrust::raw_pointer_cast(counts.data()), layout, 0);
  }
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  return to_host<C, C>(counts);
}

/// Float points uniform in [0, L)^3 with some on the faces (0 and the float below L), pairs
/// exactly L/2 apart on an axis, repeated points and a few NaN coordinates.
void awkward_points(std::int64_t n, float L, unsigned seed, std::vector<float> (&c)[3])
{
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, L);
  for (auto& v : c) { v.resize(n); }
  for (std::int64_t i = 0; i < n; ++i) {
    for (int d = 0; d < 3; ++d) { c[d][i] = std::min(u(rng), std::nextafter(L, 0.f)); }
    switch (i % 97) {
      case 1: c[0][i] = 0.f; break;
      case 2: c[1][i] = std::nextafter(L, 0.f); break;
      case 3: c[2][i] = std::fmod(c[2][i - 1] + L / 2, L); break;  // half a box from the previous point
      case 4: c[0][i] = c[0][i - 2], c[1][i] = c[1][i - 2], c[2][i] = c[2][i - 2]; break;
      default: break;
    }
    if (i % 4099 == 5) { c[i % 3][i] = std::nanf(""); }
  }
}

/// awkward_points on the host and on the device.
struct awkward_cloud {
  std::vector<float> c[3];
  thrust::device_vector<float> dc[3];
  std::int64_t n;
  awkward_cloud(std::int64_t n_, float L, unsigned seed) : n(n_)
  {
    awkward_points(n, L, seed, c);
    for (int d = 0; d < 3; ++d) { dc[d] = c[d]; }
  }
  points<float, 3> view() const
  {
    points<float, 3> p;
    for (int d = 0; d < 3; ++d) { p.coords[d] = thrust::raw_pointer_cast(dc[d].data()); }
    p.size = n;
    return p;
  }
  points<float, 3> host_view() const
  {
    points<float, 3> p;
    for (int d = 0; d < 3; ++d) { p.coords[d] = c[d].data(); }
    p.size = n;
    return p;
  }
};

}  // namespace

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

// Float data of side L (faces, half-box pairs, repeated points, NaN): f on ordered tiles with
// its forms gives the general kernel's counts bit for bit, self and cross, for each of `bins`.
template <class F>
void expect_forms_equal_the_general_kernel(F const& f, float L, std::initializer_list<distance_bins<float>> bins_list,
                                           unsigned seed)
{
  using Input          = input::shared_tile<128, 2>;
  std::int64_t const n = 60000;
  awkward_cloud const ca(n, L, seed), cb(n / 2 + 7, L, seed + 1);
  points<float, 3> const a = ca.view(), b = cb.view();
  for (pair_mode m : {pair_mode::self, pair_mode::cross}) {
    for (distance_bins<float> const& bins : bins_list) {
      auto const pairs = tbt::make_pairs(m, a, b);
      auto const got   = run_histogram<Input>(pairs, f, bins, true);
      auto const want  = run_histogram<Input>(pairs, f, bins, false);
      EXPECT_EQ(got, want) << tbt::mode_name(m) << " " << bins.r_max;
      EXPECT_EQ(run_histogram<Input>(pairs, f, bins, true, windows_layout{3, 0.5}), want) << "3 passes " << tbt::mode_name(m);
      for (std::size_t k = 0, shown = 0; k < got.size() && shown < 8; ++k) {
        if (got[k] != want[k]) { ADD_FAILURE() << "slot " << k << ": " << got[k] << " != " << want[k], ++shown; }
      }
      Count total = 0;
      for (Count c : got) { total += c; }
      EXPECT_EQ(total, static_cast<Count>(pairs.count()));
    }
  }
}

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
