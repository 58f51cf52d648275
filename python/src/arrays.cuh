// Arrays from Python (NumPy, or CuPy / PyTorch / JAX through DLPack) as twobody point views.
//
// A point set arrives as an (n, D) array of float32 or float64 with 1 <= D <= 3, in host or
// device memory, with any strides. The kernels read structure-of-arrays columns: an array whose
// columns are contiguous (a (D, n) array transposed, Fortran order, or one column) is used in
// place; any other layout is gathered once into columns, on the device where the array lives.
// Sets with D < 3 get zero columns, which add nothing to any distance.
#pragma once

#include <twobody/twobody.cuh>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace twobody_py {

namespace nb = nanobind;
using array      = nb::ndarray<nb::ro>;
using namespace nb::literals;
using size_type  = twobody::size_type;
inline constexpr int dims = 3;  // every set is viewed in 3-D (zero columns past D)

/// The backend a call names ("auto", "gpu", "cpu") and the stream of the caller (0: legacy default).
/// The execution policy of a call: its backend and stream, and a progress callback that takes
/// Ctrl-C (PyErr_CheckSignals) and reports to the callable set by set_progress, about every
/// 100 ms of a CPU-backend call (twobody/progress.cuh).
twobody::execution_policy policy_of(std::string const& backend, std::uintptr_t stream);

/// The Python callable progress(done, total) of this thread's next calls (None: none).
void set_progress(nb::object fn);

/// Whether the "auto" backend runs on a GPU in this process (the library's own test, asked once).
inline bool gpu_usable() { return twobody::detail::current_gpu_status().usable; }

/// Where an array's memory is.
enum class memory { host, device };
memory memory_of(array const& x, char const* name);

/// Makes the array's GPU current for the call and puts the previous one back after.
class device_scope {
 public:
  explicit device_scope(int device);
  ~device_scope();
  device_scope(device_scope const&)            = delete;
  device_scope& operator=(device_scope const&) = delete;

 private:
  int previous_ = -1;
};

/// Checks shared by every statistic: dtype, shape, memory of one set; returns D.
int check_points(array const& x, char const* name);

template <class T>
bool is_dtype(array const& x)
{
  return x.dtype() == nb::dtype<T>();
}

/// One point set as three columns (and weights), owning whatever it had to gather.
template <class T, bool Weighted>
class point_columns {
 public:
  using view_type = twobody::points<T, dims, Weighted>;

  point_columns(array const& x, std::optional<array> const& w, char const* name, cudaStream_t stream);

  view_type const& view() const { return view_; }
  int dims_given() const { return given_; }

 private:
  std::vector<T> host_;
  twobody::detail::device_buffer device_;
  view_type view_{};
  int given_ = 0;
};

extern template class point_columns<float, false>;
extern template class point_columns<float, true>;
extern template class point_columns<double, false>;
extern template class point_columns<double, true>;

/// Calls fn(T{}) with T the coordinates' type (float or double); TypeError otherwise.
template <class Fn>
decltype(auto) with_value_type(array const& x, Fn&& fn)
{
  if (is_dtype<float>(x)) { return fn(float{}); }
  if (is_dtype<double>(x)) { return fn(double{}); }
  throw nb::type_error("twobody: coordinates must be float32 or float64 (convert with .astype)");
}

/// Checks that b (and the weights) match a: same dtype, same kind of memory and device.
void check_same_kind(array const& a, array const& b, char const* name_b);

/// A NumPy array that owns a copy of `v`.
template <class V>
nb::ndarray<nb::numpy, V, nb::ndim<1>> to_numpy(std::vector<V> v)
{
  auto* owned = new std::vector<V>(std::move(v));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<V>*>(p); });
  return nb::ndarray<nb::numpy, V, nb::ndim<1>>(owned->data(), {owned->size()}, owner);
}

}  // namespace twobody_py
