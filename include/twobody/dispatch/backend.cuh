/// \file backend.cuh
/// \brief The first step of every one-call statistic: the execution policy becomes a
/// backend (GPU or CPU), and the CPU path gets arrays it can read.
#pragma once

#include <twobody/execution.cuh>
#include <twobody/points.cuh>
#include <twobody/progress.cuh>
#include <twobody/rows.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/gpu_progress.cuh>
#include <twobody/util/gpu_status.cuh>
#include <twobody/util/progress_scope.cuh>
#include <twobody/util/validate.cuh>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdio>
#include <string>

namespace twobody::detail {

/// True when `exec` runs `what` on the GPU. exec::gpu without a usable GPU throws;
/// exec::automatic without one falls back to the CPU and says so once per process.
inline bool runs_on_gpu(execution_policy const& exec, char const* what)
{
  switch (exec.where) {
    case backend::gpu: require_gpu(what); return true;
    case backend::cpu: return false;
    case backend::automatic: break;
  }
  gpu_status const& s = current_gpu_status();
  if (s.usable) { return true; }
  static std::atomic<bool> told{false};
  if (!told.exchange(true)) {
    std::fprintf(stderr,
                 "twobody: no usable CUDA GPU (%s); running on the CPU backend (pass twobody::exec::cpu to "
                 "choose it without this notice)\n",
                 s.reason.c_str());
  }
  return false;
}

/// The CPU backend reads arrays on the host: with a GPU present, refuse device memory by name
/// rather than crash on it (without a GPU no device memory can exist). `set` names the array's
/// set in the message ("point set A", "row set B").
inline void check_host_pointer(void const* ptr, std::string const& set)
{
  if (ptr == nullptr) { return; }
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return;  // not known to CUDA: plain host memory
  }
  TWOBODY_EXPECTS(attr.type != cudaMemoryTypeDevice,
                  ("the CPU backend needs host arrays, but " + set +
                   " is in device memory: copy it to the host, or run on exec::gpu")
                    .c_str());
}

template <class Points>
void check_host_readable(Points const& p, char const* side)
{
  if (p.size <= 0 || !current_gpu_status().usable) { return; }
  for (auto const* c : p.coords) { check_host_pointer(c, std::string("point set ") + side); }
  if constexpr (Points::weighted) { check_host_pointer(p.weights, std::string("point set ") + side); }
}

template <class T, bool W>
void check_host_readable(rows<T, W> const& r, char const* side)
{
  if (r.size <= 0 || !current_gpu_status().usable) { return; }
  check_host_pointer(r.data, std::string("row set ") + side);
  if constexpr (W) { check_host_pointer(r.weights, std::string("row set ") + side); }
}

template <class Points>
void check_host_readable(pair_set<Points> const& pairs)
{
  check_host_readable(pairs.a, "A");
  if (pairs.mode == pair_mode::cross) { check_host_readable(pairs.b, "B"); }
}

/// Runs a CPU-backend call with exec's progress callback installed for its loops (progress.cuh).
template <class Fn>
auto on_cpu_backend(execution_policy const& exec, Fn&& fn)
{
  progress_scope const scope(exec.progress);
  return fn();
}

/// The backend step of every host-result one-call form: checks the pair set, then runs
/// on_cpu() on host-readable arrays or on_gpu(stream) on exec's stream, with exec's progress
/// callback reporting from its launches (util/gpu_progress.cuh).
template <class Points, class OnCpu, class OnGpu>
auto on_backend(execution_policy const& exec, char const* what, pair_set<Points> const& pairs, OnCpu&& on_cpu,
                OnGpu&& on_gpu)
{
  validate(pairs);
  if (!runs_on_gpu(exec, what)) {
    check_host_readable(pairs);
    return on_cpu_backend(exec, on_cpu);
  }
  return with_gpu_progress(exec.progress, pairs.count(), exec.stream, [&] { return on_gpu(exec.stream); });
}

}  // namespace twobody::detail
