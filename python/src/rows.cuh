// High-dimensional point sets from Python: (n, D) arrays of float32, float16, bfloat16 or float64 as
// twobody::rows<T> (row-major with a leading dimension), for the statistics of highdim.cuh,
// highdim_join.cuh, highdim_per_point.cuh and nearest_neighbors.cuh.
//
// An array whose rows are contiguous (stride 1 along D; any row stride >= D) is used in place;
// any other layout is copied once into an n x D array where it lives.
#pragma once

#include "statistics.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <utility>

namespace twobody_py {

/// DLPack's float16 and bfloat16 (nanobind names no C++ type for them).
inline constexpr nb::dlpack::dtype half_dtype{static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float), 16, 1};
inline constexpr nb::dlpack::dtype bfloat16_dtype{static_cast<std::uint8_t>(nb::dlpack::dtype_code::Bfloat), 16, 1};

/// Whether an array's dtype is one the row statistics take.
bool is_row_dtype(array const& x);

/// Checks one set (shape, dtype, memory, size); returns D.
int check_rows(array const& x, char const* name);

/// The D of a call's one or two row sets (same D, dtype and memory).
inline int row_dims_of(array const& a, std::optional<array> const& b) { return dims_of(a, b, check_rows); }

template <class T>
struct type_tag {
  using type = T;
};

/// Calls fn(type_tag<T>{}) with T the rows' element type (float, __half, __nv_bfloat16 or double).
template <class Fn>
decltype(auto) with_row_type(array const& x, Fn&& fn)
{
  if (x.dtype() == nb::dtype<float>()) { return fn(type_tag<float>{}); }
  if (x.dtype() == half_dtype) { return fn(type_tag<__half>{}); }
  if (x.dtype() == bfloat16_dtype) { return fn(type_tag<__nv_bfloat16>{}); }
  if (x.dtype() == nb::dtype<double>()) { return fn(type_tag<double>{}); }
  throw nb::type_error("twobody: high-dimensional points must be float32, float16, bfloat16 or float64");
}

/// One row set as a twobody::rows<T> view, owning whatever it had to copy.
template <class T>
class row_view {
 public:
  row_view(array const& x, char const* name, cudaStream_t stream);

  twobody::rows<T> const& view() const { return view_; }

 private:
  std::vector<T> host_;
  twobody::detail::device_buffer device_;
  twobody::rows<T> view_{};
};

extern template class row_view<float>;
extern template class row_view<__half>;
extern template class row_view<__nv_bfloat16>;
extern template class row_view<double>;

/// The one or two row sets of a call and their pair sets.
template <class T>
class row_sets {
 public:
  row_sets(array const& a, std::optional<array> const& b, cudaStream_t stream) : a_(a, "points", stream)
  {
    if (b) { b_.emplace(*b, "points_b", stream); }
  }
  /// Self pairs of a, or a x b.
  auto pairs() const { return b_ ? twobody::cross_pairs(a_.view(), b_->view()) : twobody::self_pairs(a_.view()); }
  /// Every ordered pair (i, j), i != j, of a, or a x b.
  auto partners() const { return b_ ? twobody::cross_pairs(a_.view(), b_->view()) : twobody::ordered_pairs(a_.view()); }

 private:
  row_view<T> a_;
  std::optional<row_view<T>> b_;
};

/// n values of V in device memory, and the capsule that frees them with the array handed to
/// Python.
template <class V>
std::pair<V*, nb::capsule> owned_device_array(std::size_t n)
{
  struct owned {
    twobody::detail::device_array<V> a;
  };
  auto* o = new owned{twobody::detail::device_array<V>(n)};
  return {o->a.data(), nb::capsule(o, [](void* p) noexcept { delete static_cast<owned*>(p); })};
}

/// An array the caller's library takes by DLPack, over memory that `owner` keeps alive: a
/// NumPy array for host memory, a CUDA array on `device` otherwise.
template <class V>
nb::object wrap_array(V* data, std::size_t ndim, std::size_t const* shape, std::int64_t const* strides, nb::capsule owner,
                      int device)
{
  if (device < 0) { return nb::cast(nb::ndarray<nb::numpy, V>(data, ndim, shape, owner, strides)); }
  return nb::cast(nb::ndarray<V>(data, ndim, shape, owner, strides, nb::dtype<V>(), nb::device::cuda::value, device));
}

void bind_row_statistics(nb::module_& m);  // rows_statistics.cu: counts, histograms, kernel sums
void bind_row_joins(nb::module_& m);       // rows_joins.cu: pairs_within
void bind_nearest(nb::module_& m);         // rows_nearest.cu: knn

}  // namespace twobody_py
