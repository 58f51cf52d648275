#pragma once

#include <twobody/detail/join_kernels.cuh>
#include <twobody/detail/launch.cuh>
#include <twobody/engine/engine.cuh>
#include <twobody/engine/visitors.cuh>
#include <twobody/join_result.cuh>
#include <twobody/output/direct_output_buffer.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/device_info.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/gpu_progress.cuh>
#include <twobody/util/pinned_array.cuh>

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace twobody::detail {

// ---------------------------------------------------------------------------------------------
// Host arithmetic of the rounds (host-tested)

/// Work left after a round: the units rolled back, the listed units never handed out, and
/// the rest of the range. `handed` = units taken from the round's counter (capped at its count).
struct remaining_work {
  std::vector<unsigned long long> redo;
  unsigned long long range_begin = 0;
  unsigned long long range_end   = 0;
  unsigned long long count() const { return redo.size() + (range_end - range_begin); }
};

inline remaining_work next_round(std::vector<unsigned long long> const& redo, unsigned long long range_begin,
                                 unsigned long long range_end, unsigned long long handed,
                                 std::vector<unsigned long long> const& failed)
{
  remaining_work r;
  r.redo = failed;
  unsigned long long const n = redo.size();
  for (unsigned long long w = std::min(handed, n); w < n; ++w) { r.redo.push_back(redo[w]); }
  unsigned long long const from_range = handed > n ? handed - n : 0;
  r.range_begin = std::min(range_end, range_begin + from_range);
  r.range_end   = range_end;
  return r;
}

/// Upper estimate of the result size from `hits` of `samples` sampled pairs out of `pairs`:
/// two standard deviations (Poisson) above the count, plus two, scaled to all pairs.
inline double estimate_results_high(unsigned long long hits, unsigned long long samples, double pairs)
{
  if (samples == 0) { return 0.0; }
  double const h = static_cast<double>(hits);
  return std::min(pairs, (h + 2.0 * std::sqrt(h) + 2.0) / static_cast<double>(samples) * pairs);
}

/// Upper estimate of a join's records from `hits` counted exactly in `sampled` of `batches`
/// work units (grid query batches, sorted-join candidate chunks): scaled up, with a fifth and a few pages' worth of margin (the
/// rounds absorb any shortfall).
inline double units_estimate_high(unsigned long long hits, unsigned long long sampled, unsigned long long batches)
{
  if (sampled == 0) { return 0.0; }
  double const scale = static_cast<double>(batches) / static_cast<double>(sampled);
  return (static_cast<double>(hits) * 1.2 + 2.0 * std::sqrt(static_cast<double>(hits)) + 64.0) * scale;
}

/// Units counted for the estimate: up to `limit`, spread evenly over all of them (every
/// stride-th, from the middle of its stride).
inline std::vector<unsigned long long> sampled_units(unsigned long long batches, unsigned long long limit)
{
  unsigned long long const n      = std::min(batches, limit);
  std::vector<unsigned long long> picks(static_cast<std::size_t>(n));
  if (n == 0) { return picks; }
  unsigned long long const stride = batches / n;
  for (unsigned long long s = 0; s < n; ++s) { picks[static_cast<std::size_t>(s)] = s * stride + stride / 2; }
  return picks;
}

/// The estimate of a join whose units can be counted (grid query batches, sorted-join candidate
/// chunks): the records of up to 1024 units spread over all `units`, counted exactly by
/// count(from_list, hits, picks) (a launch of the join's traversal with a record counter over
/// the listed units, adding to *hits). Sets `estimate` (the scaled count) and returns the
/// upper estimate (units_estimate_high).
template <class Count>
double estimate_from_sampled_units(unsigned long long units, std::uint64_t& estimate, cudaStream_t stream,
                                   Count&& count)
{
  std::vector<unsigned long long> const picks = sampled_units(units, 1024);
  device_buffer list(picks.size() * sizeof(unsigned long long), stream);
  device_buffer state(sizeof(work_state), stream);
  device_buffer hits(sizeof(unsigned long long), stream);
  TWOBODY_CUDA_TRY(cudaMemcpyAsync(list.data(), picks.data(), picks.size() * sizeof(unsigned long long),
                                   cudaMemcpyHostToDevice, stream));
  TWOBODY_CUDA_TRY(cudaMemsetAsync(state.data(), 0, sizeof(work_state), stream));
  TWOBODY_CUDA_TRY(cudaMemsetAsync(hits.data(), 0, sizeof(unsigned long long), stream));
  dynamic_units::params const from_list{
    {list.as<unsigned long long const>(), picks.size(), 0, 0}, state.as<work_state>(), nullptr};
  count(from_list, hits.as<unsigned long long>(), static_cast<unsigned long long>(picks.size()));
  unsigned long long h = 0;
  TWOBODY_CUDA_TRY(cudaMemcpyAsync(&h, hits.data(), sizeof(h), cudaMemcpyDeviceToHost, stream));
  TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
  double const scale = static_cast<double>(units) / static_cast<double>(picks.size());
  estimate           = static_cast<std::uint64_t>(static_cast<double>(h) * scale + 0.5);
  return units_estimate_high(h, picks.size(), units);
}

/// A 32-bit count read as a 64-bit value (prefix sums over counts that cannot wrap).
struct widen_count {
  __host__ __device__ unsigned long long operator()(cuda::std::uint32_t c) const { return c; }
};

/// Bytes a pool of one record costs: the record, its page's count, previous-page link and
/// prefix sum spread over the page, and a drain buffer record for results sent to the host.
inline double pool_bytes_per_record(std::size_t record_bytes, int page_records, bool drain_buffer)
{
  return static_cast<double>(record_bytes) * (drain_buffer ? 2.0 : 1.0) + 16.0 / page_records;
}

/// The device memory a join may use: the caller's budget, else a quarter of free memory.
inline std::size_t join_budget(join_options const& opt) { return device_budget(opt.device_memory_budget); }

// ---------------------------------------------------------------------------------------------
// Sinks: where drained records go. reserve(n) gives a device pointer for n records,
// commit(n) hands them over; deliver() passes finished host records to the consumer.

/// Records appended to one device array (grown geometrically).
template <class Record>
class device_sink {
 public:
  static constexpr bool drain_buffer = false;
  Record* reserve(std::size_t n, cudaStream_t stream)
  {
    if (size_ + n > data_.capacity()) {
      device_array<Record> bigger(std::max(size_ + n, data_.capacity() + data_.capacity() / 2));
      if (size_ != 0) {
        TWOBODY_CUDA_TRY(
          cudaMemcpyAsync(bigger.data(), data_.data(), size_ * sizeof(Record), cudaMemcpyDeviceToDevice, stream));
        TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
      }
      data_.swap(bigger);
    }
    return data_.data() + size_;
  }
  void commit(std::size_t n, cudaStream_t) { size_ += n; }
  void deliver() {}
  device_array<Record> release() { return std::move(data_); }
  std::size_t size() const { return size_; }

 private:
  device_array<Record> data_;
  std::size_t size_ = 0;
};

/// Records streamed to the host: gathered into a device drain buffer, copied on a second
/// stream into pinned memory while the next round computes, and handed to `consume(ptr, n)`
/// (host memory, valid during the call) while the round after that computes.
template <class Record, class Consume>
class host_sink {
 public:
  static constexpr bool drain_buffer = true;

  explicit host_sink(Consume& consume) : consume_(consume)
  {
    TWOBODY_CUDA_TRY(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
    TWOBODY_CUDA_TRY(cudaEventCreateWithFlags(&gathered_, cudaEventDisableTiming));
    TWOBODY_CUDA_TRY(cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming));
  }
  host_sink(host_sink const&) = delete;
  ~host_sink()
  {
    (void)cudaStreamSynchronize(copy_);  // the pinned buffer may not go while a copy writes it
    (void)cudaEventDestroy(gathered_);
    (void)cudaEventDestroy(copied_);
    (void)cudaStreamDestroy(copy_);
  }

  Record* reserve(std::size_t n, cudaStream_t stream)
  {
    if (n > host_.size()) {
      TWOBODY_CUDA_TRY(cudaStreamSynchronize(copy_));
      staging_ = device_buffer(n * sizeof(Record), stream);
      host_    = pinned_array<Record>(n);
    }
    // The previous round's copy must have left the drain buffer before it is refilled.
    TWOBODY_CUDA_TRY(cudaStreamWaitEvent(stream, copied_, 0));
    return staging_.as<Record>();
  }
  void commit(std::size_t n, cudaStream_t stream)
  {
    TWOBODY_CUDA_TRY(cudaEventRecord(gathered_, stream));
    TWOBODY_CUDA_TRY(cudaStreamWaitEvent(copy_, gathered_, 0));
    TWOBODY_CUDA_TRY(cudaMemcpyAsync(host_.data(), staging_.data(), n * sizeof(Record), cudaMemcpyDeviceToHost, copy_));
    TWOBODY_CUDA_TRY(cudaEventRecord(copied_, copy_));
    pending_ = n;
  }
  /// Hands the last committed round to the consumer (waits for its copy).
  void deliver()
  {
    if (pending_ == 0) { return; }
    TWOBODY_CUDA_TRY(cudaEventSynchronize(copied_));
    std::size_t const n = std::exchange(pending_, 0);
    consume_(static_cast<Record const*>(host_.data()), n);
  }

 private:
  Consume& consume_;
  cudaStream_t copy_   = nullptr;
  cudaEvent_t gathered_ = nullptr;
  cudaEvent_t copied_   = nullptr;
  device_buffer staging_;
  pinned_array<Record> host_;
  std::size_t pending_ = 0;
};

/// Waits for `stream` when a join unwinds, so no kernel still writes the buffers being freed.
struct stream_guard {
  cudaStream_t stream;
  ~stream_guard() { (void)cudaStreamSynchronize(stream); }
};

// ---------------------------------------------------------------------------------------------
// Launch helpers

/// Sampled upper estimate of the number of records (one small kernel and a 8-byte copy).
template <class Points, class Emitter>
double sample_estimate(pair_set<Points> const& pairs, Emitter const& e, std::uint64_t samples, cudaStream_t stream,
                       std::uint64_t& estimate)
{
  using Record = typename Emitter::record_type;
  constexpr int B = 256;
  double const all = static_cast<double>(pairs.count());
  samples          = std::min<std::uint64_t>(samples, pairs.count());
  if (samples == 0) {
    estimate = 0;
    return 0.0;
  }
  device_buffer hits(sizeof(unsigned long long), stream);
  TWOBODY_CUDA_TRY(cudaMemsetAsync(hits.data(), 0, sizeof(unsigned long long), stream));
  int const grid = static_cast<int>(std::min<std::uint64_t>((samples + B - 1) / B, 4u * device_info::get().sm_count));
  auto const sampler = [] {
    using kernel_t = void (*)(kernel_inputs<Points>, Emitter, unsigned long long, unsigned long long*);
    if constexpr (holds_runtime_functor_v<Emitter>) {  // compiled by the run-time program in scope
      return runtime_kernel<kernel_t, Emitter>("twobody::detail::join_sample_kernel<" + std::to_string(B) + ", " +
                                               cxx_name<Points>() + ", " + cxx_name<Emitter>() + ", " +
                                               cxx_name<Record>() + ">");
    } else {
      return kernel_t{join_sample_kernel<B, Points, Emitter, Record>};
    }
  }();
  launch_kernel(sampler, grid, B, 0, stream, inputs_of(pairs), e, static_cast<unsigned long long>(samples),
                hits.as<unsigned long long>());
  unsigned long long h = 0;
  TWOBODY_CUDA_TRY(cudaMemcpyAsync(&h, hits.data(), sizeof(h), cudaMemcpyDeviceToHost, stream));
  TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
  estimate = static_cast<std::uint64_t>(static_cast<double>(h) / static_cast<double>(samples) * all + 0.5);
  return estimate_results_high(h, samples, all);
}

// ---------------------------------------------------------------------------------------------
// One pass with a direct output buffer, in rounds until every unit is done

/// The page pool of one round size, with its bookkeeping, in stream-ordered scratch memory.
template <class Record, int PS>
struct pool_storage {
  unsigned long long pages = 0;
  device_buffer records, page_count, page_prev, page_end, scan_temp;
  std::size_t scan_bytes = 0;

  pool_storage(unsigned long long pages_, cudaStream_t stream) : pages(pages_)
  {
    records    = device_buffer(pages * PS * sizeof(Record), stream);
    page_count = device_buffer(pages * sizeof(cuda::std::uint32_t), stream);
    page_prev  = device_buffer(pages * sizeof(cuda::std::uint32_t), stream);
    page_end   = device_buffer(pages * sizeof(unsigned long long), stream);
    TWOBODY_CUDA_TRY(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, widened(), page_end.as<unsigned long long>(),
                                                   static_cast<long long>(pages), stream));
    scan_temp = device_buffer(scan_bytes, stream);
  }
  /// Page counts read as 64-bit values, so the prefix sum cannot wrap past 2^32 records.
  thrust::transform_iterator<widen_count, cuda::std::uint32_t const*> widened() const
  {
    return thrust::make_transform_iterator(page_count.as<cuda::std::uint32_t const>(), widen_count{});
  }
  void scan(cudaStream_t stream)
  {
    std::size_t bytes = scan_bytes;
    TWOBODY_CUDA_TRY(cub::DeviceScan::InclusiveSum(scan_temp.data(), bytes, widened(), page_end.as<unsigned long long>(),
                                                   static_cast<long long>(pages), stream));
  }
};

