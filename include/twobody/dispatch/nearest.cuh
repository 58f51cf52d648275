/// \file nearest.cuh
/// \brief The dispatch of k-nearest-neighbour searches: the segments of B per point, the device
/// lists of k keys (output::nearest_lists), the launch of the row (tensor-core) or point
/// traversal, the sort of each list into order and the copy back. nearest_neighbors.cuh's forms
/// call it.
#pragma once

#include <twobody/cpu/nearest.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/detail/nearest_candidates.cuh>
#include <twobody/detail/nearest_point_traversal.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/dispatch/rows.cuh>
#include <twobody/execution.cuh>
#include <twobody/engine/engine.cuh>
#include <twobody/math/neighbor_keys.cuh>
#include <twobody/math/row_metric_kind.cuh>
#include <twobody/output/nearest_lists.cuh>
#include <twobody/results.cuh>
#include <twobody/rows.cuh>
#include <twobody/rows/mma_nearest_traversal.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/gpu_progress.cuh>
#include <twobody/util/pinned_array.cuh>
#include <twobody/util/staging.cuh>
#include <twobody/util/validate.cuh>

#include <cub/device/device_segmented_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cuda_runtime_api.h>
#include <cstdint>
#include <vector>

namespace twobody {
namespace detail {

/// Segments of B per tile of A. A segment restarts its rows' lists, and a list takes about
/// k ln(partners / k) offers, so: the fewest segments whose units spread over the grid's blocks
/// within 15% of the best spread of any count (the time of the block with the most tile pairs);
/// at most one per tile of B, and lists of at most 1 GiB beyond the one segment's. (Four units
/// per block, two segments at 65,536 rows, took 1.4x the offers of one.)
inline int nearest_segments(size_type row_tiles, size_type col_tiles, int grid, size_type rows, int k)
{
  double const budget = double(1 << 30) / (static_cast<double>(rows) * k * sizeof(neighbor_key));
  size_type limit     = col_tiles < 64 * static_cast<size_type>(grid) ? col_tiles : 64 * static_cast<size_type>(grid);
  limit               = budget < static_cast<double>(limit) ? static_cast<size_type>(budget) : limit;
  limit               = limit > 1 ? limit : 1;
  size_type const g   = grid > 0 ? grid : 1;
  auto const slowest  = [&](size_type s) {  // tile pairs of the block with the most
    return static_cast<double>((row_tiles * s + g - 1) / g) * static_cast<double>((col_tiles + s - 1) / s);
  };
  double best = slowest(1);
  for (size_type s = 2; s <= limit; ++s) { best = slowest(s) < best ? slowest(s) : best; }
  for (size_type s = 1; s < limit; ++s) {
    if (slowest(s) <= 1.15 * best) { return static_cast<int>(s); }
  }
  return static_cast<int>(limit);
}

#ifdef __CUDACC__
/// Output entry q of the size x k result from the lists (segments per row side by side, sorted
/// together when there are several). (A template: `inline` is not allowed on a __global__ function.)
template <class Key>
__global__ void decode_nearest_kernel(Key const* lists, size_type size, int k, int segments, bool larger_nearer,
                                      std::int32_t* index, float* value)
{
  size_type const total = size * k;
  for (size_type q = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x; q < total;
       q += static_cast<size_type>(gridDim.x) * blockDim.x) {
    size_type const i      = q / k;
    Key const key          = lists[i * segments * k + (q - i * k)];
    index[q]               = neighbor_index(key);
    value[q]               = neighbor_value(key, larger_nearer);
  }
}
#endif

struct times_fn {
  long long by;
  __host__ __device__ long long operator()(long long x) const { return x * by; }
};

/// The lists of one launch: allocated empty, merged across segments and decoded after it.
class nearest_lists_buffer {
 public:
  nearest_lists_buffer(size_type rows, int k, int segments, cudaStream_t stream)
    : rows_(rows), k_(k), segments_(segments),
      keys_(sizeof(neighbor_key) * static_cast<std::size_t>(rows) * segments * k, stream)
  {
    TWOBODY_CUDA_TRY(cudaMemsetAsync(keys_.data(), 0xff, keys_.size(), stream));  // every slot empty_neighbor
  }
  neighbor_key* keys() { return keys_.as<neighbor_key>(); }

