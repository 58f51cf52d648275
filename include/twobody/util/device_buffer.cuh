#pragma once

#include <twobody/util/error.cuh>

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

namespace twobody::detail {

/// Device memory a large operation may use: `asked` bytes, or (0) a quarter of the memory
/// free on the current device now.
inline std::size_t device_budget(std::size_t asked)
{
  if (asked != 0) { return asked; }
  std::size_t free_b = 0, total_b = 0;
  TWOBODY_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
  return free_b / 4;
}

/// twobody's own stream-ordered memory pool on the current device (null where the device has
/// no memory pools). It keeps up to 64 MiB mapped across synchronizations: the default pool
/// of the device returns everything at each synchronization (release threshold 0), so each
/// one-call reduction paid for mapping its scratch again (about 60 us on the H100, a quarter
/// of a 2^14-point count). The caller's default pool is left as it is.
inline cudaMemPool_t scratch_pool()
{
  static std::mutex m;
  static std::array<cudaMemPool_t, 64> pools{};
  static std::array<bool, 64> made{};
  int dev = 0;
  TWOBODY_CUDA_TRY(cudaGetDevice(&dev));
  if (dev >= static_cast<int>(pools.size())) { return nullptr; }
  std::lock_guard<std::mutex> lock(m);
  if (!made[dev]) {
    made[dev]     = true;
    int supported = 0;
    TWOBODY_CUDA_TRY(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, dev));
    if (supported != 0) {
      cudaMemPoolProps props{};
      props.allocType     = cudaMemAllocationTypePinned;
      props.location.type = cudaMemLocationTypeDevice;
      props.location.id   = dev;
      TWOBODY_CUDA_TRY(cudaMemPoolCreate(&pools[dev], &props));
      std::uint64_t keep = 64ull << 20;
      TWOBODY_CUDA_TRY(cudaMemPoolSetAttribute(pools[dev], cudaMemPoolAttrReleaseThreshold, &keep));
    }
  }
  return pools[dev];
}

/// Stream-ordered scratch allocation (from scratch_pool(), freed with cudaFreeAsync on the
/// same stream when it goes out of scope). Used only by the convenience forms; the explicit
/// forms take caller-provided temporary storage.
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(std::size_t bytes, cudaStream_t stream) : bytes_(bytes), stream_(stream)
  {
    if (bytes == 0) { return; }
    cudaMemPool_t const pool = scratch_pool();
    cudaError_t const status = pool != nullptr ? cudaMallocFromPoolAsync(&ptr_, bytes, pool, stream)
                                               : cudaMallocAsync(&ptr_, bytes, stream);
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