/// The rounds of a one-pass join over `units` work units: sizes the page pool (from
/// estimate_high(), the caller's pool_records, the budget), calls launch(pool, units, blocks)
/// (page_pool, dynamic_units::params) for each round, drains the filled pages into `sink`, and redoes the rolled-back units and
/// the ones never handed out until all are done. `owners_per_block`: page owners (threads or
/// warps) per block; `unit` names a work unit in errors.
template <class Record, int PS, class Sink, class Estimate, class Launch>
join_stats run_rounds(Sink& sink, join_options const& opt, unsigned long long units, int grid,
                      unsigned long long owners_per_block, std::string const& unit, Estimate&& estimate_high,
                      Launch&& launch, cudaStream_t stream)
{
  join_stats st;
  // Pool size: from the estimate (or the caller), plus one partly filled page per owner,
  // within the budget.
  std::size_t const budget = join_budget(opt);
  double const per_record  = pool_bytes_per_record(sizeof(Record), PS, Sink::drain_buffer);
  unsigned long long const max_pages =
    std::min<unsigned long long>(static_cast<unsigned long long>(static_cast<double>(budget) / per_record) / PS,
                                 no_page - 1);
  TWOBODY_EXPECTS(max_pages >= 1, ("join: a device memory budget of " + std::to_string(budget) +
                                   " bytes (join_options::device_memory_budget) cannot hold one page of " +
                                   std::to_string(PS) + " records (" +
                                   std::to_string(static_cast<std::size_t>(per_record * PS)) + " bytes)")
                                    .c_str());
  unsigned long long const owners = static_cast<unsigned long long>(grid) * owners_per_block;
  unsigned long long want_pages   = 0;
  double records_per_unit         = 0;
  if (opt.pool_records != 0) {  // (at least one page: checked by check_options before the call)
    want_pages = opt.pool_records / PS;
    TWOBODY_EXPECTS(want_pages <= max_pages, ("join: pool_records (" + std::to_string(opt.pool_records) +
                                              ") needs more than the device memory budget of " +
                                              std::to_string(budget) + " bytes")
                                               .c_str());
  } else {
    std::uint64_t estimate = 0;
    double const high      = estimate_high(estimate);
    st.estimated_results   = estimate;
    records_per_unit       = high / static_cast<double>(units);
    want_pages = static_cast<unsigned long long>(std::ceil(high * 1.1 / PS)) + owners;
    want_pages = std::min(want_pages, max_pages);
  }

  pool_storage<Record, PS> pool(want_pages, stream);
  device_buffer state(sizeof(join_state), stream);
  device_buffer failed(sizeof(unsigned long long) * static_cast<std::size_t>(grid), stream);
  device_buffer redo_dev;
  stream_guard guard{stream};

  // Blocks per round: no more than the pool can feed one unit each (its records, plus a partly
  // filled page per owner), or every block could run dry mid-unit and none finish.
  auto blocks_for = [&](unsigned long long pages) {
    double const slots_per_unit = records_per_unit * 1.5 + static_cast<double>(owners_per_block * PS);
    double const fit            = std::floor(static_cast<double>(pages * PS) / slots_per_unit);
    return static_cast<int>(std::max(1.0, std::min(static_cast<double>(grid), fit)));
  };
  int blocks = blocks_for(pool.pages);

  std::vector<unsigned long long> redo;
  unsigned long long range_begin = 0, range_end = units;
  struct readback {
    join_state s;
    unsigned long long results;
  };
  for (;;) {
    if (!redo.empty()) {
      redo_dev = device_buffer(redo.size() * sizeof(unsigned long long), stream);
      TWOBODY_CUDA_TRY(cudaMemcpyAsync(redo_dev.data(), redo.data(), redo.size() * sizeof(unsigned long long),
                                       cudaMemcpyHostToDevice, stream));
    }
    unit_list const work{redo_dev.as<unsigned long long const>(), redo.size(), range_begin, range_end};
    page_pool<Record> const params{pool.records.template as<Record>(), pool.page_count.template as<cuda::std::uint32_t>(),
                                   pool.page_prev.template as<cuda::std::uint32_t>(), pool.pages,
                                   state.as<join_state>()};
    dynamic_units::params const handing{work, &state.as<join_state>()->work, failed.as<unsigned long long>(),
                                        current_launch_control(work.count())};
    TWOBODY_CUDA_TRY(cudaMemsetAsync(state.data(), 0, sizeof(join_state), stream));
    TWOBODY_CUDA_TRY(cudaMemsetAsync(pool.page_count.data(), 0, pool.pages * sizeof(cuda::std::uint32_t), stream));
    launch(params, handing, static_cast<int>(std::min<unsigned long long>(blocks, work.count())));
    pool.scan(stream);
    sink.deliver();  // the previous round's records, while this one computes

    readback rb{};
    TWOBODY_CUDA_TRY(cudaMemcpyAsync(&rb.s, state.data(), sizeof(join_state), cudaMemcpyDeviceToHost, stream));
    TWOBODY_CUDA_TRY(cudaMemcpyAsync(&rb.results, pool.page_end.template as<unsigned long long>() + (pool.pages - 1),
                                     sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
    wait_for_stream(stream);
    ++st.rounds;
    if (rb.results != 0) {
      unsigned long long const used = std::min(rb.s.next_page, pool.pages);
      Record* dst                   = sink.reserve(rb.results, stream);
      unsigned long long const slots = used * PS;
      int const gather_grid = static_cast<int>(std::min<unsigned long long>((slots + 255) / 256, 8u * device_info::get().sm_count));
      gather_pages_kernel<Record, PS><<<gather_grid, 256, 0, stream>>>(
        pool.records.template as<Record const>(), pool.page_count.template as<cuda::std::uint32_t const>(),
        pool.page_end.template as<unsigned long long const>(), used, dst);
      TWOBODY_CHECK_LAUNCH();
      sink.commit(rb.results, stream);
      st.results += rb.results;
    }
    work_state const& ws            = rb.s.work;
    unsigned long long const handed = std::min<unsigned long long>(ws.next_unit, work.count());
    if (ws.failed == 0 && handed == work.count()) { break; }

    std::vector<unsigned long long> failed_units(ws.failed);
    if (ws.failed != 0) {
      TWOBODY_CUDA_TRY(cudaMemcpyAsync(failed_units.data(), failed.data(), ws.failed * sizeof(unsigned long long),
                                       cudaMemcpyDeviceToHost, stream));
      TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
    }
    st.units_rolled_back += ws.failed;
    remaining_work next = next_round(redo, range_begin, range_end, handed, failed_units);
    unsigned long long const done = handed - ws.failed;
    unsigned long long pages      = pool.pages;
    if (done == 0 && blocks > 1) {
      blocks = std::max(1, blocks / 4);  // not one unit finished: fewer blocks share the pool
    } else if (done == 0) {
      // One block alone could not finish a unit: only a bigger pool can make progress.
      TWOBODY_EXPECTS(pool.pages < max_pages,
                      ("join: one work unit (" + unit +
                       ") yields more records than a pool within the device memory budget of " +
                       std::to_string(budget) + " bytes can hold; raise join_options::device_memory_budget")
                        .c_str());
      pages = std::min(max_pages, pool.pages * 2);
    } else {
      records_per_unit = std::max(records_per_unit, static_cast<double>(rb.results) / static_cast<double>(done));
      if (opt.grow_pool) {
        double const rest = records_per_unit * static_cast<double>(next.count()) * 1.25;
        pages = std::min(max_pages, std::max(pool.pages, static_cast<unsigned long long>(rest / PS) + owners));
      }
    }
    if (pages != pool.pages) {
      TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));  // the gather still reads the old pool
      pool = pool_storage<Record, PS>(pages, stream);
      if (done != 0) { blocks = blocks_for(pool.pages); }  // (after no progress, stay at one block)
    }
    redo        = std::move(next.redo);
    range_begin = next.range_begin;
    range_end   = next.range_end;
  }
  sink.deliver();
  TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
  st.pool_records = pool.pages * PS;
  return st;
}

