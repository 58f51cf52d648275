/// \file error.cuh
/// \brief The one exception type twobody throws.
#pragma once

// Host only: device code (and run-time compiled functors, runtime_functor.cuh) never throws.
#ifndef __CUDACC_RTC__
#include <stdexcept>
#include <string>

namespace twobody {

/// Thrown for bad arguments (empty sets, zero bins, NaN ranges, sizes the
/// kernels cannot index) and for every failed CUDA call. what() is the message, what to
/// change, and the file and line of the check in brackets; message() and where() give them
/// apart (for bindings that show their own users the message alone).
class error : public std::runtime_error {
 public:
  explicit error(std::string const& what) : std::runtime_error(what), message_(what) {}
  error(std::string const& message, std::string const& where)
    : std::runtime_error(message + " [" + where + "]"), message_(message), where_(where)
  {
  }

  /// The message without the source location.
  std::string const& message() const noexcept { return message_; }
  /// "file:line" of the check that threw, or empty.
  std::string const& where() const noexcept { return where_; }

 private:
  std::string message_;
  std::string where_;
};

/// A bad argument, caught by the library's checks before any work: the message says what to
/// change. Derives from error, so catching twobody::error catches it too.
class invalid_argument : public error {
 public:
  using error::error;
};

}  // namespace twobody
#endif  // __CUDACC_RTC__