  /// A template (Key is neighbor_key) so that the sort and decode kernels are compiled only
  /// where a nearest-neighbour search is, not in every file that includes this header.
  template <class Key = neighbor_key>
  void finish(bool larger_nearer, std::int32_t* d_index, float* d_value, cudaStream_t stream)
  {
    Key const* lists = keys_.as<Key>();
    device_buffer sorted;
    if (segments_ > 1) {
      // Each row's segments' lists are sorted runs side by side: one sort of the row's keys.
      long long const items = static_cast<long long>(rows_) * segments_ * k_;
      TWOBODY_EXPECTS(items < (1ll << 31), "nearest_neighbors: too many list entries to merge in one sort");
      auto offsets = thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0), times_fn{static_cast<long long>(segments_) * k_});
      sorted       = device_buffer(keys_.size(), stream);
      std::size_t bytes = 0;
      TWOBODY_CUDA_TRY(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, lists, sorted.as<Key>(), items,
                                                          rows_, offsets, offsets + 1, stream));
      device_buffer temp(bytes, stream);
      TWOBODY_CUDA_TRY(cub::DeviceSegmentedSort::SortKeys(temp.data(), bytes, lists, sorted.as<Key>(), items,
                                                          rows_, offsets, offsets + 1, stream));
      lists = sorted.as<Key>();
    }
    long long const total = static_cast<long long>(rows_) * k_;
    int const blocks      = static_cast<int>(total / 256 + 1 < 4096 ? total / 256 + 1 : 4096);
    decode_nearest_kernel<<<blocks, 256, 0, stream>>>(lists, rows_, k_, segments_, larger_nearer, d_index, d_value);
    TWOBODY_CHECK_LAUNCH();
  }

 private:
  size_type rows_;
  int k_, segments_;
  device_buffer keys_;
};

/// One launch of the engine with a nearest-neighbour traversal and `Visitor` over the tiles of
/// A's `rows` and col_tiles of B, the visitor taking `visitor_bytes` of dynamic shared memory
/// and `out(lists, segments)` its parameters; `walk(segments, segment_tiles)` gives the
/// traversal's. `segments` 0 chooses them (nearest_segments); tests ask for some.
template <class Traversal, class Visitor, class Walk, class Out>
void launch_nearest_with(size_type rows, size_type col_tiles, int k, bool larger_nearer, Walk&& walk, Out&& out,
                         std::size_t visitor_bytes, std::int32_t* d_index, float* d_value, cudaStream_t stream, int segments_wanted)
{
  constexpr auto kernel       = pair_engine_kernel<Traversal, Visitor, static_units>;
  size_type const row_tiles   = (rows + Traversal::TS - 1) / Traversal::TS;
  std::size_t const dynamic   = launch_smem<Traversal, kernel>(visitor_bytes);
  int const full              = persistent_grid(kernel, Traversal::block_threads, dynamic, ~0ull);
  int const segments        = segments_wanted > 0 ? static_cast<int>(segments_wanted < col_tiles ? segments_wanted : col_tiles)
                                                : nearest_segments(row_tiles, col_tiles, full, rows, k);
  size_type const seg_tiles = (col_tiles + segments - 1) / segments;
  unsigned long long const units = static_cast<unsigned long long>(row_tiles) * segments;
  int const grid = static_cast<int>(units < static_cast<unsigned long long>(full) ? units : full);
  nearest_lists_buffer lists(rows, k, segments, stream);
  typename Traversal::params const wp = walk(segments, seg_tiles);
  kernel<<<grid, Traversal::block_threads, dynamic, stream>>>(wp, out(lists, segments), static_units::params{units, current_launch_control(units)});
  TWOBODY_CHECK_LAUNCH();
  lists.finish(larger_nearer, d_index, d_value, stream);
}

/// The launch of a nearest-neighbour traversal: where its partners come as intervals (rows on
/// the tensor cores) and k leaves room for candidates in shared memory, through
/// nearest_candidates_visitor (exact recomputations of only the candidates still in the running);
/// else exact lists (nearest_lists_visitor), in shared memory where they fit beside the stages.
template <class Traversal, class Walk>
void launch_nearest(size_type rows, size_type col_tiles, int k, bool larger_nearer, Walk&& walk, std::int32_t* d_index,
                    float* d_value, cudaStream_t stream, int segments_wanted = 0)
{
  if constexpr (Traversal::offers_intervals) {
    using candidates            = nearest_candidates_visitor<Traversal::TS>;
    constexpr auto kernel       = pair_engine_kernel<Traversal, candidates, static_units>;
    int const slots             = nearest_candidate_slots(k);
    std::size_t const cand_bytes = slots > 0 ? candidates::dynamic_bytes(slots) : 0;
    if (slots > 0 && cand_bytes <= visitor_smem_limit<Traversal, kernel>()) {
      launch_nearest_with<Traversal, candidates>(
        rows, col_tiles, k, larger_nearer, walk,
        [&](nearest_lists_buffer& lists, int segments) {
          return typename candidates::params{lists.keys(), k, segments, rows, slots};
        },
        cand_bytes, d_index, d_value, stream, segments_wanted);
      return;
    }
  }
  using visitor         = nearest_lists_visitor<Traversal::TS>;
  constexpr auto kernel = pair_engine_kernel<Traversal, visitor, static_units>;
  // The unit's lists in shared memory where they fit beside the traversal's stages.
  std::size_t const list_bytes = sizeof(neighbor_key) * static_cast<std::size_t>(Traversal::TS) * static_cast<std::size_t>(k);
  bool const in_shared         = list_bytes <= visitor_smem_limit<Traversal, kernel>();
  launch_nearest_with<Traversal, visitor>(
    rows, col_tiles, k, larger_nearer, walk,
    [&](nearest_lists_buffer& lists, int segments) {
      return typename visitor::params{lists.keys(), k, segments, rows, in_shared};
    },
    in_shared ? list_bytes : 0, d_index, d_value, stream, segments_wanted);
}

