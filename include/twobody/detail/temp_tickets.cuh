/// \file temp_tickets.cuh
/// \brief Zeroed ticket counters keyed by a call's temporary storage: an asynchronous count or
/// reduction folds its blocks' partials in its last block (detail/last_block.cuh) with one of
/// them, instead of a cooperative launch and a grid barrier. A call's temporary storage is its
/// own until the call's work is done (the CUB contract; stream-ordered allocations keep it
/// too), so the ticket keyed by it is in use by one kernel at a time, captured graphs included,
/// and the kernel's last block leaves it zero for the next.
#pragma once

#include <twobody/detail/error.cuh>

#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <unordered_map>

namespace twobody::detail {

class temp_tickets {
 public:
  /// Distinct temporary-storage addresses served per device; further ones take the cooperative
  /// fold (a ticket is never given back: the host cannot tell when its last kernel ran).
  static constexpr int per_device = 4096;

  /// Makes the current device's tickets where they are not yet made (a synchronous step on
  /// `stream`, skipped while `stream` is captured). The sizing phase of a temporary-storage
  /// call does it, normally before any capture.
  static void prepare(cudaStream_t stream)
  {
    std::lock_guard<std::mutex> const lock(mutex());
    (void)of_device(stream);
  }

  /// The ticket of `d_temp` on the current device, zero while no call that uses it is in
  /// flight; null when this device's tickets are all taken, or not made (prepare) and `stream`
  /// is captured.
  static unsigned* of(void const* d_temp, cudaStream_t stream)
  {
    std::lock_guard<std::mutex> const lock(mutex());
    device_tickets* const d = of_device(stream);
    if (d == nullptr) { return nullptr; }
    if (auto const it = d->by_temp.find(d_temp); it != d->by_temp.end()) { return it->second; }
    if (d->used == per_device) { return nullptr; }
    return d->by_temp[d_temp] = d->base + d->used++;
  }

 private:
  struct device_tickets {
    unsigned* base = nullptr;  // per_device counters; kept to the end of the process
    int used       = 0;
    std::unordered_map<void const*, unsigned*> by_temp;
  };

  static std::mutex& mutex()
  {
    static std::mutex m;
    return m;
  }

  /// The current device's tickets, made here where they are not yet and `stream` is not
  /// captured (the thread in relaxed capture mode meanwhile, so that a capture elsewhere in the
  /// thread is not disturbed); null where they are not made. Called under mutex().
  static device_tickets* of_device(cudaStream_t stream)
  {
    static std::map<int, device_tickets> devices;
    int dev = 0;
    TWOBODY_CUDA_TRY(cudaGetDevice(&dev));
    device_tickets& d = devices[dev];
    if (d.base != nullptr) { return &d; }
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    TWOBODY_CUDA_TRY(cudaStreamIsCapturing(stream, &capture));
    if (capture != cudaStreamCaptureStatusNone) { return nullptr; }
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    TWOBODY_CUDA_TRY(cudaThreadExchangeStreamCaptureMode(&mode));
    void* p                  = nullptr;
    cudaError_t const status = cudaMalloc(&p, sizeof(unsigned) * per_device);
    TWOBODY_CUDA_TRY(cudaThreadExchangeStreamCaptureMode(&mode));
    if (status != cudaSuccess) {
      (void)cudaGetLastError();  // no tickets: the calls fold cooperatively
      return nullptr;
    }
    TWOBODY_CUDA_TRY(cudaMemsetAsync(p, 0, sizeof(unsigned) * per_device, stream));
    TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));  // zero before any stream's kernel takes one
    d.base = static_cast<unsigned*>(p);
    return &d;
  }
};

}  // namespace twobody::detail
