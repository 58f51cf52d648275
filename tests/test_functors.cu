// Ready-made functors on the host (the same code runs on the device).
#include "common.cuh"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using twobody::point;

TEST(Functors, EuclideanAndSquared)
{
  point<float, 3> a{{1.f, 2.f, 3.f}}, b{{4.f, 6.f, 3.f}};
  EXPECT_EQ(twobody::squared_euclidean{}(a, b), 25.f);
  EXPECT_EQ(twobody::euclidean{}(a, b), 5.f);
  point<double, 1> c{{-2.0}}, d{{5.0}};
  EXPECT_EQ(twobody::euclidean{}(c, d), 7.0);
  point<double, 5> e{{1, 1, 1, 1, 1}}, z{{0, 0, 0, 0, 0}};
  EXPECT_EQ(twobody::squared_euclidean{}(e, z), 5.0);
}

TEST(Functors, PeriodicMinimumImage)
{
  auto f = twobody::make_periodic_euclidean(10.f, 10.f, 10.f);
  point<float, 3> a{{0.5f, 0.f, 9.f}}, b{{9.5f, 0.f, 1.f}};
  // dx = 9 -> 1 across the boundary, dz = 8 -> 2.
  EXPECT_FLOAT_EQ(f(a, b), std::sqrt(1.f + 4.f));
  auto g = twobody::make_periodic_squared_euclidean(10.0, 4.0);
  point<double, 2> c{{1.0, 0.0}}, d{{6.0, 3.0}};
  EXPECT_EQ(g(c, d), 25.0 + 1.0);  // dx = 5 (half box, either image), dy = 3 -> 1
  EXPECT_THROW(twobody::make_periodic_euclidean(10.f, 0.f, 1.f), twobody::error);
  EXPECT_THROW(twobody::make_periodic_euclidean(std::nanf(""), 1.f, 1.f), twobody::error);
}

TEST(Functors, AngularSeparation)
{
  point<double, 3> x{{1, 0, 0}}, y{{0, 1, 0}}, mx{{-1, 0, 0}};
  twobody::angular_separation ang;
  EXPECT_NEAR(ang(x, y), M_PI / 2, 1e-15);
  EXPECT_NEAR(ang(x, mx), M_PI, 1e-15);
  EXPECT_EQ(ang(x, x), 0.0);
  double const t = 1e-9;  // tiny angles stay accurate with atan2
  point<double, 3> u{{std::cos(t), std::sin(t), 0}};
  EXPECT_NEAR(ang(x, u), t, 1e-20);
}

TEST(Functors, DotProductAndWithinRadius)
{
  point<float, 3> a{{1.f, 2.f, 3.f}}, b{{4.f, -5.f, 6.f}};
  EXPECT_EQ(twobody::dot_product{}(a, b), 4.f - 10.f + 18.f);
  auto w = twobody::within_radius(5.f);
  point<float, 3> o{{0.f, 0.f, 0.f}}, p{{3.f, 4.f, 0.f}}, q{{3.f, 3.9f, 0.f}};
  EXPECT_FALSE(w(o, p));  // |p| = 5 is not < 5
  EXPECT_TRUE(w(o, q));
  EXPECT_THROW(twobody::within_radius(-1.f), twobody::error);
  EXPECT_THROW(twobody::within_radius(std::nanf("")), twobody::error);
}

TEST(Functors, RpPiSeparation)
{
  point<float, 3> a{{0.f, 0.f, 10.f}}, b{{3.f, 4.f, 2.f}};
  auto v = twobody::rp_pi_separation{}(a, b);
  EXPECT_EQ(v[0], 5.f);
  EXPECT_EQ(v[1], 8.f);
}

