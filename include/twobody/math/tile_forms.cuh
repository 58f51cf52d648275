/// \file tile_forms.cuh
/// \brief Cheaper exact forms of a pair functor for a tile pair whose points lie in known boxes
/// (the periodic RDF at nearly the open box's speed).
///
/// The minimum image min(|dx|, L - |dx|) costs an FADD and an FMNMX per axis and pair. When the
/// boxes of a tile pair show that every pair of it takes the same branch of the min on an axis,
/// the pair needs no min there:
///  - `direct`: |dx| <= L - |dx| on every axis, for every pair: the open-box squared distance;
///  - `fixed`: on every axis either branch is the same for every pair: (c - |dx|)^2 with c = 0
///    or c = L per axis (0 - |dx| is -|dx| exactly, so the square is the same);
///  - `general`: the functor itself.
/// The tests are made with the functor's own float operations on the boxes' corners: rounding is
/// monotone, so a bound computed from the corners bounds what each pair computes, and every
/// form returns the same bits as the functor (no margin, no approximation).
///
/// The same bounds give a lower and an upper bound of every pair's value: a histogram whose bin
/// map sends every value past a threshold to its outside slot (distance_bins) counts a tile pair
/// whose lower bound is past it without visiting its pairs (values_outside_from below), and one
/// whose upper bound is inside the bins takes each pair's slot without the clamp (values_inside_to;
/// both thresholds have a margin). `squared_euclidean` has only these bounds (its one form is
/// itself): the SDH's pairs then cost one instruction less.
#pragma once

#include <twobody/binning.cuh>
#include <twobody/functors.cuh>
#include <twobody/points.cuh>

#include <cuda/std/cmath>
#include <cuda/std/type_traits>

namespace twobody::detail {

/// The bounding box of a tile's points. An axis with a NaN coordinate has hi = +inf, one without
/// a finite coordinate lo > hi or infinite ends: such an axis is unknown, and then no form but
/// the general one is taken, and no bound but lower = 0.
template <class T, int D>
struct tile_box {
  T lo[D];
  T hi[D];
};

enum class tile_form_kind : int { general, direct, fixed };

/// The minimum image with the branch of each axis fixed: sum over axes of (c[d] - |a - b|)^2,
/// c[d] = 0 or box[d] (see the file comment).
template <class T, int D>
struct fixed_images {
  T c[D];
  __host__ __device__ T operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    T s = T(0);
TWOBODY_UNROLL
    for (int d = 0; d < D; ++d) {
      T const dd = c[d] - abs_of(a.x[d] - b.x[d]);
      s          = dd * dd + s;
    }
    return s;
  }
};

/// The open-box squared distance in the minimum image's own operation order (a sum from +0 in
/// axis order, each term one fma): squared_euclidean starts from the first product, and the
/// compiler may then fuse either product into the first add, which rounds differently.
template <class T, int D>
struct open_image {
  __host__ __device__ T operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    T s = T(0);
TWOBODY_UNROLL
    for (int d = 0; d < D; ++d) {
      T const t = a.x[d] - b.x[d];
      s         = t * t + s;
    }
    return s;
  }
};

/// A tile pair's form and bounds of every value its pairs give (upper only where `bounded`:
/// every axis known, so no pair has a NaN or an infinite coordinate). `Images`: whether the
/// functor has forms other than itself (the minimum image's direct and fixed ones). V: the
/// functor's value (bounds per component for a point, as rp_pi_separation's {r_p, pi}).
template <class T, int D, bool Images = true, class V = T>
struct tile_form {
  static constexpr bool images_v = Images;
  using direct = open_image<T, D>;  ///< the form of tile_form_kind::direct
  tile_form_kind kind = tile_form_kind::general;
  fixed_images<T, D> images{};
  V lower{};
  V upper{};
  bool bounded = false;
};

/// Per axis, every pair's a - b lies in [lo, hi] = [a.lo - b.hi, a.hi - b.lo] (and b - a in
/// [-hi, -lo]; float rounding is monotone): |a - b| in [tmin, tmax] where the axis is known.
template <class T>
struct axis_reach {
  bool known;
  T tmin, tmax;
};
template <class T, int D>
__host__ __device__ inline axis_reach<T> axis_reach_of(tile_box<T, D> const& a, tile_box<T, D> const& b, int d)
{
  T const lo = a.lo[d] - b.hi[d];
  T const hi = a.hi[d] - b.lo[d];
  axis_reach<T> r;
  r.known = cuda::std::isfinite(lo) && cuda::std::isfinite(hi) && lo <= hi;
  r.tmax  = abs_of(lo) > abs_of(hi) ? abs_of(lo) : abs_of(hi);
  r.tmin  = (lo <= T(0) && hi >= T(0)) ? T(0) : min_of(abs_of(lo), abs_of(hi));
  return r;
}

