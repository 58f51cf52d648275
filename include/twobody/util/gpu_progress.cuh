/// \file gpu_progress.cuh
/// \brief How a GPU call reports progress and stops (progress.cuh): kernels count the work units
/// they take in a launch_control (util/launch_control.cuh) and stop taking units once it says
/// so; the calling thread waits for its stream by polling, reading the count and calling the
/// progress callback between polls.
///
/// A one-call form on the GPU with a progress callback opens a gpu_progress_scope; the launches
/// inside it pass current_launch_control() to their unit sources (engine/engine.cuh), and every
/// wait for the stream goes through wait_for_stream(). Without a scope (every explicit form, graph
/// capture, calls without a callback) the control is null, kernels take no extra step, and
/// wait_for_stream() is cudaStreamSynchronize().
#pragma once

#include <twobody/progress.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/launch_control.cuh>
#include <twobody/util/progress_scope.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>

namespace twobody::detail {

class gpu_progress_scope;

/// The scope of the calls this thread makes now (set by gpu_progress_scope), or null.
inline gpu_progress_scope*& current_gpu_progress()
{
  thread_local gpu_progress_scope* current = nullptr;
  return current;
}

/// The calling thread's launch_control on the current device, its side stream (for reading the
/// count and setting the flag while the call's stream is busy) and a pinned word to read into:
/// made once per thread and device, so that a call with a callback allocates nothing.
struct thread_control {
  int device                = -1;
  launch_control* control   = nullptr;
  cudaStream_t side         = nullptr;
  unsigned long long* seen  = nullptr;

  static thread_control& current()
  {
    thread_local thread_control t;
    int dev = 0;
    TWOBODY_CUDA_TRY(cudaGetDevice(&dev));
    if (t.device != dev) {
      t.release();
      TWOBODY_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&t.control), sizeof(launch_control)));
      TWOBODY_CUDA_TRY(cudaStreamCreateWithFlags(&t.side, cudaStreamNonBlocking));
      TWOBODY_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&t.seen), sizeof(unsigned long long), cudaHostAllocDefault));
      t.device = dev;
    }
    return t;
  }
  void release()
  {
    if (device < 0) { return; }
    (void)cudaFree(control);  // (errors ignored: at exit the runtime may be gone)
    (void)cudaStreamDestroy(side);
    (void)cudaFreeHost(seen);
    device = -1;
  }
  ~thread_control() { release(); }
};

/// While it lives, the GPU launches of the calling thread count their units in a launch_control
/// and stop when the progress callback throws; wait_for_stream() reports about every
/// progress_interval. `pairs` is what the reports count to. Nothing happens without a callback,
/// or inside another scope.
class gpu_progress_scope {
 public:
  gpu_progress_scope(progress_callback const* cb, std::uint64_t pairs, cudaStream_t stream)
    : cb_(cb), pairs_(pairs), previous_(current_gpu_progress())
  {
    // Inside another call's scope (a one-call form that calls another), that scope reports.
    if (cb_ == nullptr || previous_ != nullptr) {
      cb_ = nullptr;
      return;
    }
    t_ = &thread_control::current();
    // In stream order, before the call's launches (the previous call of this thread has ended).
    TWOBODY_CUDA_TRY(cudaMemsetAsync(t_->control, 0, sizeof(launch_control), stream));
    last_                  = std::chrono::steady_clock::now();
    current_gpu_progress() = this;
  }
  ~gpu_progress_scope()
  {
    if (cb_ != nullptr) { current_gpu_progress() = previous_; }
  }
  gpu_progress_scope(gpu_progress_scope const&)            = delete;
  gpu_progress_scope& operator=(gpu_progress_scope const&) = delete;

  launch_control* control() const { return t_->control; }

  /// A controlled launch of `units` units is enqueued: the reports count them.
  void expect(unsigned long long units) { expected_ += units; }

  /// Waits for `stream`, reporting about every progress_interval; when the callback throws, sets
  /// the stop flag, waits for the launches to end and rethrows.
  void wait(cudaStream_t stream)
  {
    auto const start = std::chrono::steady_clock::now();
    for (;;) {
      cudaError_t const s = cudaStreamQuery(stream);
      if (s == cudaSuccess) { return; }
      if (s != cudaErrorNotReady) { TWOBODY_CUDA_TRY(s); }
      auto const now = std::chrono::steady_clock::now();
      // Spin through the first millisecond (short calls pay no sleep), then poll every 200 us.
      if (now - start < std::chrono::milliseconds(1)) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      if (now - last_ >= progress_interval) {
        last_ = now;
        report_or_stop(read_units(), &stream);
      }
    }
  }

  /// The call's last report (done == total), once its result is in.
  void finish()
  {
    if (cb_ != nullptr) { report_or_stop(~0ull, nullptr); }
  }

 private:
  unsigned long long read_units()
  {
    TWOBODY_CUDA_TRY(
      cudaMemcpyAsync(t_->seen, &t_->control->units, sizeof(unsigned long long), cudaMemcpyDeviceToHost, t_->side));
    TWOBODY_CUDA_TRY(cudaStreamSynchronize(t_->side));
    return *t_->seen;
  }

  /// Calls back with the pairs of `units` units (~0: all); on an exception, stops the launches of
  /// *running (null: none runs) and rethrows.
  void report_or_stop(unsigned long long units, cudaStream_t const* running)
  {
    std::uint64_t done = pairs_;
    if (units != ~0ull) {
      double const share = expected_ == 0 ? 0.0 : std::min(1.0, double(units) / double(expected_));
      done               = std::min<std::uint64_t>(pairs_, static_cast<std::uint64_t>(share * double(pairs_)));
    }
    done_ = std::max(done_, done);  // (more launches may be expected later: never go back)
    try {
      (*cb_)(progress_report{done_, pairs_});
    } catch (...) {
      if (running != nullptr) {  // (a memset of the flag's bytes: any nonzero value stops)
        (void)cudaMemsetAsync(&t_->control->stop, 1, sizeof t_->control->stop, t_->side);
        (void)cudaStreamSynchronize(t_->side);
        (void)cudaStreamSynchronize(*running);
      }
      throw;
    }
  }

  progress_callback const* cb_;
  std::uint64_t pairs_;
  gpu_progress_scope* previous_;
  thread_control* t_              = nullptr;  ///< (set while the scope reports)
  unsigned long long expected_    = 0;
  std::uint64_t done_             = 0;
  std::chrono::steady_clock::time_point last_{};
};

/// Runs fn() (a GPU call's work on `stream`) inside a gpu_progress_scope for `cb` over `pairs`,
/// then makes the last report.
template <class Fn>
auto with_gpu_progress(progress_callback const* cb, std::uint64_t pairs, cudaStream_t stream, Fn&& fn)
{
  gpu_progress_scope reports(cb, pairs, stream);
  auto result = fn();
  reports.finish();
  return result;
}

/// The launch_control of this thread's GPU call, or null (no progress callback): launches pass it
/// to their unit sources. Counts `units` toward the reports.
inline launch_control* current_launch_control(unsigned long long units)
{
  gpu_progress_scope* const s = current_gpu_progress();
  if (s == nullptr) { return nullptr; }
  s->expect(units);
  return s->control();
}

/// Waits for `stream`: polling with progress reports inside a gpu_progress_scope, else
/// cudaStreamSynchronize.
inline void wait_for_stream(cudaStream_t stream)
{
  if (gpu_progress_scope* const s = current_gpu_progress()) {
    s->wait(stream);
  } else {
    TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
  }
}

}  // namespace twobody::detail
