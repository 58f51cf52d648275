/// \file rows.cuh
/// \brief The dispatch of counts and histograms of high-dimensional rows: stages the rows into a
/// zero-padded device buffer with their squared norms, picks the product core (tensor cores or
/// FP32 CUDA cores), checks that the device can run it, and launches the row traversal.
/// highdim.cuh's forms call it.
#pragma once

#include <twobody/binning.cuh>
#include <twobody/cpu/rows.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/dispatch/histogram_launch.cuh>
#include <twobody/dispatch/reduce.cuh>
#include <twobody/engine/engine.cuh>
#include <twobody/execution.cuh>
#include <twobody/input/automatic.cuh>
#include <twobody/math/row_metric_kind.cuh>
#include <twobody/output/global_atomics.cuh>
#include <twobody/output/privatized_histogram.cuh>
#include <twobody/output/registers.cuh>
#include <twobody/results.cuh>
#include <twobody/row_metrics.cuh>
#include <twobody/rows.cuh>
#include <twobody/rows/mma_traversal.cuh>
#include <twobody/rows/row_tensor_map.cuh>
#include <twobody/rows/simt_row_products.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/device_info.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/gpu_progress.cuh>
#include <twobody/util/gpu_status.cuh>
#include <twobody/util/pinned_array.cuh>
#include <twobody/util/staging.cuh>

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <cuda_runtime_api.h>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace twobody {
namespace detail {

/// dims rounded up to whole staged chunks.
template <class T>
int padded_dims(int dims)
{
  constexpr int kc = mma_chunk_elements<T>;
  return (dims + kc - 1) / kc * kc;
}

/// A row set on the device for the tensor-core traversal: padded rows, terms, exact norms.
template <class T, bool W>
class staged_rows {
 public:
  staged_rows(rows<T, W> const& r, int dims_padded, cudaStream_t stream)
    : data_(sizeof(T) * static_cast<std::size_t>(r.size) * dims_padded, stream),
      terms_(sizeof(row_term) * static_cast<std::size_t>(r.size), stream),
      norms_(sizeof(double) * static_cast<std::size_t>(r.size), stream)
  {
    view_.size = r.size;
    if (r.size == 0) { return; }
    TWOBODY_CUDA_TRY(cudaMemsetAsync(data_.data(), 0, sizeof(T) * static_cast<std::size_t>(r.size) * dims_padded, stream));
    // Host or device rows alike: cudaMemcpyDefault follows the pointer (unified addressing).
    TWOBODY_CUDA_TRY(cudaMemcpy2DAsync(data_.data(), sizeof(T) * dims_padded, r.data, sizeof(T) * static_cast<std::size_t>(r.ld),
                                       sizeof(T) * r.dims, static_cast<std::size_t>(r.size), cudaMemcpyDefault, stream));
    device_buffer staged_weights;
    float const* w = nullptr;
    if constexpr (W) {
      staged_weights = device_buffer(sizeof(float) * static_cast<std::size_t>(r.size), stream);
      TWOBODY_CUDA_TRY(cudaMemcpyAsync(staged_weights.data(), r.weights, sizeof(float) * static_cast<std::size_t>(r.size),
                                       cudaMemcpyDefault, stream));
      w = staged_weights.as<float>();
    }
    constexpr int threads = 256;
    size_type const blocks = (r.size * 32 + threads - 1) / threads;
    TWOBODY_EXPECTS(blocks < (size_type(1) << 31), "too many rows for one call");
    prepare_rows_kernel<T><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
      data_.as<T>(), r.size, dims_padded, w, terms_.as<row_term>(), norms_.as<double>());
    TWOBODY_CHECK_LAUNCH();
    view_.data        = data_.as<T>();
    view_.terms       = terms_.as<row_term>();
    view_.exact_norms = norms_.as<double>();
    // 16-bit rows long enough for wgmma on sm_90: the tensor memory accelerator stages their
    // chunks (row_tensor_map.cuh); without a map, products_wgmma stages with cp.async.
    if constexpr (sizeof(T) == 2) {
      char const* const no_tma = std::getenv("TWOBODY_NO_TMA");  // "1": stage with cp.async (docs/troubleshooting.md)
      bool const tma_off       = no_tma != nullptr && no_tma[0] != '\0' && no_tma[0] != '0';
      if (!tma_off && dims_padded >= mma_tile_products<T>::tma_min_dims && device_info::get().cc_major == 9) {
        constexpr CUtensorMapDataType type =
          cuda::std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
        map_ = row_tensor_map(view_.data, type, r.size, dims_padded, mma_chunk_elements<T>, input::mma_tile::tile, stream);
        view_.tensor_map = map_.get();
      }
    }
  }

  staged_row_view<T> const& view() const { return view_; }

 private:
  device_buffer data_, terms_, norms_;
  row_tensor_map map_;
  staged_row_view<T> view_;
};

/// Both sides of a row pair set staged (B only in cross mode; otherwise B is A), padded alike;
/// the margin's relative term is the products core's (relative_error).
template <class T, bool W>
class staged_row_pairs {
 public:
  staged_row_pairs(pair_set<rows<T, W>> const& pairs, cudaStream_t stream)
    : dims_padded_(padded_dims<T>(pairs.a.dims)), a_(pairs.a, dims_padded_, stream)
  {
    if (pairs.mode == pair_mode::cross) { b_.emplace(pairs.b, dims_padded_, stream); }
  }
  staged_row_view<T> const& a() const { return a_.view(); }
  staged_row_view<T> const& b() const { return b_ ? b_->view() : a_.view(); }
  int dims_padded() const { return dims_padded_; }
  float abs_term() const { return static_cast<float>(dims_padded_) * 0x1p-100f; }  ///< the margin's absolute term

 private:
  int dims_padded_;
  staged_rows<T, W> a_;
  std::optional<staged_rows<T, W>> b_;
};

/// The tensor-core path needs mma.sync with TF32/BF16 and cp.async: compute capability 8.0, in
/// the GPU and in the code `kernel` was compiled to.
inline void require_row_tensor_cores(void const* kernel)
{
  device_info const& dev = device_info::get();
  TWOBODY_EXPECTS(dev.cc_major >= 8, ("statistics of rows on the GPU need compute capability 8.0 or newer (tensor cores "
                                      "with TF32 and BF16), but " + dev.name + " is " + std::to_string(dev.cc_major) + "." +
                                      std::to_string(dev.cc_minor) + ": run them on twobody::exec::cpu")
                                       .c_str());
  int const arch = runtime_attributes(kernel).ptx_version;
  TWOBODY_EXPECTS(arch >= 80, rebuild_for(arch, "statistics of rows on the tensor cores", "8.0").c_str());
}

/// Whether a products core is the CUDA cores' (simt_row_products: input::simt_rows, double rows).
template <class Core>
inline constexpr bool is_simt_row_products_v = false;
template <class T>
inline constexpr bool is_simt_row_products_v<simt_row_products<T>> = true;

/// require_row_tensor_cores where the products core is the tensor cores' (the CUDA cores' runs
/// on any GPU); `kernel` is the statistic's kernel.
template <class Core, class Kernel>
void require_row_core(Kernel kernel)
{
  if constexpr (!is_simt_row_products_v<Core>) { require_row_tensor_cores(reinterpret_cast<void const*>(kernel)); }
}

/// A count's test of a pair's value by its rule (row_predicate, squared_below_threshold).
template <class Rule>
struct row_rule_test {
  Rule rule;
  __device__ bool operator()(float v, float) const { return rule(v); }
};
struct row_value_fn {
  __device__ float operator()(float v, float) const { return v; }
};

/// The engine kernel of a row statistic: the tensor-core traversal, agent `Agent` behind f.
/// The products core of an input policy of rows: the tensor cores (input::mma_tile, which refuses
/// double rows), the CUDA cores (input::simt_rows), or for input::automatic row_core_t (the
/// tensor cores; for double rows the CUDA cores).
template <class Input, class T>
using row_products_t =
  cuda::std::conditional_t<cuda::std::is_same_v<Input, input::simt_rows>, simt_row_products<T>,
                           cuda::std::conditional_t<cuda::std::is_same_v<Input, input::mma_tile>, mma_tile_products<T>, row_core_t<T>>>;

template <class Input, class T>
inline constexpr bool is_row_input_v = cuda::std::is_same_v<Input, input::automatic> || cuda::std::is_same_v<Input, input::mma_tile> ||
                                       cuda::std::is_same_v<Input, input::simt_rows>;

template <class T, row_metric_kind M, class Rule, bool W, class Agent, class F, class Core = row_core_t<T>>
inline constexpr auto row_kernel = pair_engine_kernel<mma_traversal<T, M, Rule, W, Core>, statistic_visitor<Agent, F>, strided_units>;

/// One launch of the engine with the tensor-core traversal: stages the sets, plans a persistent
/// grid, asks `agent_params(grid)` for the agent's parameters, launches.
template <row_metric_kind M, class T, bool W, class Rule, class Agent, class Core = row_core_t<T>, class F, class AgentParams>
void launch_rows(pair_set<rows<T, W>> const& pairs, Rule const& rule, F const& f, std::size_t dynamic_smem,
                 AgentParams&& agent_params, cudaStream_t stream, unsigned long long* d_refined = nullptr)
{
  using traversal = mma_traversal<T, M, Rule, W, Core>;
  using visitor   = statistic_visitor<Agent, F>;
  constexpr auto kernel = row_kernel<T, M, Rule, W, Agent, F, Core>;
  tile_schedule const sched =
    tile_schedule::make(pairs.mode, pairs.a.size, pairs.b.size, input::mma_tile::tile).with_bands(input::mma_tile::band_rows);
  if (sched.total == 0) {
    agent_params(0);
    return;
  }
  require_row_core<Core>(kernel);
  std::size_t const smem = launch_smem<traversal, kernel>(dynamic_smem);
  int const grid         = persistent_grid(kernel, traversal::block_threads, smem, static_cast<unsigned long long>(sched.total));
  staged_row_pairs<T, W> const staged(pairs, stream);
  typename traversal::params walk{pairs.mode, staged.a(), staged.b(), staged.dims_padded(), sched,
                                  Core::relative_error(staged.dims_padded()), staged.abs_term(), rule, d_refined};
  typename visitor::params out{agent_params(grid), f};
  auto const units = static_cast<unsigned long long>(sched.total);
  kernel<<<grid, traversal::block_threads, smem, stream>>>(walk, out, strided_units::params{units, current_launch_control(units)});
  TWOBODY_CHECK_LAUNCH();
}

template <class Input = input::automatic, class T, bool W, class Pred>
pair_count_t<rows<T, W>> count_rows_gpu(pair_set<rows<T, W>> const& pairs, Pred const& pred, cudaStream_t stream,
                                        unsigned long long* d_refined = nullptr)
{
  using C     = pair_count_t<rows<T, W>>;
  using Agent = reduction_agent<C, cuda::std::plus<C>, count_inner_t<rows<T, W>>, input::mma_tile::block_threads>;
  using Rule  = row_predicate<Pred>;
  Rule const rule(pred);
  device_buffer result(sizeof(C), stream);
  device_buffer partials;
  int blocks       = 0;
  auto const count = [&](auto const& decide) {
    using Decide = cuda::std::decay_t<decltype(decide)>;
    launch_rows<Decide::metric, T, W, Decide, Agent, row_products_t<Input, T>>(
      pairs, decide, row_rule_test<Decide>{decide}, 0,
      [&](int grid) {
        blocks   = grid;
        partials = device_buffer(sizeof(C) * static_cast<std::size_t>(grid > 0 ? grid : 1), stream);
        return typename Agent::params{partials.as<C>(), cuda::std::plus<C>{}, C{}, nullptr};
      },
      stream, d_refined);
  };
  // closer_than(euclidean, t) is decided on squared distances (squared_below_threshold), one
  // kernel for every t: no distance (>= 0, or NaN) is below t <= 0 or a NaN t.
  if constexpr (Rule::metric == row_metric_kind::euclidean && cuda::std::is_base_of_v<below_threshold, Rule>) {
    if (!(rule.t > 0.0f)) { return C{}; }
    count(squared_below_threshold::of(rule.t));
  } else {
    count(rule);
  }
  std::size_t bytes = 0;
  TWOBODY_CUDA_TRY(cub::DeviceReduce::Reduce(nullptr, bytes, partials.as<C>(), result.as<C>(), blocks, cuda::std::plus<C>{}, C{}, stream));
  device_buffer temp(bytes, stream);
  TWOBODY_CUDA_TRY(cub::DeviceReduce::Reduce(temp.data(), bytes, partials.as<C>(), result.as<C>(), blocks, cuda::std::plus<C>{}, C{}, stream));
  return copy_to_host(result.as<C>(), stream);
}

template <class Input, class T, bool W, class Metric>
histogram_result<pair_count_t<rows<T, W>>> histogram_rows_gpu(pair_set<rows<T, W>> const& pairs, uniform_bins<float> const& bins,
                                                              cudaStream_t stream)
{
  using C       = pair_count_t<rows<T, W>>;
  using Counter = shared_counter_t<C>;
  using Rule    = row_binning<uniform_bins<float>>;
  constexpr row_metric_kind M = row_metric<Metric>::kind;
  int const slots             = bins.size() + 1;
  device_buffer counts(sizeof(C) * static_cast<std::size_t>(slots), stream);
  TWOBODY_CUDA_TRY(cudaMemsetAsync(counts.data(), 0, sizeof(C) * static_cast<std::size_t>(slots), stream));
  std::size_t const smem = sizeof(Counter) * static_cast<std::size_t>(slots);
  using Private = privatized_histogram_agent<uniform_bins<float>, C, Counter, input::mma_tile::block_threads, window_mode::none>;
  // One shared copy per block while it fits (the tensor cores, not the updates, set the pace);
  // past that, one global atomic per pair.
  using Core                     = row_products_t<Input, T>;
  std::size_t const shared_limit = visitor_smem_limit<mma_traversal<T, M, Rule, W, Core>, row_kernel<T, M, Rule, W, Private, row_value_fn, Core>>();
  if (smem <= shared_limit) {
    unsigned long long const limit = flush_limit_for<Counter>(static_cast<unsigned long long>(input::mma_tile::tile) * input::mma_tile::tile);
    launch_rows<M, T, W, Rule, Private, Core>(pairs, Rule{bins}, row_value_fn{}, smem,
                                        [&](int) { return typename Private::params{bins, counts.as<C>(), 1, 0, slots, limit, false}; },
                                        stream);
  } else {
    using Agent = global_histogram_agent<uniform_bins<float>, C, input::mma_tile::block_threads>;
    launch_rows<M, T, W, Rule, Agent, Core>(pairs, Rule{bins}, row_value_fn{}, 0,
                                      [&](int) { return typename Agent::params{bins, counts.as<C>()}; }, stream);
  }
  std::vector<C> all(static_cast<std::size_t>(slots));
  copy_to_host_sync(all.data(), counts.as<C>(), all.size(), stream);
  return histogram_result<C>::from_slots(std::move(all), pairs.count());
}

/// count_pairs of rows returned to the host (highdim.cuh): on_backend checks the pairs and runs
/// the CPU backend or count_rows_gpu.
template <class Input, class T, bool W, class Pred>
pair_count_t<rows<T, W>> count_rows_on(execution_policy const& exec, pair_set<rows<T, W>> const& pairs, Pred const& pred)
{
  return on_backend(
    exec, "count_pairs", pairs, [&] { return cpu::count_pairs(pairs, pred); },
    [&](cudaStream_t stream) { return count_rows_gpu<Input>(pairs, pred, stream); });
}

/// histogram of rows returned to the host (highdim.cuh): checks the bins; on_backend checks the
/// pairs and runs the CPU backend or histogram_rows_gpu.
template <class Input, class T, bool W, class Metric>
histogram_result<pair_count_t<rows<T, W>>> histogram_rows_on(execution_policy const& exec, pair_set<rows<T, W>> const& pairs,
                                                             Metric const& metric, uniform_bins<float> const& bins)
{
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram: need at least one bin");
  return on_backend(
    exec, "histogram", pairs, [&] { return cpu::histogram(pairs, metric, bins); },
    [&](cudaStream_t stream) { return histogram_rows_gpu<Input, T, W, Metric>(pairs, bins, stream); });
}

}  // namespace detail

}  // namespace twobody
