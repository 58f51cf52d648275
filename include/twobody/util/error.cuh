#pragma once

#ifdef __CUDACC_RTC__
// Run-time compiled device code (runtime_functor.cuh) parses the host-side checks but never runs them.
#define TWOBODY_CUDA_TRY(call) ((void)0)
#define TWOBODY_CHECK_LAUNCH() ((void)0)
#define TWOBODY_EXPECTS(cond, message) ((void)0)
#else

#include <twobody/error.cuh>

#include <cuda_runtime_api.h>

#include <string>

namespace twobody::detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, char const* call, char const* file, int line)
{
  std::string msg = std::string("twobody: CUDA call `") + call + "` failed: " + cudaGetErrorName(status) + " (" +
                    cudaGetErrorString(status) + ")";
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver) {
    msg += ". There is no usable CUDA GPU: run on the CPU backend (pass twobody::exec::cpu, or "
           "twobody::exec::automatic, as the first argument of a one-call form)";
  }
  throw twobody::error(msg, std::string(file) + ":" + std::to_string(line));
}

/// A failed TWOBODY_EXPECTS: a bad argument (twobody::invalid_argument), or for checks whose
/// message starts "internal:", the library's own fault (twobody::error).
[[noreturn]] inline void throw_logic_error(char const* message, char const* file, int line)
{
  std::string const where = std::string(file) + ":" + std::to_string(line);
  if (std::string(message).rfind("internal:", 0) == 0) { throw twobody::error(std::string("twobody: ") + message, where); }
  throw twobody::invalid_argument(std::string("twobody: ") + message, where);
}

}  // namespace twobody::detail

/// Checks a CUDA runtime call; throws twobody::error with the call, place and CUDA message.
#define TWOBODY_CUDA_TRY(call)                                                  \
  do {                                                                          \
    cudaError_t const twobody_status_ = (call);                                 \
    if (twobody_status_ != cudaSuccess) {                                       \
      (void)cudaGetLastError(); /* clear a sticky-free error so later calls work */ \
      ::twobody::detail::throw_cuda_error(twobody_status_, #call, __FILE__, __LINE__); \
    }                                                                           \
  } while (0)

/// Checks the launch just made (configuration errors show up here, not at the launch).
#define TWOBODY_CHECK_LAUNCH() TWOBODY_CUDA_TRY(cudaPeekAtLastError())

/// Argument check: throws twobody::error(message) when `cond` is false.
#define TWOBODY_EXPECTS(cond, message)                                                  \
  do {                                                                                  \
    if (!(cond)) { ::twobody::detail::throw_logic_error((message), __FILE__, __LINE__); } \
  } while (0)
#endif  // __CUDACC_RTC__
