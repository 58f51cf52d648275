// What the GPU tests of tile forms check with: the one-call or explicit histogram of points ordered
// into compact tiles or not, and point clouds with points on tile and box borders.
#pragma once

#include "common.cuh"

#include <algorithm>
#include <array>
#include <cstring>
#include <initializer_list>
#include <cmath>
#include <random>

using namespace twobody;
using Count = unsigned long long;

namespace tbt_tiles {

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
inline void awkward_points(std::int64_t n, float L, unsigned seed, std::vector<float> (&c)[3])
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

}  // namespace tbt_tiles

using namespace tbt_tiles;
