#pragma once

#include <twobody/error.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

namespace twobody::detail {

/// A device array owned by a result or an index (cudaMalloc / cudaFree: it outlives the stream
/// that filled it). Allocation failures say what to change.
template <class T>
class device_array {
 public:
  device_array() = default;
  explicit device_array(std::size_t n) : n_(n)
  {
    if (n == 0) { return; }
    cudaError_t const s = cudaMalloc(reinterpret_cast<void**>(&ptr_), n * sizeof(T));
    if (s != cudaSuccess) {
      (void)cudaGetLastError();
      ptr_ = nullptr;
      throw twobody::error("twobody: could not allocate " + std::to_string(n * sizeof(T)) +
                           " bytes of device memory (" + cudaGetErrorString(s) +
                           "); for join results ask for host memory (join_options::location = result_location::host) "
                           "or consume them in rounds with join_each; for grid indexes, index fewer points");
    }
  }
  device_array(device_array&& o) noexcept { swap(o); }
  device_array& operator=(device_array&& o) noexcept
  {
    device_array t(std::move(o));
    swap(t);
    return *this;
  }
  device_array(device_array const&)            = delete;
  device_array& operator=(device_array const&) = delete;
  ~device_array()
  {
    if (ptr_ != nullptr) { (void)cudaFree(ptr_); }
  }
  T* data() const { return ptr_; }
  std::size_t capacity() const { return n_; }
  void swap(device_array& o) noexcept
  {
    std::swap(ptr_, o.ptr_);
    std::swap(n_, o.n_);
  }

 private:
  T* ptr_        = nullptr;
  std::size_t n_ = 0;
};

}  // namespace twobody::detail
