// Row sets from DLPack arrays: checks and the copy of layouts the rows view cannot describe.
#include "rows.cuh"

#include <algorithm>
#include <cstring>

namespace twobody_py {

bool is_row_dtype(array const& x)
{
  return x.dtype() == nb::dtype<float>() || x.dtype() == half_dtype || x.dtype() == bfloat16_dtype || x.dtype() == nb::dtype<double>();
}

int check_rows(array const& x, char const* name)
{
  if (x.ndim() != 2) {
    throw nb::value_error((std::string("twobody: ") + name + " must be an (n, D) array of points, not " +
                           std::to_string(x.ndim()) + "-dimensional")
                            .c_str());
  }
  auto const d = static_cast<std::int64_t>(x.shape(1));
  if (d < 1 || d > (std::int64_t(1) << 30)) {
    throw nb::value_error((std::string("twobody: ") + name + " needs at least one coordinate per point").c_str());
  }
  if (!is_row_dtype(x)) {
    throw nb::type_error((std::string("twobody: ") + name +
                          " must hold float32, float16, bfloat16 or float64 for more than 3 coordinates (or for knn); "
                          "convert with .astype(numpy.float32)")
                           .c_str());
  }
  if (x.shape(0) >= (std::size_t(1) << 31)) {
    throw nb::value_error((std::string("twobody: ") + name + " has 2^31 points or more; split it").c_str());
  }
  (void)memory_of(x, name);
  return static_cast<int>(d);
}

namespace {

// dst[i * dims + c] = src[i * row + c * col]: elements moved as bits (U has T's size).
template <class U>
__global__ void gather_rows(U const* src, std::int64_t row, std::int64_t col, std::int64_t n, int dims, U* dst)
{
  std::int64_t const total = n * dims;
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total; e += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t const i = e / dims, c = e % dims;
    dst[e]               = src[i * row + c * col];
  }
}

template <class T>
using bits_of = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint16_t>>;

}  // namespace

template <class T>
row_view<T>::row_view(array const& x, char const* name, cudaStream_t stream)
{
  int const d = check_rows(x, name);
  auto const n = static_cast<twobody::size_type>(x.shape(0));
  bool const on_device   = memory_of(x, name) == memory::device;
  T const* base          = static_cast<T const*>(x.data());
  std::int64_t const row = x.stride(0), col = x.stride(1);
  view_.size             = n;
  view_.dims             = d;

  if ((col == 1 || d == 1) && (row >= d || n <= 1) && n > 0) {
    // Rows in place: contiguous along D, each row `row` elements after the last.
    view_.data = base;
    view_.ld   = n <= 1 ? d : row;
  } else if (n > 0) {
    using U = bits_of<T>;
    static_assert(sizeof(U) == sizeof(T), "rows are copied as bits");
    std::size_t const total = std::size_t(n) * std::size_t(d);
    T* dst                  = nullptr;
    if (on_device) {
      device_ = twobody::detail::device_buffer(sizeof(T) * total, stream);
      dst     = static_cast<T*>(device_.data());
      int const threads = 256;
      auto const blocks = static_cast<unsigned>(std::min<std::int64_t>((std::int64_t(total) + threads - 1) / threads, 65535));
      gather_rows<U><<<blocks, threads, 0, stream>>>(reinterpret_cast<U const*>(base), row, col, n, d, reinterpret_cast<U*>(dst));
      TWOBODY_CHECK_LAUNCH();
    } else {
      host_.resize(total);
      dst = host_.data();
      for (twobody::size_type i = 0; i < n; ++i) {
        for (int c = 0; c < d; ++c) { std::memcpy(&dst[i * d + c], &base[i * row + c * col], sizeof(T)); }
      }
    }
    view_.data = dst;
    view_.ld   = d;
  } else {
    // No points: any non-null pointer will do (nothing is read).
    host_.resize(1);
    view_.data = host_.data();
    view_.ld   = d;
  }
}

template class row_view<float>;
template class row_view<__half>;
template class row_view<__nv_bfloat16>;
template class row_view<double>;

}  // namespace twobody_py
