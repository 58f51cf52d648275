/// \file progress_scope.cuh
/// \brief The calling thread's progress callback (progress.cuh) while a call runs: set by a
/// progress_scope, read by the CPU backend's loops, and how often they report.
#pragma once

#include <twobody/progress.cuh>

#include <chrono>

namespace twobody {

namespace detail {

/// The callback of the calls this thread makes now (set by progress_scope), or null.
inline progress_callback const*& current_progress()
{
  thread_local progress_callback const* current = nullptr;
  return current;
}

/// Makes `cb` the calling thread's progress callback while it lives (null: none).
class progress_scope {
 public:
  explicit progress_scope(progress_callback const* cb) : previous_(current_progress()) { current_progress() = cb; }
  ~progress_scope() { current_progress() = previous_; }
  progress_scope(progress_scope const&)            = delete;
  progress_scope& operator=(progress_scope const&) = delete;

 private:
  progress_callback const* previous_;
};

/// Seconds between two reports of one call.
inline constexpr std::chrono::milliseconds progress_interval{100};

}  // namespace detail

}  // namespace twobody