/// Functors with cheaper exact forms for tile pairs with known boxes (tile_form_of below).
template <class F>
struct has_form_rules : cuda::std::false_type {};
template <class T, int D>
struct has_form_rules<periodic_squared_euclidean<T, D>> : cuda::std::true_type {};
template <>
struct has_form_rules<squared_euclidean> : cuda::std::true_type {};
template <>
struct has_form_rules<rp_pi_separation> : cuda::std::true_type {};
template <class F>
inline constexpr bool has_form_rules_v = has_form_rules<F>::value;

/// F whose kernels take the tile forms (given boxes; the general form without them). A type
/// of its own so that F's kernels stay as they were: the forms' three loops cost the 2048-point
/// tile's kernel 24 registers and an SM half its blocks.
template <class F>
struct tile_formed : F {
  tile_formed() = default;
  __host__ __device__ explicit tile_formed(F const& f) : F(f) {}
};

template <class F>
struct has_tile_forms : cuda::std::false_type {};
template <class F>
struct has_tile_forms<tile_formed<F>> : has_form_rules<F> {};

/// Whether F's kernels take the cheapest form per tile pair (visitors.cuh, tile_traversal.cuh).
template <class F>
inline constexpr bool has_tile_forms_v = has_tile_forms<F>::value;

/// Functors whose forms go past bounds (the minimum image's direct and fixed forms): their
/// kernels also choose forms per warp and column sub-tile (tile_traversal.cuh), where smaller
/// boxes give more pairs the cheaper forms. The squared distance's bounds gain little there
/// (nearly every SDH tile pair is inside already), and the loops would cost its kernel an SM's
/// second block.
template <class F>
struct has_sub_tile_forms : cuda::std::false_type {};
template <class T, int D>
struct has_sub_tile_forms<periodic_squared_euclidean<T, D>> : cuda::std::true_type {};
template <class F>
struct has_sub_tile_forms<tile_formed<F>> : has_sub_tile_forms<F> {};
template <class F>
inline constexpr bool has_sub_tile_forms_v = has_sub_tile_forms<F>::value;

/// What a pair of a tile pair whole in a window of passes over the bins (output/
/// privatized_histogram.cuh, enter_tile_pair) costs with F, relative to squared_euclidean's
/// there (model::choose_ordered_passes). The minimum image takes its sub-tile forms with the
/// window's test on most of them, in kernels of one block per SM: 1.95 (fitted to bench_bins
/// rdf/bins:{65536,262144}/ordered_passes* against the SDH's on the H100). F = void: 1.
template <class F>
inline constexpr double whole_window_cost_v = has_sub_tile_forms_v<F> ? 1.95 : 1.0;

/// The form of periodic_squared_euclidean for pairs (a, b) or (b, a) with a in box `a` and b in
/// box `b`.
template <class T, int D>
__host__ __device__ tile_form<T, D> tile_form_of(periodic_squared_euclidean<T, D> const& f, tile_box<T, D> const& a,
                                                 tile_box<T, D> const& b)
{
  tile_form<T, D> form;
  bool all_direct = true, all_fixed = true, all_known = true;
  T s = T(0), u = T(0);
TWOBODY_UNROLL
  for (int d = 0; d < D; ++d) {
    T const L              = f.box[d];
    axis_reach<T> const ax = axis_reach_of(a, b, d);
    bool const direct  = ax.known && ax.tmax <= L - ax.tmax;  // min(|dx|, L - |dx|) = |dx| for every pair
    bool const wrapped = ax.known && ax.tmin >= L - ax.tmin;  // ... = L - |dx| for every pair
    all_direct         = all_direct && direct;
    all_fixed          = all_fixed && (direct || wrapped);
    all_known          = all_known && ax.known;
    form.images.c[d]   = wrapped ? L : T(0);
    // Each pair's term min(|dx|, L - |dx|) is >= min(tmin, L - tmax) (squared if >= 0) and
    // <= min(tmax, L - tmin).
    T const low  = ax.known ? min_of(ax.tmin, L - ax.tmax) : T(0);
    T const term = low > T(0) ? low : T(0);
    s            = term * term + s;
    T const high = min_of(ax.tmax, L - ax.tmin);
    u            = high * high + u;
  }
  form.kind    = all_direct ? tile_form_kind::direct : (all_fixed ? tile_form_kind::fixed : tile_form_kind::general);
  form.lower   = s;
  form.upper   = u;
  form.bounded = all_known;
  return form;
}