/// Rows on the tensor cores (mma_nearest_traversal) into d_index / d_value (size x k each).
template <class T, bool W, class Metric>
void nearest_rows_gpu(pair_set<rows<T, W>> const& pairs, int k, std::int32_t* d_index, float* d_value, cudaStream_t stream,
                      unsigned long long* d_refined = nullptr, int segments = 0)
{
  constexpr row_metric_kind M = row_metric<Metric>::kind;
  using traversal             = mma_nearest_traversal<T, M>;
  if (pairs.a.size == 0) { return; }
  // (Either visitor's kernel: both come from this translation unit, for the same architectures.)
  require_row_core<typename traversal::core>(pair_engine_kernel<traversal, nearest_lists_visitor<traversal::TS>, static_units>);
  staged_row_pairs<T, W> const staged(pairs, stream);
  size_type const col_tiles = (staged.b().size + traversal::TS - 1) / traversal::TS;
  launch_nearest<traversal>(
    pairs.a.size, col_tiles, k, larger_is_nearer<Metric>,
    [&](int segs, size_type seg_tiles) {
      return typename traversal::params{pairs.mode, staged.a(), staged.b(), staged.dims_padded(), traversal::core::relative_error(staged.dims_padded()),
                                        staged.abs_term(), segs, seg_tiles, k, d_refined};
    },
    d_index, d_value, stream, segments);
}

/// Float points on the CUDA cores (nearest_point_traversal) into d_index / d_value.
template <class Points, class Metric>
void nearest_points_gpu(pair_set<Points> const& pairs, Metric const& metric, int k, std::int32_t* d_index, float* d_value,
                        cudaStream_t stream, int segments = 0)
{
  using traversal = nearest_point_traversal<Points, Metric>;
  if (pairs.a.size == 0) { return; }
  staged_pairs<Points> const staged(pairs, stream);
  pair_set<Points> const sp = staged.pairs();
  size_type const col_tiles = (sp.b.size + traversal::TS - 1) / traversal::TS;
  launch_nearest<traversal>(
    sp.a.size, col_tiles, k, larger_is_nearer<Metric>,
    [&](int segs, size_type seg_tiles) { return typename traversal::params{sp.mode, sp.a, sp.b, metric, segs, seg_tiles}; },
    d_index, d_value, stream, segments);
}

/// The GPU form of either kind of set, returned to the host.
template <class Run>
neighbors_result nearest_to_host(size_type size, int k, Run&& run, cudaStream_t stream)
{
  neighbors_result r;
  r.size = size;
  r.k    = k;
  std::size_t const total = static_cast<std::size_t>(size) * static_cast<std::size_t>(k);
  if (total == 0) { return r; }
  device_buffer index(sizeof(std::int32_t) * total, stream), value(sizeof(float) * total, stream);
  run(index.as<std::int32_t>(), value.as<float>());
  r.indices.resize(total);
  r.values.resize(total);
  copy_to_host_sync(r.indices.data(), index.as<std::int32_t>(), total, stream);
  copy_to_host_sync(r.values.data(), value.as<float>(), total, stream);
  return r;
}

/// The GPU form of either kind of set into device memory.
template <class T, bool W, class Metric>
void nearest_gpu(pair_set<rows<T, W>> const& pairs, Metric const&, int k, std::int32_t* d_index, float* d_value, cudaStream_t stream)
{
  nearest_rows_gpu<T, W, Metric>(pairs, k, d_index, d_value, stream);
}
template <class Points, class Metric>
void nearest_gpu(pair_set<Points> const& pairs, Metric const& metric, int k, std::int32_t* d_index, float* d_value, cudaStream_t stream)
{
  nearest_points_gpu(pairs, metric, k, d_index, d_value, stream);
}

/// The device-memory form (nearest_neighbors.cuh): checks once, then nearest_gpu.
template <class Points, class Metric>
void nearest_to_device(pair_set<Points> const& pairs, Metric const& metric, int k, std::int32_t* d_indices, float* d_values,
                       cudaStream_t stream)
{
  check_nearest<Points, Metric>();
  validate(pairs);
  validate_nearest(pairs, k);
  require_device_pointer(d_indices, "nearest_neighbors: d_indices");
  require_device_pointer(d_values, "nearest_neighbors: d_values");
  nearest_gpu(pairs, metric, k, d_indices, d_values, stream);
}

/// The host-result form: on_backend checks the pairs and runs the CPU backend (which checks k
/// itself, as a public function) or, on the GPU, validate_nearest and nearest_gpu.
template <class Points, class Metric>
neighbors_result nearest_on(execution_policy const& exec, pair_set<Points> const& pairs, Metric const& metric, int k)
{
  check_nearest<Points, Metric>();
  return on_backend(
    exec, "nearest_neighbors", pairs, [&] { return cpu::nearest_neighbors(pairs, metric, k); },
    [&](cudaStream_t stream) {
      validate_nearest(pairs, k);
      return nearest_to_host(
        pairs.a.size, k, [&](std::int32_t* i, float* v) { nearest_gpu(pairs, metric, k, i, v, stream); }, stream);
    });
}

}  // namespace detail

}  // namespace twobody