// Tile forms of the minimum image (math/tile_forms.cuh): for points in two boxes, the form
// chosen from the boxes gives the functor's bits for every pair, either order, and the lower
// bound is below every value. Boxes sit near half a box apart, where the image flips, and are
// the points' own bounds (tight, as the GPU computes them).
template <class T>
void check_tile_forms(unsigned seed)
{
  using namespace twobody;
  std::mt19937 rng(seed);
  T const L[3] = {T(10), T(7.5), T(13)};
  periodic_squared_euclidean<T, 3> const f{{L[0], L[1], L[2]}};
  std::uniform_real_distribution<T> unit(T(0), T(1));
  int kinds[3] = {0, 0, 0};
  for (int trial = 0; trial < 400; ++trial) {
    point<T, 3> a[24], b[24];
    detail::tile_box<T, 3> ba, bb;
    for (int d = 0; d < 3; ++d) {
      // Box widths from tiny to a third of the side; centres anywhere, often about L/2 apart.
      T const wa = L[d] * unit(rng) / 3, wb = L[d] * unit(rng) / 3;
      T const ca = L[d] * unit(rng);
      T const cb = trial % 2 == 0 ? std::fmod(ca + L[d] / 2 + (unit(rng) - T(0.5)) * (wa + wb), L[d]) : L[d] * unit(rng);
      ba.lo[d] = bb.lo[d] = std::numeric_limits<T>::infinity();
      ba.hi[d] = bb.hi[d] = -std::numeric_limits<T>::infinity();
      for (int i = 0; i < 24; ++i) {
        a[i].x[d] = std::clamp(ca + (unit(rng) - T(0.5)) * wa, T(0), std::nextafter(L[d], T(0)));
        b[i].x[d] = std::clamp(cb + (unit(rng) - T(0.5)) * wb, T(0), std::nextafter(L[d], T(0)));
        ba.lo[d] = std::min(ba.lo[d], a[i].x[d]), ba.hi[d] = std::max(ba.hi[d], a[i].x[d]);
        bb.lo[d] = std::min(bb.lo[d], b[i].x[d]), bb.hi[d] = std::max(bb.hi[d], b[i].x[d]);
      }
    }
    auto const form = detail::tile_form_of(f, ba, bb);
    ++kinds[static_cast<int>(form.kind)];
    for (int i = 0; i < 24; ++i) {
      for (int j = 0; j < 24; ++j) {
        for (int order = 0; order < 2; ++order) {
          point<T, 3> const& p = order == 0 ? a[i] : b[j];
          point<T, 3> const& q = order == 0 ? b[j] : a[i];
          T const want = f(p, q);
          EXPECT_LE(form.lower, want) << trial;
          EXPECT_TRUE(form.bounded) << trial;
          EXPECT_GE(form.upper, want) << trial;
          if (form.kind == detail::tile_form_kind::direct) { EXPECT_EQ(typename decltype(form)::direct{}(p, q), want) << trial; }
          if (form.kind == detail::tile_form_kind::fixed) { EXPECT_EQ(form.images(p, q), want) << trial; }
        }
      }
    }
  }
  // Every form occurs (the data would otherwise not test them).
  EXPECT_GT(kinds[0], 20);
  EXPECT_GT(kinds[1], 20);
  EXPECT_GT(kinds[2], 20);
}

TEST(Functors, PeriodicTileFormsAreExact)
{
  check_tile_forms<float>(3);
  check_tile_forms<double>(4);
}

TEST(Functors, PeriodicTileFormsRefuseUnknownBoxes)
{
  using namespace twobody;
  periodic_squared_euclidean<float, 2> const f{{10.f, 10.f}};
  float const inf = std::numeric_limits<float>::infinity();
  detail::tile_box<float, 2> const near{{1.f, 1.f}, {2.f, 2.f}};
  detail::tile_box<float, 2> const empty{{inf, 1.f}, {-inf, 2.f}};  // an axis of NaN coordinates only
  detail::tile_box<float, 2> const wide{{-inf, 1.f}, {2.f, 2.f}};
  EXPECT_EQ(detail::tile_form_of(f, near, near).kind, detail::tile_form_kind::direct);
  detail::tile_box<float, 2> const with_nan{{1.f, 1.f}, {2.f, inf}};  // tile_boxes_kernel's mark of a NaN
  for (auto const& b : {empty, wide, with_nan}) {
    auto const form = detail::tile_form_of(f, near, b);
    EXPECT_EQ(form.kind, detail::tile_form_kind::general);
    EXPECT_EQ(form.lower, 0.f);
    EXPECT_FALSE(form.bounded);
    EXPECT_FALSE(detail::tile_form_of(squared_euclidean{}, near, b).bounded);
  }
  // distance_bins sends everything from r_max^2 (1 + 2^-9) on to the outside slot.
  distance_bins<float> const bins(5.f, 50);
  float const from = detail::values_outside_from(bins);
  EXPECT_GT(from, 25.f);
  EXPECT_EQ(bins(from), 50);
  EXPECT_EQ(bins(24.f), 48);
}

