/// \file highdim_per_point.cuh
/// \brief Per-point sums over high-dimensional rows (rows.cuh) on the tensor cores: kernel
/// sums, kernel density estimates and the three sums of an MMD.
///
///     auto x = twobody::make_rows(n, 128, embeddings);              // host or device memory
///     std::vector<double> density = twobody::sum_per_point(twobody::ordered_pairs(x), twobody::gaussian_kernel(0.5f));
///     auto k_xy = twobody::sum_per_point(twobody::cross_pairs(x, y), twobody::gaussian_kernel(0.5f));
///     auto lap  = twobody::sum_per_point(twobody::ordered_pairs(x), twobody::function_of(twobody::euclidean{}, laplace{h}));
///
/// out[i] = the sum over the partners j of row i (cross: all of B; ordered: every j != i) of
/// f(value of the pair), f being gaussian_kernel(h) (exp(-|a - b|^2 / (2 h^2)), float) or
/// function_of(metric, f) with any row metric and a `__host__ __device__` f of a float.
///
/// Precision (docs/highdim.md): on the GPU each term is f of the tensor-core approximation of
/// the value, which lies within the margin proven for counts (a relative error of about
/// (D + 16) 2^-22 of |a|^2 + |b|^2 for distances, less than 10^-4 of it at D = 128 in half and
/// bfloat16; TF32 adds 2^-10 for float rows); a pair whose approximation is not finite is
/// evaluated exactly, so NaN coordinates make the sums of their points NaN, as on the CPU. Terms
/// are summed in float within a tile pair and added to the output with atomics (the order, and
/// so the last bits, vary from run to run). The CPU backend sums f of the exact values in
/// double. Ordered pairs cost the tensor-core work of the self pairs: each pair serves both of
/// its points. Unweighted rows; self pairs are refused (each pair is visited once).
#pragma once

#include <twobody/cpu/rows.cuh>
#include <twobody/detail/device_buffer.cuh>
#include <twobody/detail/engine.cuh>
#include <twobody/detail/error.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/detail/mma_sum_traversal.cuh>
#include <twobody/detail/pinned_array.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/execution.cuh>
#include <twobody/highdim.cuh>
#include <twobody/output/per_point.cuh>
#include <twobody/rows.cuh>

#include <cuda/std/type_traits>

#include <cuda_runtime_api.h>

#include <vector>

namespace twobody {
namespace detail {

/// The per-point sums of rows on the GPU into d_out (|A| values, overwritten), asynchronous.
/// The callers have checked the pairs (validate, check_row_sums).
template <class T, bool W, class F, class Out>
void sum_rows_gpu(pair_set<rows<T, W>> const& pairs, F const& f, Out* d_out, cudaStream_t stream)
{
  static_assert(cuda::std::is_same_v<Out, float> || cuda::std::is_same_v<Out, double>,
                "sum_per_point of rows: the output must be float or double");
  using Term = row_function<F>;
  constexpr row_metric_kind M = Term::metric;
  using traversal = mma_sum_traversal<T, M, Term>;
  using visitor   = per_point_adder<Out>;
  constexpr auto kernel = pair_engine_kernel<traversal, visitor, strided_units>;
  if (pairs.a.size == 0) { return; }
  TWOBODY_EXPECTS(d_out != nullptr, "sum_per_point: the output pointer is null");
  TWOBODY_CUDA_TRY(cudaMemsetAsync(d_out, 0, sizeof(Out) * static_cast<std::size_t>(pairs.a.size), stream));
  bool const both = pairs.mode == pair_mode::ordered;
  tile_schedule const sched =
    tile_schedule::make(both ? pair_mode::self : pair_mode::cross, pairs.a.size, pairs.b.size, input::mma_tile::tile)
      .with_bands(input::mma_tile::band_rows);
  if (sched.total == 0) { return; }
  require_row_core<typename traversal::core>(kernel);
  std::size_t const smem = launch_smem<traversal, kernel>(0);  // the products' stages
  int const grid = persistent_grid(kernel, traversal::block_threads, smem, static_cast<unsigned long long>(sched.total));
  staged_row_pairs<T, W> const staged(pairs, stream);
  typename traversal::params walk{both, staged.a(), staged.b(), staged.dims_padded(), sched, Term(f)};
  kernel<<<grid, traversal::block_threads, smem, stream>>>(walk, typename visitor::params{d_out},
                                                         strided_units::params{static_cast<unsigned long long>(sched.total)});
  TWOBODY_CHECK_LAUNCH();
}

}  // namespace detail

/// Device form: out[i] = the sum of f(value) over the partners of row i, into d_out (|A|
/// float or double values, overwritten). Asynchronous on `stream` (the rows are staged in
/// stream-ordered memory; host rows are copied first).
template <class T, bool W, class F, class Out>
void sum_per_point(pair_set<rows<T, W>> const& pairs, F f, Out* d_out, cudaStream_t stream = 0)
{
  detail::validate(pairs);
  detail::check_row_sums(pairs);
  detail::sum_rows_gpu(pairs, f, d_out, stream);
}

/// One-call form: the sums in host memory (double), on the backend `exec` names.
template <class T, bool W, class F>
std::vector<double> sum_per_point(execution_policy const& exec, pair_set<rows<T, W>> const& pairs, F f)
{
  return detail::on_backend(
    exec, "sum_per_point", pairs, [&] { return cpu::sum_per_point(pairs, f); },
    [&](cudaStream_t stream) {
      detail::check_row_sums(pairs);  // (on_backend has validated the pairs)
      std::vector<double> out(static_cast<std::size_t>(pairs.a.size));
      if (out.empty()) { return out; }
      detail::device_buffer d(sizeof(double) * out.size(), stream);
      detail::sum_rows_gpu(pairs, f, d.as<double>(), stream);
      detail::copy_to_host_sync(out.data(), d.as<double>(), out.size(), stream);
      return out;
    });
}

/// sum_per_point of rows under exec::automatic on `stream`.
template <class T, bool W, class F>
std::vector<double> sum_per_point(pair_set<rows<T, W>> const& pairs, F f, cudaStream_t stream = 0)
{
  return sum_per_point(exec::automatic.on(stream), pairs, f);
}

}  // namespace twobody
