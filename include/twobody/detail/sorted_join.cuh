#pragma once

/// Host side of the sorted band and equi-join (band_join.cuh): sort, ranges, prefix sum, then
///  - the exact path: every candidate is a result, so the result size is known after the
///    prefix sum and the records are written straight into an array of that size (or, for a
///    host result, in chunks within the device memory budget);
///  - the filtered path: a further predicate (or the band itself, for an asymmetric band in
///    self mode, whose ranges are the symmetric hull) runs on the candidates only, through the
///    pair engine with the candidate chunks as work units and the direct output buffer's rounds.

#include <twobody/detail/join_driver.cuh>
#include <twobody/detail/join_kernels.cuh>
#include <twobody/detail/key_ranges.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/engine/engine.cuh>
#include <twobody/engine/visitors.cuh>
#include <twobody/join_result.cuh>
#include <twobody/output/direct_output_buffer.cuh>
#include <twobody/points.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/error.cuh>

#include <algorithm>
#include <string>
#include <vector>

namespace twobody::detail {

constexpr int sorted_block_threads = 256;
constexpr int sorted_write_items   = 8;   ///< merged positions per thread of the exact path
constexpr int sorted_filter_items  = 16;  ///< ... of the filtered path (a unit: 4096 positions)
/// Pages of the filtered path: per thread (its walk diverges where rows change), as in grid joins.
constexpr int sorted_filter_page = 16;

/// Sorted key columns, each row of A's range of partners in B, and the prefix sum over the
/// range lengths: everything the enumeration needs, on the device.
template <class T>
struct key_ranges {
  sorted_column<T> a, b;  ///< b: cross mode only
  device_buffer first, count, offsets;
  range_view view;
};

/// Builds the ranges of `column` under `band` for device-resident pairs (self or cross).
template <class Points>
key_ranges<typename Points::value_type> build_key_ranges(pair_set<Points> const& dev, int column,
                                                         band_test<typename Points::value_type> const& band,
                                                         cudaStream_t stream)
{
  using T         = typename Points::value_type;
  bool const self = dev.mode == pair_mode::self;
  auto const na   = static_cast<unsigned long long>(dev.a.size);
  key_ranges<T> r;
  r.a = sort_column(dev.a.coords[column], na, stream);
  if (!self) { r.b = sort_column(dev.b.coords[column], static_cast<unsigned long long>(dev.b.size), stream); }
  sorted_column<T> const& b = self ? r.a : r.b;

  r.first   = device_buffer(na * sizeof(cuda::std::uint32_t), stream);
  r.count   = device_buffer(na * sizeof(cuda::std::uint32_t), stream);
  r.offsets = device_buffer((na + 1) * sizeof(unsigned long long), stream);
  key_ranges_kernel<T><<<grid_for(na, 256), 256, 0, stream>>>(r.a.key_data(), na, b.key_data(), b.window_data(), band,
                                                              self, r.first.template as<cuda::std::uint32_t>(),
                                                              r.count.template as<cuda::std::uint32_t>());
  TWOBODY_CHECK_LAUNCH();
  // offsets[0] = 0, offsets[p + 1] = counts up to p (64-bit: the total may pass 2^32)
  auto const widened = thrust::make_transform_iterator(r.count.template as<cuda::std::uint32_t const>(), widen_count{});
  TWOBODY_CUDA_TRY(cudaMemsetAsync(r.offsets.data(), 0, sizeof(unsigned long long), stream));
  std::size_t bytes = 0;
  TWOBODY_CUDA_TRY(cub::DeviceScan::InclusiveSum(nullptr, bytes, widened, r.offsets.template as<unsigned long long>() + 1,
                                                 static_cast<long long>(na), stream));
  device_buffer temp(bytes, stream);
  TWOBODY_CUDA_TRY(cub::DeviceScan::InclusiveSum(temp.data(), bytes, widened, r.offsets.template as<unsigned long long>() + 1,
                                                 static_cast<long long>(na), stream));
  unsigned long long total = 0;
  TWOBODY_CUDA_TRY(cudaMemcpyAsync(&total, r.offsets.template as<unsigned long long>() + na, sizeof(total),
                                   cudaMemcpyDeviceToHost, stream));
  TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
  r.view = {na,
            total,
            r.offsets.template as<unsigned long long const>(),
            r.first.template as<cuda::std::uint32_t const>(),
            r.a.perm_data(),
            b.perm_data(),
            self};
  return r;
}

/// The merged position of output k (a chunk boundary of the exact path). A template (View is
/// range_view) so that its kernel is compiled only where a sorted join is.
template <class View>
unsigned long long diagonal_of_output(View const& v, unsigned long long k, cudaStream_t stream)
{
  if (k >= v.total) { return v.diagonals(); }
  device_buffer d(sizeof(unsigned long long), stream);
  diagonal_of_output_kernel<<<1, 1, 0, stream>>>(v, k, d.template as<unsigned long long>());
  TWOBODY_CHECK_LAUNCH();
  unsigned long long h = 0;
  TWOBODY_CUDA_TRY(cudaMemcpyAsync(&h, d.data(), sizeof(h), cudaMemcpyDeviceToHost, stream));
  TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
  return h;
}

/// The exact path: every candidate pair into `sink` as an index_pair, in chunks that fit the
/// sink (a device result: one chunk of exactly the result size; a host result: chunks within
/// the device memory budget, each copied out while the next one is written).
template <class Sink>
join_stats write_key_ranges(range_view const& v, Sink& sink, join_options const& opt, cudaStream_t stream)
{
  constexpr int B = sorted_block_threads, I = sorted_write_items;
  join_stats st;
  st.results = v.total;
  if (v.total != 0) {
    unsigned long long chunk = v.total;
    if constexpr (Sink::drain_buffer) {
      chunk = std::max<unsigned long long>(1, join_budget(opt) / sizeof(index_pair));
    }
    stream_guard guard{stream};
    for (unsigned long long k = 0; k < v.total; k += chunk) {
      unsigned long long const k_end   = std::min(v.total, k + chunk);
      unsigned long long const d_begin = k == 0 ? 0 : diagonal_of_output(v, k, stream);
      unsigned long long const d_end   = diagonal_of_output(v, k_end, stream);
      index_pair* dst                  = sink.reserve(k_end - k, stream);
      unsigned long long const blocks  = (d_end - d_begin + B * I - 1) / (B * I);
      expand_ranges_kernel<B, I><<<grid_for(blocks, 1, 16), B, 0, stream>>>(v, d_begin, d_end, k, dst);
      TWOBODY_CHECK_LAUNCH();
      sink.deliver();  // the previous chunk, while this one is written
      sink.commit(k_end - k, stream);
      ++st.rounds;
    }
  }
  sink.deliver();
  TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
  st.pool_records = v.total;
  return st;
}

/// The filtered path: the candidate pairs through emitter `e` (which tests whatever the ranges
/// do not guarantee) into `sink`, in rounds of the direct output buffer.
template <class Points, class Emitter, class Sink>
join_stats filter_key_ranges(range_view const& v, pair_set<Points> const& dev, Emitter const& e, Sink& sink,
                             join_options const& opt, cudaStream_t stream)
{
  using Record     = typename Emitter::record_type;
  constexpr int B  = sorted_block_threads;
  constexpr int PS = sorted_filter_page;
  using traversal  = key_range_traversal<B, sorted_filter_items, Points>;
  using visitor    = join_visitor<thread_page_agent<Record, PS>, Emitter>;
  using counter    = join_visitor<record_counter<Record>, Emitter>;
  if (v.total == 0) {
    sink.deliver();
    join_stats st;
    st.rounds = 1;
    return st;
  }
  auto const kernel  = pair_engine_kernel<traversal, visitor, dynamic_units>;
  auto const counts  = pair_engine_kernel<traversal, counter, dynamic_units>;
  unsigned long long const units = traversal::units(v);
  int const grid     = persistent_grid(kernel, B, 0, units);
  typename traversal::params const walk{v, dev.a, dev.mode == pair_mode::cross ? dev.b : dev.a};

  // The estimate: the records of up to 1024 units spread over all of them, counted exactly
  // (no more than the candidates).
  auto estimate_high = [&](std::uint64_t& estimate) {
    double const high = estimate_from_sampled_units(
      units, estimate, stream, [&](dynamic_units::params const& from_list, unsigned long long* hits, unsigned long long picks) {
        int const blocks = static_cast<int>(std::min<unsigned long long>(persistent_grid(counts, B, 0, picks), picks));
        counts<<<blocks, B, 0, stream>>>(walk, {{hits}, e}, from_list);
        TWOBODY_CHECK_LAUNCH();
      });
    return std::min(high, static_cast<double>(v.total));
  };
  return run_rounds<Record, PS>(
    sink, opt, units, grid, B,
    "a chunk of " + std::to_string(traversal::unit_size) + " candidate pairs", estimate_high,
    [&](page_pool<Record> const& pool, dynamic_units::params const& handing, int blocks) {
      kernel<<<blocks, B, 0, stream>>>(walk, {pool, e}, handing);
      TWOBODY_CHECK_LAUNCH();
    },
    stream);
}

/// The candidate pairs that emitter `e` keeps, counted (nothing stored).
template <class Points, class Emitter>
unsigned long long count_key_ranges(range_view const& v, pair_set<Points> const& dev, Emitter const& e,
                                    cudaStream_t stream)
{
  using Record     = typename Emitter::record_type;
  constexpr int B  = sorted_block_threads;
  using traversal  = key_range_traversal<B, sorted_filter_items, Points>;
  using counter    = join_visitor<record_counter<Record>, Emitter>;
  if (v.total == 0) { return 0; }
  auto const kernel              = pair_engine_kernel<traversal, counter, static_units>;
  unsigned long long const units = traversal::units(v);
  device_buffer hits(sizeof(unsigned long long), stream);
  TWOBODY_CUDA_TRY(cudaMemsetAsync(hits.data(), 0, sizeof(unsigned long long), stream));
  kernel<<<persistent_grid(kernel, B, 0, units), B, 0, stream>>>(
    {v, dev.a, dev.mode == pair_mode::cross ? dev.b : dev.a}, {{hits.template as<unsigned long long>()}, e}, {units});
  TWOBODY_CHECK_LAUNCH();
  unsigned long long h = 0;
  TWOBODY_CUDA_TRY(cudaMemcpyAsync(&h, hits.data(), sizeof(h), cudaMemcpyDeviceToHost, stream));
  TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
  return h;
}

}  // namespace twobody::detail
