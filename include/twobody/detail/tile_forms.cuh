/// \file tile_forms.cuh
/// \brief Cheaper exact forms of a pair functor for a tile pair whose points lie in known boxes
/// (issue 21: the periodic RDF at the open box's speed).
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
/// The same bounds give a lower bound of every pair's value: a histogram whose bin map sends
/// every value past a threshold to its outside slot (distance_bins) counts a tile pair whose
/// bound is past it without visiting its pairs (outside_from below; that one has a margin).
#pragma once

#include <twobody/binning.cuh>
#include <twobody/functors.cuh>
#include <twobody/points.cuh>

#include <cuda/std/cmath>
#include <cuda/std/type_traits>

namespace twobody::detail {

/// The bounding box of a tile's points (NaN coordinates left out; an axis without a finite
/// coordinate has lo > hi or infinite ends, and then no form but the general one is taken).
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

/// A tile pair's form and a lower bound of every value its pairs give.
template <class T, int D>
struct tile_form {
  using direct = open_image<T, D>;  ///< the form of tile_form_kind::direct
  tile_form_kind kind = tile_form_kind::general;
  fixed_images<T, D> images{};
  T lower = T(0);
};

/// Functors with cheaper exact forms for tile pairs with known boxes (tile_form_of below).
template <class F>
struct has_form_rules : cuda::std::false_type {};
template <class T, int D>
struct has_form_rules<periodic_squared_euclidean<T, D>> : cuda::std::true_type {};
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

/// The form of periodic_squared_euclidean for pairs (a, b) or (b, a) with a in box `a` and b in
/// box `b`.
template <class T, int D>
__host__ __device__ tile_form<T, D> tile_form_of(periodic_squared_euclidean<T, D> const& f, tile_box<T, D> const& a,
                                                 tile_box<T, D> const& b)
{
  tile_form<T, D> form;
  bool all_direct = true, all_fixed = true;
  T s = T(0);
TWOBODY_UNROLL
  for (int d = 0; d < D; ++d) {
    T const L = f.box[d];
    // Every pair's a - b lies in [lo, hi] (b - a in [-hi, -lo]): fl is monotone.
    T const lo = a.lo[d] - b.hi[d];
    T const hi = a.hi[d] - b.lo[d];
    bool const known = cuda::std::isfinite(lo) && cuda::std::isfinite(hi) && lo <= hi;
    T const tmax     = abs_of(lo) > abs_of(hi) ? abs_of(lo) : abs_of(hi);                   // |dx| <= tmax
    T const tmin     = (lo <= T(0) && hi >= T(0)) ? T(0) : min_of(abs_of(lo), abs_of(hi));  // |dx| >= tmin
    bool const direct  = known && tmax <= L - tmax;  // min(|dx|, L - |dx|) = |dx| for every pair
    bool const wrapped = known && tmin >= L - tmin;  // ... = L - |dx| for every pair
    all_direct         = all_direct && direct;
    all_fixed          = all_fixed && (direct || wrapped);
    form.images.c[d]   = wrapped ? L : T(0);
    // Each pair's term is min(|dx|, L - |dx|) >= min(tmin, L - tmax), squared if that is >= 0.
    T const low  = known ? min_of(tmin, L - tmax) : T(0);
    T const term = low > T(0) ? low : T(0);
    s            = term * term + s;
  }
  form.kind  = all_direct ? tile_form_kind::direct : (all_fixed ? tile_form_kind::fixed : tile_form_kind::general);
  form.lower = s;
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

}  // namespace twobody::detail