/// The bounds of squared_euclidean for pairs of box `a` and box `b` (its one form is itself).
template <class T, int D>
__host__ __device__ tile_form<T, D, false> tile_form_of(squared_euclidean const&, tile_box<T, D> const& a,
                                                        tile_box<T, D> const& b)
{
  tile_form<T, D, false> form;
  bool all_known = true;
  T s = T(0), u = T(0);
TWOBODY_UNROLL
  for (int d = 0; d < D; ++d) {
    axis_reach<T> const ax = axis_reach_of(a, b, d);
    all_known              = all_known && ax.known;
    T const low            = ax.known ? ax.tmin : T(0);
    s                      = low * low + s;
    u                      = ax.tmax * ax.tmax + u;
  }
  form.lower   = s;
  form.upper   = u;
  form.bounded = all_known;
  return form;
}

/// The bounds of rp_pi_separation's {r_p, pi} for pairs of box `a` and box `b` (its one form is
/// itself): r_p from the first D - 1 axes' reaches, summed and rooted in the functor's own order,
/// pi from the last axis' (float rounding and the square root are monotone).
template <class T, int D>
__host__ __device__ tile_form<T, D, false, point<T, 2>> tile_form_of(rp_pi_separation const&, tile_box<T, D> const& a,
                                                                     tile_box<T, D> const& b)
{
  static_assert(D >= 2, "rp_pi_separation needs at least 2 dimensions");
  tile_form<T, D, false, point<T, 2>> form;
  bool all_known = true;
  T s = T(0), u = T(0);
TWOBODY_UNROLL
  for (int d = 0; d < D - 1; ++d) {
    axis_reach<T> const ax = axis_reach_of(a, b, d);
    all_known              = all_known && ax.known;
    T const low            = ax.known ? ax.tmin : T(0);
    s                      = low * low + s;
    u                      = ax.tmax * ax.tmax + u;
  }
  axis_reach<T> const z = axis_reach_of(a, b, D - 1);
  form.lower   = point<T, 2>{{sqrt_of(s), z.known ? z.tmin : T(0)}};
  form.upper   = point<T, 2>{{sqrt_of(u), z.tmax}};
  form.bounded = all_known && z.known;
  return form;
}

/// Bin maps that send every value >= a threshold to their outside slot: `values_outside_from`
/// gives it. distance_bins: approx_sqrt(s) * inv_width >= n for s >= r_max^2 (1 + 2^-9); the
/// margin covers the approximate square root and the rounding of inv_width and r_max^2 many
/// times over (each is within a few ulps, 2^-21 relative).
template <class Binning>
struct has_outside_threshold : cuda::std::false_type {};
template <class T>
struct has_outside_threshold<distance_bins<T>> : cuda::std::true_type {};

template <class T>
__host__ __device__ inline T values_outside_from(distance_bins<T> const& bins)
{
  return bins.r_max * bins.r_max * (T(1) + T(1) / T(512));
}

/// Bin maps whose slot needs no clamp for values in [0, values_inside_to(bins)] (not NaN):
/// inside_slot(bins, v) gives bins(v) there. distance_bins: for s <= r_max^2 (1 - 2^-9),
/// approx_sqrt(s) * inv_width < n by the same margin as above, and s >= 0 gives a slot >= 0.
template <class Binning>
struct has_inside_threshold : cuda::std::false_type {};
template <class T>
struct has_inside_threshold<distance_bins<T>> : cuda::std::true_type {};

template <class T>
__host__ __device__ inline T values_inside_to(distance_bins<T> const& bins)
{
  return bins.r_max * bins.r_max * (T(1) - T(1) / T(512));
}
template <class T>
__host__ __device__ inline int inside_slot(distance_bins<T> const& bins, T squared_distance)
{
  return floor_bin_inside(approx_sqrt(squared_distance), bins.inv_width);
}
/// inside_slot plus inside_slot_bias (mod 2^32), for agents that fold the bias into an address.
template <class T>
__host__ __device__ inline unsigned inside_slot_biased(distance_bins<T> const& bins, T squared_distance)
{
  return floor_bin_biased(approx_sqrt(squared_distance), bins.inv_width);
}
template <class T>
__host__ __device__ constexpr unsigned inside_slot_bias(distance_bins<T> const&)
{
  return floor_bin_bias<T>();
}

/// Bin maps that bound the slots of values in [lower, upper] (upper only where `bounded`):
/// slot_bounds_of gives lo <= every such value's slot <= hi, with a margin of a slot and 2^-18
/// (relative) each way past the exact bounds, 16 times the approximate square root's few ulps
/// (2^-22) and the roundings of inv_width and the product. Values past values_inside_to (or unbounded) may reach the outside slot: hi = size().
/// Passes over windows of the bins (output/privatized_histogram.cuh) visit a tile pair only in
/// the passes that count one of these slots.
template <class Binning>
struct has_slot_bounds : cuda::std::false_type {};
template <class T>
struct has_slot_bounds<distance_bins<T>> : cuda::std::true_type {};

