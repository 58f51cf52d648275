// Point sets from DLPack arrays: checks, the device scope, and the gather into columns.
#include "arrays.cuh"


#include <algorithm>

namespace twobody_py {

namespace {

/// The callable of set_progress, owned (a strong reference) by the thread that set it.
PyObject*& thread_progress()
{
  thread_local PyObject* fn = nullptr;
  return fn;
}

/// Called by the library on the calling thread, usually without the GIL: takes Ctrl-C and the
/// callable's exceptions as Python errors, which stop the call and propagate to the caller.
twobody::progress_callback const python_progress = [](twobody::progress_report const& p) {
  nb::gil_scoped_acquire locked;
  if (PyErr_CheckSignals() != 0) { throw nb::python_error(); }
  if (PyObject* fn = thread_progress()) { nb::handle{fn}(p.done, p.total); }
};

}  // namespace

void set_progress(nb::object fn)
{
  PyObject*& mine = thread_progress();
  Py_XDECREF(mine);
  mine = fn.is_none() ? nullptr : fn.release().ptr();
}

twobody::execution_policy policy_of(std::string const& backend, std::uintptr_t stream)
{
  auto const s = reinterpret_cast<cudaStream_t>(stream);
  if (backend == "auto") { return twobody::exec::automatic.on(s).with_progress(&python_progress); }
  if (backend == "gpu") { return twobody::exec::gpu.on(s).with_progress(&python_progress); }
  if (backend == "cpu") { return twobody::exec::cpu.with_progress(&python_progress); }
  throw nb::value_error(("twobody: backend must be 'auto', 'gpu' or 'cpu', not '" + backend + "'").c_str());
}

memory memory_of(array const& x, char const* name)
{
  switch (x.device_type()) {
    case nb::device::cpu::value:
    case nb::device::cuda_host::value: return memory::host;
    case nb::device::cuda::value:
    case nb::device::cuda_managed::value: return memory::device;
    default:
      throw nb::type_error((std::string("twobody: ") + name +
                            " lives on a device twobody cannot read (DLPack device type " +
                            std::to_string(x.device_type()) + "); pass a NumPy array or a CUDA array")
                             .c_str());
  }
}

device_scope::device_scope(int device)
{
  if (device < 0) { return; }
  TWOBODY_CUDA_TRY(cudaGetDevice(&previous_));
  if (previous_ == device) {
    previous_ = -1;
    return;
  }
  TWOBODY_CUDA_TRY(cudaSetDevice(device));
}

device_scope::~device_scope()
{
  if (previous_ >= 0) { (void)cudaSetDevice(previous_); }
}

int check_points(array const& x, char const* name)
{
  if (x.ndim() != 2) {
    throw nb::value_error((std::string("twobody: ") + name + " must be an (n, D) array of points, not " +
                           std::to_string(x.ndim()) + "-dimensional")
                            .c_str());
  }
  auto const d = static_cast<int>(x.shape(1));
  if (d < 1 || d > dims) {
    throw nb::value_error((std::string("twobody: ") + name + " has D = " + std::to_string(d) +
                           " coordinates per point; this statistic takes 1 to 3 (count_pairs, histogram, "
                           "pairs_within, kernel_sum and knn take any D as float32, float16, bfloat16 or float64)")
                            .c_str());
  }
  if (!is_dtype<float>(x) && !is_dtype<double>(x)) {
    throw nb::type_error((std::string("twobody: ") + name + " must hold float32 or float64 (convert with .astype)").c_str());
  }
  if (x.shape(0) >= (std::size_t(1) << 32)) {
    throw nb::value_error((std::string("twobody: ") + name + " has 2^32 points or more; split it (join indices are 32-bit)").c_str());
  }
  (void)memory_of(x, name);
  return d;
}

void check_same_kind(array const& a, array const& b, char const* name_b)
{
  if (a.dtype() != b.dtype()) {
    throw nb::type_error((std::string("twobody: ") + name_b + " must have the dtype of the first point set").c_str());
  }
  if (memory_of(a, "points") != memory_of(b, name_b) ||
      (memory_of(a, "points") == memory::device && a.device_id() != b.device_id())) {
    throw nb::value_error((std::string("twobody: ") + name_b +
                           " must be where the first point set is (both on the host, or both on one GPU)")
                            .c_str());
  }
}

namespace {

// dst[c * n + i] = src[i * row + c * col] for c < given, 0 for the other columns.
template <class T>
__global__ void gather_columns(T const* src, std::int64_t row, std::int64_t col, std::int64_t n, int given, T* dst)
{
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    for (int c = 0; c < dims; ++c) { dst[c * n + i] = c < given ? src[i * row + c * col] : T(0); }
  }
}

}  // namespace

template <class T, bool Weighted>
point_columns<T, Weighted>::point_columns(array const& x, std::optional<array> const& w, char const* name,
                                          cudaStream_t stream)
{
  given_ = check_points(x, name);
  auto const n = static_cast<size_type>(x.shape(0));
  if (!is_dtype<T>(x)) { throw nb::type_error("twobody: internal dtype mismatch"); }
  bool const on_device   = memory_of(x, name) == memory::device;
  T const* base          = static_cast<T const*>(x.data());
  std::int64_t const row = x.stride(0), col = x.stride(1);
  view_.size             = n;

  // Columns in place when they are contiguous and no zero column is needed.
  if ((row == 1 || n <= 1) && given_ == dims) {
    for (int c = 0; c < dims; ++c) { view_.coords[c] = base + c * col; }
  } else if (n > 0) {
    T* cols = nullptr;
    if (on_device) {
      device_ = twobody::detail::device_buffer(sizeof(T) * std::size_t(n) * dims, stream);
      cols    = static_cast<T*>(device_.data());
      int const threads = 256;
      auto const blocks = static_cast<unsigned>(std::min<std::int64_t>((n + threads - 1) / threads, 65535));
      gather_columns<<<blocks, threads, 0, stream>>>(base, row, col, n, given_, cols);
      TWOBODY_CHECK_LAUNCH();
    } else {
      host_.assign(std::size_t(n) * dims, T(0));
      cols = host_.data();
      for (int c = 0; c < given_; ++c) {
        for (size_type i = 0; i < n; ++i) { cols[c * n + i] = base[i * row + c * col]; }
      }
    }
    for (int c = 0; c < dims; ++c) { view_.coords[c] = cols + c * n; }
  } else {
    // No points: any non-null columns will do (nothing is read).
    host_.assign(1, T(0));
    for (int c = 0; c < dims; ++c) { view_.coords[c] = host_.data(); }
  }

  if constexpr (Weighted) {
    if (!w) { throw nb::value_error("twobody: internal: weights missing"); }
    check_same_kind(x, *w, "weights");
    if (w->ndim() != 1 || static_cast<size_type>(w->shape(0)) != n) {
      throw nb::value_error((std::string("twobody: the weights of ") + name + " must be a 1-D array of one weight per point").c_str());
    }
    if (w->stride(0) != 1 && n > 1) {
      throw nb::value_error("twobody: weights must be contiguous (pass a copy: numpy.ascontiguousarray)");
    }
    view_.weights = n > 0 ? static_cast<T const*>(w->data()) : view_.coords[0];
  } else {
    (void)w;
  }
}

template class point_columns<float, false>;
template class point_columns<float, true>;
template class point_columns<double, false>;
template class point_columns<double, true>;

}  // namespace twobody_py
