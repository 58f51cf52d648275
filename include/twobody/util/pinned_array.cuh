/// \file pinned_array.cuh
/// \brief Page-locked host memory for asynchronous copies (the join drain, out-of-core blocks).
#pragma once

#include <twobody/util/error.cuh>
#include <twobody/util/gpu_progress.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstring>
#include <utility>

namespace twobody::detail {

/// Pinned host memory (cudaMallocHost), freed after its copies finished.
template <class T>
class pinned_array {
 public:
  pinned_array() = default;
  explicit pinned_array(std::size_t n, unsigned flags = cudaHostAllocDefault) : n_(n)
  {
    if (n != 0) { TWOBODY_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&ptr_), n * sizeof(T), flags)); }
  }
  pinned_array(pinned_array&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  pinned_array& operator=(pinned_array&& o) noexcept
  {
    std::swap(ptr_, o.ptr_);
    std::swap(n_, o.n_);
    return *this;
  }
  pinned_array(pinned_array const&) = delete;
  ~pinned_array()
  {
    if (ptr_ != nullptr) { (void)cudaFreeHost(ptr_); }
  }
  T* data() const { return ptr_; }
  std::size_t size() const { return n_; }

 private:
  T* ptr_        = nullptr;
  std::size_t n_ = 0;
};

/// Copies n values from device memory to host memory `dst` on `stream` and waits (with progress
/// reports inside a gpu_progress_scope, gpu_progress.cuh). Small
/// results (the one-call forms' counts, sums and histograms) go through a per-thread pinned
/// bounce buffer: a copy to pageable memory costs the driver a staging step (about 3 us of a
/// 20 us small call on the H100).
template <class T>
void copy_to_host_sync(T* dst, T const* src, std::size_t n, cudaStream_t stream)
{
  constexpr std::size_t bounce_bytes = std::size_t(64) << 10;
  std::size_t const bytes            = n * sizeof(T);
  if (bytes == 0) {
    wait_for_stream(stream);
    return;
  }
  if (bytes > bounce_bytes) {
    TWOBODY_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
    wait_for_stream(stream);
    return;
  }
  thread_local pinned_array<unsigned char> bounce(bounce_bytes);
  TWOBODY_CUDA_TRY(cudaMemcpyAsync(bounce.data(), src, bytes, cudaMemcpyDeviceToHost, stream));
  wait_for_stream(stream);
  std::memcpy(dst, bounce.data(), bytes);
}

/// Page-locked host memory that kernels write directly (mapped into every device's address
/// space), for the small result of a host-synchronous call: the kernel's write replaces a
/// device result, a copy back and its launch (about 4 us of a 25 us small call on the H100).
/// 64 KiB per thread, so a thread's calls, which wait for their result, never share it.
/// Returns {host pointer, device pointer}, or nulls where the GPU cannot map host memory or
/// `bytes` is more than the buffer holds.
inline std::pair<void*, void*> mapped_result_buffer(std::size_t bytes)
{
  constexpr std::size_t capacity = std::size_t(64) << 10;
  struct buffer {
    pinned_array<unsigned char> host;
    void* device = nullptr;
    buffer()
    {
      int dev = 0, can_map = 0;
      if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, dev) != cudaSuccess ||
          can_map == 0) {
        (void)cudaGetLastError();
        return;
      }
      host = pinned_array<unsigned char>(capacity, cudaHostAllocPortable | cudaHostAllocMapped);
      TWOBODY_CUDA_TRY(cudaHostGetDevicePointer(&device, host.data(), 0));
    }
  };
  thread_local buffer b;
  if (b.device == nullptr || bytes > capacity) { return {nullptr, nullptr}; }
  return {b.host.data(), b.device};
}

/// One value of T in this thread's mapped result buffer: {host pointer, device pointer} or nulls.
template <class T>
std::pair<T*, T*> mapped_result_slot()
{
  auto const [host, device] = mapped_result_buffer(sizeof(T));
  return {static_cast<T*>(host), static_cast<T*>(device)};
}

}  // namespace twobody::detail