// 16 points each in two random boxes (centres in [0, reach)^3, widths below `width` per axis),
// and the boxes.
struct random_tile_pair {
  twobody::point<float, 3> a[16], b[16];
  twobody::detail::tile_box<float, 3> ba, bb;
  random_tile_pair(std::mt19937& rng, float reach, float width)
  {
    std::uniform_real_distribution<float> unit(0.f, 1.f);
    for (int d = 0; d < 3; ++d) {
      float const ca = reach * unit(rng), cb = reach * unit(rng), wa = width * unit(rng), wb = width * unit(rng);
      ba.lo[d] = bb.lo[d] = std::numeric_limits<float>::infinity();
      ba.hi[d] = bb.hi[d] = -std::numeric_limits<float>::infinity();
      for (int i = 0; i < 16; ++i) {
        a[i].x[d] = ca + (unit(rng) - 0.5f) * wa, b[i].x[d] = cb + (unit(rng) - 0.5f) * wb;
        ba.lo[d] = std::min(ba.lo[d], a[i].x[d]), ba.hi[d] = std::max(ba.hi[d], a[i].x[d]);
        bb.lo[d] = std::min(bb.lo[d], b[i].x[d]), bb.hi[d] = std::max(bb.hi[d], b[i].x[d]);
      }
    }
  }
};

// squared_euclidean's tile bounds (its one form is itself): lower <= every pair's value <=
// upper, either order, boxes anywhere from overlapping to far apart.
TEST(Functors, SquaredDistanceTileBounds)
{
  using namespace twobody;
  std::mt19937 rng(7);
  int disjoint = 0;
  for (int trial = 0; trial < 400; ++trial) {
    random_tile_pair const t(rng, 100.f, 30.f);
    auto const& a = t.a;
    auto const& b = t.b;
    auto const& ba = t.ba;
    auto const& bb = t.bb;
    auto const form = detail::tile_form_of(squared_euclidean{}, ba, bb);
    ASSERT_TRUE(form.bounded);
    disjoint += form.lower > 0.f ? 1 : 0;
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 16; ++j) {
        float const ab = squared_euclidean{}(a[i], b[j]), ba_ = squared_euclidean{}(b[j], a[i]);
        EXPECT_LE(form.lower, std::min(ab, ba_)) << trial;
        EXPECT_GE(form.upper, std::max(ab, ba_)) << trial;
      }
    }
  }
  EXPECT_GT(disjoint, 100);  // the lower bound is not always 0
}

// distance_bins' slots without the clamp (tile_forms.cuh): up to values_inside_to(bins) the
// same slot as bins(s), and that threshold stays below r_max^2; past r_max^2 (1 + 2^-9) every
// value is outside.
TEST(Functors, DistanceBinsInsideSlots)
{
  using namespace twobody;
  for (auto const& bins : {distance_bins<float>(5.f, 50), distance_bins<float>(173.3f, 256), distance_bins<float>(1.f, 1 << 22)}) {
    float const to = detail::values_inside_to(bins);
    EXPECT_LT(to, bins.r_max * bins.r_max);
    EXPECT_LT(bins(to), bins.size());
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(0.f, to);
    for (int k = 0; k < 20000; ++k) {
      float const s = k == 0 ? to : (k == 1 ? 0.f : u(rng));
      ASSERT_EQ(detail::inside_slot(bins, s), bins(s)) << s;
    }
  }
}

