/// \file runtime_kernels.cuh
/// \brief Where the pair kernels of run-time compiled functors (runtime_functor.cuh) come from:
/// the runtime_program in scope on the calling thread. pair_kernel (launch.cuh) asks it for a
/// kernel by its C++ name instead of taking the address of a compiled template.
#pragma once

#include <twobody/util/error.cuh>

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <typeinfo>

namespace twobody::detail {

/// One pair kernel of a run-time functor: the C++ name of the kernel template's instantiation
/// (an explicit instantiation the run-time program compiles), and the functor's T and D.
struct runtime_kernel_request {
  std::string kernel;      ///< e.g. "twobody::detail::pair_engine_kernel<...>"
  std::string value_type;  ///< the functor's T as C++ ("float", "double")
  int dims = 0;            ///< the functor's D
};

/// A source of run-time compiled kernels (runtime_program).
class runtime_kernel_source {
 public:
  virtual ~runtime_kernel_source() = default;
  /// Adds the kernel to the next compilation, so the candidates of a plan compile together.
  virtual void announce(runtime_kernel_request const& request) = 0;
  /// The kernel (a cudaKernel_t, as the runtime API's `const void* func`), compiled with every
  /// announced kernel on first use. Throws twobody::error when the source does not compile.
  virtual void const* kernel(runtime_kernel_request const& request) = 0;
  /// An id no other program of this process has (keys the plans made for its kernels).
  virtual unsigned long long id() const = 0;
};

/// The program whose kernels this thread's run-time functors use (runtime_program::scope).
inline runtime_kernel_source*& active_runtime_source()
{
  thread_local runtime_kernel_source* source = nullptr;
  return source;
}

/// The active program, or a twobody::error saying how to make one active.
inline runtime_kernel_source& require_runtime_source()
{
  runtime_kernel_source* const s = active_runtime_source();
  TWOBODY_EXPECTS(s != nullptr, "a runtime_functor runs while its runtime_program is in scope: hold a "
                                "runtime_program::scope (runtime_program.cuh) around the call");
  return *s;
}

/// The C++ name of T as the compiler spells it (demangled), for the run-time program's source.
template <class T>
std::string cxx_name()
{
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> const name(abi::__cxa_demangle(typeid(T).name(), nullptr, nullptr, &status),
                                                    std::free);
  TWOBODY_EXPECTS(status == 0 && name, "cannot spell a kernel's type for the run-time compiler");
  return name.get();
}

}  // namespace twobody::detail