/// One pass with a direct output buffer over the tile pairs of `pairs` (device-resident).
template <class Input, class Output, class Points, class Emitter, class Sink>
join_stats run_one_pass(pair_set<Points> const& pairs, Emitter const& e, Sink& sink, join_options const& opt,
                        cudaStream_t stream)
{
  using Record     = typename Emitter::record_type;
  constexpr int PS = Output::page_records;
  constexpr int B  = Input::block_threads;
  constexpr int TS = tile_points_v<Input>;
  using agent      = typename dob_agent_of<Output, Record>::type;
  using visitor    = join_visitor<agent, Emitter>;
  using traversal   = tile_traversal<Input, Points>;
  auto const kernel = engine_kernel<traversal, visitor, dynamic_units>();

  tile_schedule const sched = tile_schedule::make(pairs.mode, pairs.a.size, pairs.b.size, TS);
  if (pairs.count() == 0) { return {}; }
  auto const units = static_cast<unsigned long long>(sched.total);
  std::size_t const smem = launch_smem_of<traversal>(kernel);
  int const grid   = persistent_grid(kernel, B, smem, units);
  kernel_inputs<Points> const in = inputs_of(pairs);
  return run_rounds<Record, PS>(
    sink, opt, units, grid, Output::owner == output::page_owner::warp ? B / 32 : B,
    "a tile pair of " + std::to_string(TS) + " x " + std::to_string(TS) + " points",
    [&](std::uint64_t& estimate) { return sample_estimate(pairs, e, opt.sample_pairs, stream, estimate); },
    [&](page_pool<Record> const& pool, dynamic_units::params const& handing, int blocks) {
      launch_kernel(kernel, blocks, B, smem, stream, typename traversal::params{in, sched}, typename visitor::params{pool, e},
                    handing);
    },
    stream);
}

