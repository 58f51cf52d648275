#pragma once

/// The periodic box a functor carries, if any: `box[D]` (periodic_euclidean,
/// periodic_squared_euclidean, ...) or a `metric` with one (within{periodic_squared_euclidean,
/// r2}). Frames rebind it per frame; the range-limited statistics build a periodic grid from it.

#include <cuda/std/array>
#include <cuda/std/type_traits>

namespace twobody::detail {

template <class F, class = void>
struct has_box_member : cuda::std::false_type {};
template <class F>
struct has_box_member<F, cuda::std::void_t<decltype(cuda::std::declval<F&>().box[0])>> : cuda::std::true_type {};
template <class F, class = void>
struct has_metric_box : cuda::std::false_type {};
template <class F>
struct has_metric_box<F, cuda::std::void_t<decltype(cuda::std::declval<F&>().metric.box[0])>> : cuda::std::true_type {};

/// Whether F carries a periodic box.
template <class F>
inline constexpr bool has_periodic_box = has_box_member<F>::value || has_metric_box<F>::value;

/// Sets the periodic box of a functor that has one (nothing for functors without a box).
template <int D, class F, class T>
__host__ __device__ void set_box(F& f, T const* box)
{
  if constexpr (has_box_member<F>::value) {
    for (int d = 0; d < D; ++d) { f.box[d] = box[d]; }
  } else if constexpr (has_metric_box<F>::value) {
    for (int d = 0; d < D; ++d) { f.metric.box[d] = box[d]; }
  }
}

/// The periodic box of a functor that has one, as D sides of T.
template <int D, class T, class F>
cuda::std::array<T, D> box_of(F const& f)
{
  static_assert(has_periodic_box<F>, "box_of: the functor has no periodic box");
  cuda::std::array<T, D> box{};
  for (int d = 0; d < D; ++d) {
    if constexpr (has_box_member<F>::value) {
      box[d] = static_cast<T>(f.box[d]);
    } else {
      box[d] = static_cast<T>(f.metric.box[d]);
    }
  }
  return box;
}

}  // namespace twobody::detail
