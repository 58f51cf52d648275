/// \file error.cuh
/// \brief The one exception type twobody throws.
#pragma once

// Host only: device code (and run-time compiled functors, runtime_functor.cuh) never throws.
#ifndef __CUDACC_RTC__
#include <stdexcept>
#include <string>

namespace twobody {

/// Thrown for bad arguments (empty sets, zero bins, NaN ranges, sizes the
/// kernels cannot index) and for every failed CUDA call. The message names the
/// file and line, the CUDA error string where there is one, and what to change.
class error : public std::runtime_error {
 public:
  explicit error(std::string const& what) : std::runtime_error(what) {}
};

}  // namespace twobody
#endif  // __CUDACC_RTC__