// distance_bins' slot bounds (tile_forms.cuh): every value in [lower, upper] has its slot in
// [lo, hi]; an unbounded range or one past values_inside_to reaches the outside slot, and one
// past values_outside_from is only the outside slot.
TEST(Functors, DistanceBinsSlotBounds)
{
  using namespace twobody;
  for (auto const& bins : {distance_bins<float>(5.f, 50), distance_bins<float>(173.3f, 65536), distance_bins<float>(1.f, 1 << 22)}) {
    int const n = bins.size();
    float const r2 = bins.r_max * bins.r_max;
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(0.f, 1.2f * r2);
    for (int k = 0; k < 20000; ++k) {
      float lower = u(rng), upper = u(rng);
      if (lower > upper) { std::swap(lower, upper); }
      detail::slot_bounds const b = detail::slot_bounds_of(bins, lower, upper, true);
      ASSERT_LE(b.lo, b.hi);
      for (float s : {lower, upper, 0.5f * (lower + upper)}) {
        ASSERT_LE(b.lo, bins(s)) << s;
        ASSERT_GE(b.hi, bins(s)) << s;
      }
      EXPECT_EQ(detail::slot_bounds_of(bins, lower, upper, false).hi, n);
      if (upper <= detail::values_inside_to(bins)) {
        ASSERT_LT(b.hi, n);
        ASSERT_LE(b.hi - b.lo, bins(upper) - bins(lower) + 4 + n / 65536);  // a slot and 2^-18 of margin each way
      }
    }
    detail::slot_bounds const past = detail::slot_bounds_of(bins, detail::values_outside_from(bins), 2 * r2, true);
    EXPECT_EQ(past.lo, n);
    EXPECT_EQ(past.hi, n);
  }
}

// uniform_bins' slot bounds (tile_forms.cuh): every value in [lower, upper] has its slot in
// [lo, hi]; a range that may leave [lo, hi) of the bins (or is unbounded) reaches the outside
// slot, one wholly past the last edge is only the outside slot, and inside ranges are tight to
// a slot and 2^-18 each way.
TEST(Functors, UniformBinsSlotBounds)
{
  using namespace twobody;
  for (auto const& bins : {uniform_bins<float>(0.f, 100.f, 256), uniform_bins<float>(-3.5f, 7.25f, 1000),
                           uniform_bins<float>(2.f, 1000.f, 1 << 20)}) {
    int const n       = bins.size();
    float const width = bins.hi - bins.lo;
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(bins.lo - 0.2f * width, bins.hi + 0.2f * width), t(0.f, 1.f);
    int inside = 0;
    for (int k = 0; k < 20000; ++k) {
      float lower = u(rng), upper = u(rng);
      if (lower > upper) { std::swap(lower, upper); }
      detail::slot_bounds const b = detail::slot_bounds_of(bins, lower, upper, true);
      ASSERT_LE(b.lo, b.hi);
      for (float x : {lower, upper, 0.5f * (lower + upper), lower + t(rng) * (upper - lower)}) {
        ASSERT_LE(b.lo, bins(x)) << lower << " " << upper << " " << x;
        ASSERT_GE(b.hi, bins(x)) << lower << " " << upper << " " << x;
      }
      EXPECT_EQ(detail::slot_bounds_of(bins, lower, upper, false).hi, n);
      if (lower >= bins.lo && bins(upper) < n && upper < bins.hi - 2 * width / n) {
        ++inside;
        ASSERT_LT(b.hi, n) << lower << " " << upper;
        ASSERT_LE(b.hi - b.lo, bins(upper) - bins(lower) + 4 + n / 65536);
      }
    }
    EXPECT_GT(inside, 1000);
    detail::slot_bounds const past = detail::slot_bounds_of(bins, bins.hi + 0.01f * width, bins.hi + width, true);
    EXPECT_EQ(past.lo, n);
    EXPECT_EQ(past.hi, n);
  }
}

