#pragma once

#include <twobody/detail/error.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

namespace twobody::detail {

/// Stream-ordered scratch allocation (cudaMallocAsync / cudaFreeAsync), freed on the same
/// stream when it goes out of scope. Used only by the convenience forms; the explicit forms
/// take caller-provided temporary storage.
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(std::size_t bytes, cudaStream_t stream) : bytes_(bytes), stream_(stream)
  {
    if (bytes == 0) { return; }
    cudaError_t const status = cudaMallocAsync(&ptr_, bytes, stream);
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      throw twobody::error("twobody: could not allocate " + std::to_string(bytes) +
                           " bytes of scratch device memory (" + cudaGetErrorString(status) +
                           "); free device memory or pass smaller inputs");
    }
  }
  device_buffer(device_buffer&& o) noexcept { swap(o); }
  device_buffer& operator=(device_buffer&& o) noexcept
  {
    device_buffer tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  device_buffer(device_buffer const&)            = delete;
  device_buffer& operator=(device_buffer const&) = delete;
  ~device_buffer()
  {
    if (ptr_ != nullptr) { (void)cudaFreeAsync(ptr_, stream_); }
  }

  void* data() const { return ptr_; }
  template <class T>
  T* as() const
  {
    return static_cast<T*>(ptr_);
  }
  std::size_t size() const { return bytes_; }

 private:
  void swap(device_buffer& o) noexcept
  {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    std::swap(stream_, o.stream_);
  }
  void* ptr_           = nullptr;
  std::size_t bytes_   = 0;
  cudaStream_t stream_ = nullptr;
};

}  // namespace twobody::detail
