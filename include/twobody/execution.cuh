/// \file execution.cuh
/// \brief Where a one-call statistic runs: on the GPU, on the CPU backend (OpenMP), or
/// wherever it can (the default), in the style of Thrust's execution policies.
///
///     auto h = twobody::histogram(twobody::exec::cpu, pairs, twobody::squared_euclidean{}, bins);
///     auto n = twobody::count_pairs(twobody::exec::gpu.on(stream), pairs, twobody::within_radius(5.f));
///     auto k = twobody::count_pairs(pairs, twobody::within_radius(5.f));   // exec::automatic
///     auto c = twobody::count_pairs(twobody::exec::cpu.with_progress(&report), pairs, pred);  // progress.cuh
///
/// Every one-call form that returns its result to the host takes a policy as its first
/// argument and returns the same type on either backend. Without one, it runs under
/// `exec::automatic`: on the GPU when a usable one is there, else on the CPU backend, with a
/// one-line notice on stderr the first time (pass `exec::cpu` to choose the CPU quietly).
/// `exec::gpu` without a usable GPU throws twobody::error with the driver's reason.
/// Forms that take device outputs or temporary storage run on the GPU only.
#pragma once

#include <twobody/progress.cuh>

#include <cuda_runtime_api.h>

namespace twobody {

/// Which backend runs a statistic.
enum class backend {
  automatic,  ///< the GPU when a usable one is there, else the CPU backend
  gpu,        ///< the current CUDA device; an error when there is none
  cpu,        ///< the CPU backend (OpenMP); point arrays must be in host memory
};

/// A backend and, for the GPU, the stream the work is ordered on (host-result forms
/// synchronize it before they return).
struct execution_policy {
  twobody::backend where            = twobody::backend::automatic;
  cudaStream_t stream               = 0;
  progress_callback const* progress = nullptr;  ///< reports and stops long calls (progress.cuh)

  /// The same policy on `s`.
  constexpr execution_policy on(cudaStream_t s) const { return {where, s, progress}; }
  /// The same policy, reporting to `*cb` (which must outlive the call; null: no reports).
  constexpr execution_policy with_progress(progress_callback const* cb) const { return {where, stream, cb}; }
};

namespace exec {
inline constexpr execution_policy automatic{backend::automatic, 0, nullptr};  ///< GPU if usable, else CPU
inline constexpr execution_policy gpu{backend::gpu, 0, nullptr};              ///< the current CUDA device
inline constexpr execution_policy cpu{backend::cpu, 0, nullptr};              ///< OpenMP on the host
}  // namespace exec

}  // namespace twobody
