/// \file row_per_point.cuh
/// \brief The dispatch of per-point sums over rows: the tile schedule (ordered pairs take the
/// self pairs' tiles, each pair serving both points), the launch of the tensor-core sum
/// traversal, and the host-result form's copy back. highdim_per_point.cuh's forms call it.
#pragma once

#include <twobody/cpu/rows.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/dispatch/rows.cuh>
#include <twobody/engine/engine.cuh>
#include <twobody/execution.cuh>
#include <twobody/math/row_metric_kind.cuh>
#include <twobody/output/per_point.cuh>
#include <twobody/rows.cuh>
#include <twobody/rows/mma_sum_traversal.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/gpu_progress.cuh>
#include <twobody/util/pinned_array.cuh>
#include <twobody/util/validate.cuh>

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
  auto const units = static_cast<unsigned long long>(sched.total);
  kernel<<<grid, traversal::block_threads, smem, stream>>>(walk, typename visitor::params{d_out},
                                                         strided_units::params{units, current_launch_control(units)});
  TWOBODY_CHECK_LAUNCH();
}

/// The one-call form's GPU side: the sums in host memory (double). on_backend has validated the pairs.
template <class T, bool W, class F>
std::vector<double> sum_rows_to_host(pair_set<rows<T, W>> const& pairs, F const& f, cudaStream_t stream)
{
  check_row_sums(pairs);
  std::vector<double> out(static_cast<std::size_t>(pairs.a.size));
  if (out.empty()) { return out; }
  device_buffer d(sizeof(double) * out.size(), stream);
  sum_rows_gpu(pairs, f, d.as<double>(), stream);
  copy_to_host_sync(out.data(), d.as<double>(), out.size(), stream);
  return out;
}

/// The device-memory form (highdim_per_point.cuh): checks once, then sum_rows_gpu.
template <class T, bool W, class F, class Out>
void sum_rows_to_device(pair_set<rows<T, W>> const& pairs, F const& f, Out* d_out, cudaStream_t stream)
{
  validate(pairs);
  check_row_sums(pairs);
  sum_rows_gpu(pairs, f, d_out, stream);
}

/// The host-result form: on_backend checks the pairs and runs the CPU backend or sum_rows_to_host.
template <class T, bool W, class F>
std::vector<double> sum_rows_on(execution_policy const& exec, pair_set<rows<T, W>> const& pairs, F const& f)
{
  return on_backend(
    exec, "sum_per_point", pairs, [&] { return cpu::sum_per_point(pairs, f); },
    [&](cudaStream_t stream) { return sum_rows_to_host(pairs, f, stream); });
}

}  // namespace detail

}  // namespace twobody