// ---------------------------------------------------------------------------------------------
// Two passes: count, scan, write

template <class Input, class Points, class Emitter, class Sink>
join_stats run_two_pass(pair_set<Points> const& pairs, Emitter const& e, Sink& sink, join_options const& opt,
                        cudaStream_t stream)
{
  using Record    = typename Emitter::record_type;
  constexpr int B = Input::block_threads;
  using traversal         = tile_traversal<Input, Points>;
  using counter           = join_visitor<count_agent<Record>, Emitter>;
  using writer            = join_visitor<write_agent<Record>, Emitter>;
  auto const count_kernel = engine_kernel<traversal, counter, static_units>();
  auto const write_kernel = engine_kernel<traversal, writer, static_units>();

  join_stats st;
  tile_schedule const sched = tile_schedule::make(pairs.mode, pairs.a.size, pairs.b.size, tile_points_v<Input>);
  if (pairs.count() == 0) { return st; }
  auto const units = static_cast<unsigned long long>(sched.total);
  // Both passes must give each thread the same pairs: one grid for both.
  std::size_t const smem = launch_smem_of<traversal>(count_kernel);
  (void)launch_smem_of<traversal>(write_kernel);  // (the same bytes: raises the writer's limit)
  int const grid = std::min(persistent_grid(count_kernel, B, smem, units), persistent_grid(write_kernel, B, smem, units));
  std::size_t const threads = static_cast<std::size_t>(grid) * B;
  static_units::params const work{units};
  kernel_inputs<Points> const in = inputs_of(pairs);

  device_buffer counts(threads * sizeof(unsigned long long), stream);
  device_buffer offsets(threads * sizeof(unsigned long long), stream);
  std::size_t scan_bytes = 0;
  TWOBODY_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.as<unsigned long long>(),
                                                 offsets.as<unsigned long long>(), static_cast<long long>(threads), stream));
  device_buffer scan_temp(scan_bytes, stream);
  stream_guard guard{stream};

  launch_kernel(count_kernel, grid, B, smem, stream, typename traversal::params{in, sched},
                typename counter::params{{counts.as<unsigned long long>()}, e}, work);
  TWOBODY_CUDA_TRY(cub::DeviceScan::ExclusiveSum(scan_temp.data(), scan_bytes, counts.as<unsigned long long>(),
                                                 offsets.as<unsigned long long>(), static_cast<long long>(threads), stream));
  unsigned long long tail[2] = {0, 0};
  TWOBODY_CUDA_TRY(cudaMemcpyAsync(&tail[0], offsets.as<unsigned long long>() + threads - 1, sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, stream));
  TWOBODY_CUDA_TRY(cudaMemcpyAsync(&tail[1], counts.as<unsigned long long>() + threads - 1, sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, stream));
  TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
  unsigned long long const total = tail[0] + tail[1];
  st.rounds = 1;
  if (total != 0) {
    if constexpr (Sink::drain_buffer) {
      std::size_t const budget = join_budget(opt);
      TWOBODY_EXPECTS(total * sizeof(Record) <= budget,
                      ("join (two_pass): the " + std::to_string(total) +
                       " records must fit the device memory budget at once (" + std::to_string(budget) +
                       " bytes); use output::direct_output_buffer, which streams in rounds")
                        .c_str());
    }
    Record* dst = sink.reserve(total, stream);
    launch_kernel(write_kernel, grid, B, smem, stream, typename traversal::params{in, sched},
                  typename writer::params{{offsets.as<unsigned long long const>(), dst}, e}, work);
    sink.commit(total, stream);
  }
  sink.deliver();
  TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
  st.results      = total;
  st.pool_records = total;
  return st;
}

}  // namespace twobody::detail