// rp_pi_separation's tile bounds and bins_2d's slot bounds from them: every pair of two boxes
// (either order) has r_p and pi within the bounds, and its slot in bins_2d of two uniform_bins
// (two shapes, one with r_p from 1) within the slot bounds; boxes anywhere from
// overlapping to far apart, some past the bins' range.
TEST(Functors, RpPiTileBoundsAndSlots)
{
  using namespace twobody;
  auto const square = make_bins_2d(uniform_bins<float>(0.f, 100.f, 64), uniform_bins<float>(0.f, 60.f, 50));
  auto const mixed  = make_bins_2d(uniform_bins<float>(1.f, 80.f, 300), uniform_bins<float>(0.f, 40.f, 7));
  std::mt19937 rng(13);
  int narrow = 0, outside = 0;
  for (int trial = 0; trial < 600; ++trial) {
    random_tile_pair const t(rng, 120.f, 25.f);
    auto const form = detail::tile_form_of(rp_pi_separation{}, t.ba, t.bb);
    ASSERT_TRUE(form.bounded);
    detail::slot_bounds const sq = detail::slot_bounds_of(square, form.lower, form.upper, form.bounded);
    detail::slot_bounds const mx = detail::slot_bounds_of(mixed, form.lower, form.upper, form.bounded);
    narrow += sq.hi < square.size() && sq.hi - sq.lo < square.size() / 2 ? 1 : 0;
    outside += sq.lo == square.size() ? 1 : 0;
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 16; ++j) {
        for (auto const& v : {rp_pi_separation{}(t.a[i], t.b[j]), rp_pi_separation{}(t.b[j], t.a[i])}) {
          EXPECT_LE(form.lower[0], v[0]) << trial;
          EXPECT_LE(form.lower[1], v[1]) << trial;
          EXPECT_GE(form.upper[0], v[0]) << trial;
          EXPECT_GE(form.upper[1], v[1]) << trial;
          EXPECT_LE(sq.lo, square(v)) << trial;
          EXPECT_GE(sq.hi, square(v)) << trial;
          EXPECT_LE(mx.lo, mixed(v)) << trial;
          EXPECT_GE(mx.hi, mixed(v)) << trial;
        }
      }
    }
  }
  EXPECT_GT(narrow, 50);   // the bounds narrow the slots for many tile pairs
  EXPECT_GT(outside, 20);  // and put some wholly outside
}

// One-pass privatized histograms of functors with tile forms (detail::tile_formed, the one-call
// kernels on points ordered into tiles) take every gridDim.x-th tile pair (strided_units): there
// the forms make tile pairs cost unevenly along the schedule, and equal contiguous ranges of them
// left SMs idle (periodic RDF at 2^20 points: 2.03 against 2.38 T pairs/s on an H200,
// benchmarks/results/strided-forms-*). The kernels of the functors as given keep the static split.
TEST(Functors, FormedHistogramsTakeStridedUnits)
{
  using namespace twobody;
  using pts      = points<float, 3>;
  using in       = input::shared_tile<256, 8>;
  using mode     = detail::window_mode;
  using periodic = decltype(make_periodic_squared_euclidean(1.f, 1.f, 1.f));
  using rdf      = detail::privatized_kernel<in, pts, detail::tile_formed<periodic>, distance_bins<float>, unsigned long long, mode::none>;
  using sdh      = detail::privatized_kernel<in, pts, detail::tile_formed<squared_euclidean>, distance_bins<float>, unsigned long long, mode::none>;
  using plain    = detail::privatized_kernel<in, pts, periodic, distance_bins<float>, unsigned long long, mode::none>;
  using naive    = detail::privatized_kernel<input::naive<256>, pts, detail::tile_formed<periodic>, distance_bins<float>, unsigned long long, mode::none>;
  EXPECT_TRUE(detail::has_tile_forms_v<detail::tile_formed<periodic>>);
  EXPECT_TRUE((std::is_same_v<rdf::source, detail::strided_units>));
  EXPECT_TRUE((std::is_same_v<sdh::source, detail::strided_units>));
  EXPECT_TRUE((std::is_same_v<plain::source, detail::static_units>));
  EXPECT_TRUE((std::is_same_v<naive::source, detail::static_units>));  // not tiled: no tile pairs to stride
}
