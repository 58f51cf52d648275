/// \file runtime_functor.cuh
/// \brief A pair functor whose body is CUDA C++ source compiled at run time (NVRTC): the type
/// the statistics see. runtime_program.cuh compiles the source and makes the kernels.
///
/// `runtime_functor<R, T, D>` is an ordinary functor to the library: pair sets of `points<T, D>`
/// go through reduce_pairs, count_pairs (R = bool), sum_per_point and histogram with it, on the
/// same traversal core and output policies as compiled functors. Its operator() is defined by
/// the run-time source, so it runs on the GPU only (the CPU backend refuses it, see
/// runtime_program.cuh). The functor holds up to max_runtime_params parameters, which the body
/// reads by the names its runtime_source gave them.
///
/// This header is also compiled by NVRTC (the run-time program includes it), so it holds
/// nothing host-only outside `__CUDACC_RTC__` guards.
#pragma once

#include <twobody/functors.cuh>
#include <twobody/points.cuh>
#include <twobody/util/config.cuh>
#include <twobody/util/error.cuh>

#include <cuda/std/type_traits>

namespace twobody {

/// Parameters one run-time functor can hold (params[0] .. params[15]).
inline constexpr int max_runtime_params = 16;

/// A pair functor `R f(point<T, D> a, point<T, D> b)` compiled at run time. `params` are the
/// values of the source's named parameters, in order; `program` is the runtime_program that
/// compiled the body (the host checks it; the device never reads it).
template <class R, class T, int D>
struct runtime_functor {
  using result_type                = R;
  using value_type                 = T;
  static constexpr int dims        = D;
  T params[max_runtime_params];
  void const* program;

  /// Defined by the run-time compiled source (runtime_program.cuh). Compiled ahead of time (by
  /// nvcc for the host or the device), it is never called: kernels come from the run-time
  /// program, and the CPU backend refuses the functor before it runs.
  __host__ __device__ R operator()(point<T, D> const& a, point<T, D> const& b) const
#ifdef __CUDACC_RTC__
    ;
#else
  {
    (void)a;
    (void)b;
#ifdef __CUDA_ARCH__
    __trap();
#else
    detail::throw_logic_error("a runtime_functor has no host code: run it on the GPU (exec::gpu)", __FILE__, __LINE__);
#endif
    return R{};
  }
#endif
};

/// Whether F is a run-time compiled functor.
template <class F>
struct is_runtime_functor : cuda::std::false_type {};
template <class R, class T, int D>
struct is_runtime_functor<runtime_functor<R, T, D>> : cuda::std::true_type {};
template <class F>
inline constexpr bool is_runtime_functor_v = is_runtime_functor<F>::value;

namespace detail {
template <class... Found>
struct first_runtime_functor {
  using type = void;
};
template <class First, class... Rest>
struct first_runtime_functor<First, Rest...> {
  using type = cuda::std::conditional_t<!cuda::std::is_void_v<First>, First, typename first_runtime_functor<Rest...>::type>;
};
}  // namespace detail

/// The run-time functor a type holds: X itself, or one held by a type argument of X's template
/// (an emitter, a visitor, a predicate combinator; searched recursively), else void. Kernels of
/// such types come from the run-time program (detail/launch.cuh: engine_kernel).
template <class X>
struct runtime_functor_in {
  using type = void;
};
template <class R, class T, int D>
struct runtime_functor_in<runtime_functor<R, T, D>> {
  using type = runtime_functor<R, T, D>;
};
template <template <class...> class Template, class... Args>
struct runtime_functor_in<Template<Args...>> {
  using type = typename detail::first_runtime_functor<typename runtime_functor_in<Args>::type...>::type;
};
template <class X>
inline constexpr bool holds_runtime_functor_v = !cuda::std::is_void_v<typename runtime_functor_in<X>::type>;

/// Helpers a run-time functor's body may call (they are in scope there): squared distance,
/// distance and dot product of two points.
template <class T, int D>
__host__ __device__ inline T dist2(point<T, D> const& a, point<T, D> const& b)
{
  return squared_euclidean{}(a, b);  // the library's own arithmetic, so results match its functors
}
template <class T, int D>
__host__ __device__ inline T dist(point<T, D> const& a, point<T, D> const& b)
{
  if constexpr (cuda::std::is_same_v<T, float>) {
    return sqrtf(dist2(a, b));
  } else {
    return ::sqrt(dist2(a, b));
  }
}
template <class T, int D>
__host__ __device__ inline T dot(point<T, D> const& a, point<T, D> const& b)
{
  T s = T(0);
TWOBODY_UNROLL
  for (int d = 0; d < D; ++d) { s = a.x[d] * b.x[d] + s; }
  return s;
}

}  // namespace twobody
