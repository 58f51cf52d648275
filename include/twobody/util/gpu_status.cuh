/// \file gpu_status.cuh
/// \brief Whether this process has a usable GPU, asked once (cudaGetDeviceCount), and the
/// error a GPU-only call raises without one.
#pragma once

#include <twobody/util/error.cuh>

#include <cuda_runtime_api.h>

#include <string>

namespace twobody::detail {

struct gpu_status {
  bool usable = false;
  std::string reason;  ///< why not, in the driver's words
};

/// Asked once per process: the answer does not change while it runs.
inline gpu_status const& current_gpu_status()
{
  static gpu_status const status = [] {
    gpu_status s;
    int n                 = 0;
    cudaError_t const err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      s.reason = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
    } else if (n == 0) {
      s.reason = "no CUDA device is visible";
    } else {
      s.usable = true;
    }
    return s;
  }();
  return status;
}

/// Throws twobody::error naming `what`, the driver's reason and the CPU backend when there
/// is no usable GPU.
inline void require_gpu(char const* what)
{
  gpu_status const& s = current_gpu_status();
  if (s.usable) { return; }
  throw twobody::error(std::string("twobody::") + what + ": no usable CUDA GPU (" + s.reason +
                       "). Run it on the CPU backend: pass twobody::exec::cpu (or twobody::exec::automatic) as "
                       "the first argument of the one-call forms.");
}

}  // namespace twobody::detail