struct slot_bounds {
  int lo;
  int hi;
};
template <class T>
__host__ __device__ inline slot_bounds slot_bounds_of(distance_bins<T> const& bins, T lower, T upper, bool bounded)
{
  using cuda::std::sqrt;
  int const n = bins.size();
  slot_bounds b{0, n};
  if (lower >= values_outside_from(bins)) {
    b.lo = n;
  } else if (lower > T(0)) {  // (a NaN bound, never made by the boxes, would keep 0)
    int const k = static_cast<int>(sqrt(lower) * bins.inv_width * (T(1) - T(1) / T(262144)));
    b.lo        = k > n ? n : (k > 1 ? k - 1 : 0);
  }
  if (bounded && upper <= values_inside_to(bins)) {
    int const k = static_cast<int>(sqrt(upper) * bins.inv_width * (T(1) + T(1) / T(262144))) + 1;
    b.hi        = k < n - 1 ? k : n - 1;
  }
  return b;
}

/// uniform_bins: the slots floor((x - lo) * inv_width) of values x in [lower, upper], with the
/// same margins (a slot and 2^-18 relative each way; the device's floor of the exact product is
/// within one rounding of these products). A range below lo or past hi may reach the outside slot.
template <class T>
struct has_slot_bounds<uniform_bins<T>> : cuda::std::true_type {};

template <class T>
__host__ __device__ inline slot_bounds slot_bounds_of(uniform_bins<T> const& bins, T lower, T upper, bool bounded)
{
  int const n = bins.size();
  T const eps = T(1) / T(262144);
  slot_bounds b{0, n};
  T const tl = (lower - bins.lo) * bins.inv_width;  // (NaN, never made by the boxes, keeps 0)
  if (tl >= static_cast<T>(n) * (T(1) + eps) + T(1)) {
    b.lo = n;
  } else if (tl > T(1)) {
    int const k = static_cast<int>(tl * (T(1) - eps));
    b.lo        = k > 1 ? k - 1 : 0;
  }
  if (bounded && lower >= bins.lo) {  // (x - lo >= 0 for every x >= lo: no value below the range)
    T const tu = (upper - bins.lo) * bins.inv_width * (T(1) + eps) + T(1);
    if (tu < static_cast<T>(n)) { b.hi = static_cast<int>(tu); }
  }
  return b;
}

/// bins_2d of maps with slot bounds, for values with bounds per component: slot j X + i lies
/// between the corners' slots; either range all outside makes every value outside, either
/// reaching outside may reach the outside slot.
template <class BinsX, class BinsY>
struct has_slot_bounds<bins_2d<BinsX, BinsY>>
  : cuda::std::bool_constant<has_slot_bounds<BinsX>::value && has_slot_bounds<BinsY>::value> {};

template <class BinsX, class BinsY, class T>
__host__ __device__ inline slot_bounds slot_bounds_of(bins_2d<BinsX, BinsY> const& bins, point<T, 2> const& lower,
                                                      point<T, 2> const& upper, bool bounded)
{
  int const nx = bins.x.size(), ny = bins.y.size(), n = bins.size();
  slot_bounds const bx = slot_bounds_of(bins.x, lower[0], upper[0], bounded);
  slot_bounds const by = slot_bounds_of(bins.y, lower[1], upper[1], bounded);
  if (bx.lo >= nx || by.lo >= ny) { return {n, n}; }
  return {by.lo * nx + bx.lo, (bx.hi >= nx || by.hi >= ny) ? n : by.hi * nx + bx.hi};
}

/// Whether ordering into tiles can gain anything for F with bin map Binning: the minimum image's
/// forms always; squared_euclidean's bounds only with a bin map that has a threshold.
template <class F, class Binning>
inline constexpr bool forms_gain_v =
  has_form_rules_v<F> && !cuda::std::is_same_v<F, rp_pi_separation> &&
  (!cuda::std::is_same_v<F, squared_euclidean> || has_outside_threshold<Binning>::value || has_inside_threshold<Binning>::value);

/// Whether ordering into tiles gains for F with Binning in passes over windows of the bins (the
/// tile pairs' slot bounds), also where one pass gains nothing (rp_pi_separation's bounds).
template <class F, class Binning>
inline constexpr bool passes_gain_v = has_form_rules_v<F> && has_slot_bounds<Binning>::value;

}  // namespace twobody::detail
