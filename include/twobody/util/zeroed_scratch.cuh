/// \file zeroed_scratch.cuh
/// \brief Device memory that is zero between calls, for host-synchronous one-call forms whose
/// kernels accumulate with atomics: the kernel's last block copies the result out (to the mapped
/// host buffer, util/pinned_array.cuh) and zeroes what it used, so a call needs no allocation,
/// no memset and no copy back (three operations of a 40 us small call on the H100).
#pragma once

#include <twobody/util/error.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>

namespace twobody::detail {

/// 64 KiB of zeroed device memory and a zeroed ticket counter per thread and device. A thread's
/// calls wait for their result before the next one starts, so they never share it.
class zeroed_scratch {
 public:
  static constexpr std::size_t capacity = std::size_t(64) << 10;

  /// This thread's scratch on the current device, zero on return, or null where `bytes` is
  /// more than it holds. A use that did not end in settle() (an error between the launch and
  /// the result) is zeroed again here.
  static zeroed_scratch* of_thread(std::size_t bytes)
  {
    thread_local std::map<int, zeroed_scratch> per_device;
    if (bytes > capacity) { return nullptr; }
    int dev = 0;
    TWOBODY_CUDA_TRY(cudaGetDevice(&dev));
    zeroed_scratch& s = per_device[dev];
    if (s.base_ == nullptr) {
      TWOBODY_CUDA_TRY(cudaMalloc(&s.base_, capacity + sizeof(unsigned)));
      s.dirty_ = true;
    }
    if (s.dirty_) { TWOBODY_CUDA_TRY(cudaMemset(s.base_, 0, capacity + sizeof(unsigned))); }
    s.dirty_ = true;  // until settle(): the kernel that uses it may not have run to its end
    return &s;
  }

  zeroed_scratch() = default;
  zeroed_scratch(zeroed_scratch const&)            = delete;
  zeroed_scratch& operator=(zeroed_scratch const&) = delete;
  ~zeroed_scratch()
  {
    if (base_ != nullptr) { (void)cudaFree(base_); }
  }

  template <class T>
  T* as() const
  {
    return static_cast<T*>(base_);
  }
  /// Counts the blocks that have finished; the last one resets it to 0.
  unsigned* ticket() const { return reinterpret_cast<unsigned*>(static_cast<char*>(base_) + capacity); }
  /// The call's kernel ran to its end (its stream was synchronized without error): it left the
  /// memory zero.
  void settle() { dirty_ = false; }

 private:
  void* base_ = nullptr;
  bool dirty_ = false;
};

/// Where a host-synchronous one-call kernel puts its result at the end: `to` (mapped host
/// memory). The kernel's output is then this thread's zeroed scratch, and its last block, found
/// by `ticket` (zeroed_scratch::ticket()), moves the result there (util/last_block.cuh).
template <class T>
struct result_mirror {
  T* to            = nullptr;
  unsigned* ticket = nullptr;
};

}  // namespace twobody::detail
