/// \file out_of_core.cuh
/// \brief Type I/II statistics over point sets in host memory larger than the GPU: the sets
/// are split into blocks (host::block_plan), blocks are shipped to the device from pinned
/// staging buffers on a copy stream while the previous block pair computes, and each block
/// pair runs the normal one-call kernel into one device accumulator.
///
///     twobody::host::scale_options opt;
///     opt.device_memory_budget = std::size_t(8) << 30;              // bytes for resident blocks
///     auto h = twobody::host::histogram(twobody::self_pairs(host_pts), twobody::euclidean{}, bins, opt);
///     auto n = twobody::host::count_pairs(twobody::self_pairs(host_pts), twobody::within_radius(5.f), opt);
///     opt.devices = twobody::host::all_devices();                    // several GPUs, one process
///
/// The result equals the in-core one-call result (counts exactly; floating-point sums up to
/// the order of addition). Progress can be reported through scale_options::progress.
#pragma once

#include <twobody/histogram.cuh>
#include <twobody/host/block_plan.cuh>
#include <twobody/points.cuh>
#include <twobody/reduce.cuh>
#include <twobody/util/device_array.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/pinned_array.cuh>

#include <cub/device/device_transform.cuh>
#include <cuda/std/functional>
#include <cuda/std/tuple>
#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace twobody::host {

/// Where a long run stands (reported after each block pair).
struct scale_progress {
  std::size_t block_pairs_done  = 0;
  std::size_t block_pairs_total = 0;
  unsigned long long pairs_done = 0;  ///< point pairs of the block pairs done
  double seconds                = 0;  ///< since the run began
  double pairs_per_s            = 0;
};

/// Knobs of the block layer.
struct scale_options {
  /// Device memory for resident blocks; 0: a quarter of the free memory.
  std::size_t device_memory_budget = 0;
  /// Points per block; 0: the most the budget allows for `resident_blocks` blocks, made smaller
  /// where needed so that several workers (devices x parts) get at least
  /// `block_pairs_per_worker` block pairs each.
  size_type block_points = 0;
  /// Blocks kept on the device at once (at least 3: the A block, the B block computing and
  /// the next B block copying).
  int resident_blocks = 4;
  /// Called on the host after each block pair (e.g. a progress line); may throw to cancel.
  std::function<void(scale_progress const&)> progress;
  /// Devices to spread the block pairs over (a device may be listed twice: two workers share
  /// it); empty: the current device. Each worker keeps resident_blocks blocks on its device.
  std::vector<int> devices;
  /// Time each block pair's kernels with CUDA events (scale_stats::kernel_seconds), to compare
  /// the end-to-end time with the compute alone.
  bool time_kernels = false;
  /// Run only share `part` of `parts` of the block pairs (host::share_of: dealt out by work):
  /// one share of a run split over processes (MPI ranks, see twobody/host/mpi.cuh, or the jobs
  /// of a job array). The outputs are that share's partial sums; every part must use the same
  /// block size (set block_points).
  std::size_t part  = 0;
  std::size_t parts = 1;
};

/// Block pairs per worker the default block size aims at with several workers (a dynamic
/// queue of that many keeps the last-finishing worker within a few percent of the others).
inline constexpr std::size_t block_pairs_per_worker = 32;

/// How a block run went.
struct scale_stats {
  size_type block_points   = 0;
  std::size_t block_pairs  = 0;
  std::size_t blocks_copied = 0;
  unsigned long long pairs = 0;  ///< point pairs of the block pairs run (this part's share)
  double seconds           = 0;  ///< wall clock of the block loop, copies included
  double kernel_seconds    = 0;  ///< sum of the block pairs' kernel times, all devices (time_kernels only)
};

/// Every visible device, for scale_options::devices.
inline std::vector<int> all_devices()
{
  int n = 0;
  TWOBODY_CUDA_TRY(cudaGetDeviceCount(&n));
  std::vector<int> d(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) { d[static_cast<std::size_t>(i)] = i; }
  return d;
}

/// The running progress record of a block loop (the host layer's and the MPI layer's):
/// add() counts one block pair and calls the caller's scale_options::progress (if any). Not
/// thread-safe; the caller serializes.
struct progress_meter {
  scale_progress pr;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  explicit progress_meter(std::size_t block_pairs_total) { pr.block_pairs_total = block_pairs_total; }
  void add(std::function<void(scale_progress const&)> const& callback, unsigned long long pairs)
  {
    pr.block_pairs_done += 1;
    pr.pairs_done += pairs;
    pr.seconds     = seconds();
    pr.pairs_per_s = pr.seconds > 0 ? static_cast<double>(pr.pairs_done) / pr.seconds : 0;
    if (callback) { callback(pr); }
  }
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
};

/// The block size the host layer uses for `pairs` under `opt` (on the current device when the budget is free
/// memory), for `workers` workers in all (devices x parts).
template <class Points>
size_type block_points_for(pair_set<Points> const& pairs, scale_options const& opt, std::size_t workers)
{
  using T = typename Points::value_type;
  std::size_t const bytes_per_point = sizeof(T) * (Points::dims + (Points::weighted ? 1 : 0));
  std::size_t const budget = twobody::detail::device_budget(opt.device_memory_budget);
  size_type const largest = std::max<size_type>(1, std::max(pairs.a.size, pairs.b.size));
  size_type bs = opt.block_points != 0 ? opt.block_points
                                       : block_points_for_budget(budget, bytes_per_point, opt.resident_blocks);
  bs = std::min(bs, largest);
  TWOBODY_EXPECTS(static_cast<double>(bs) * static_cast<double>(bytes_per_point) * opt.resident_blocks <=
                    static_cast<double>(budget) || opt.device_memory_budget == 0,
                  ("scale_options::block_points (" + std::to_string(bs) +
                   ") x resident_blocks does not fit the device memory budget of " + std::to_string(budget) + " bytes")
                    .c_str());
  if (opt.block_points == 0 && workers > 1) {
    bs = block_points_for_pairs(pairs.mode, pairs.a.size, pairs.b.size, bs, block_pairs_per_worker * workers);
  }
  return bs;
}

namespace detail {

using twobody::detail::device_array;
using twobody::detail::pinned_array;

/// Device slots holding blocks of one or two point sets, each with a pinned staging buffer, a
/// `ready` event (its copy done) and a `free` event (the last kernel reading it done).
/// Blocks are kept while they may be used again (least recently used goes first).
template <class Points>
class block_slots {
  using T = typename Points::value_type;
  static constexpr int columns = Points::dims + (Points::weighted ? 1 : 0);

 public:
  block_slots(int slots, size_type block_points, cudaStream_t copy_stream)
    : stride_((block_points + 63) / 64 * 64), copy_(copy_stream)
  {
    slots_.resize(static_cast<std::size_t>(slots));
    for (auto& s : slots_) {
      s.device  = device_array<T>(static_cast<std::size_t>(stride_) * columns);
      s.staging = pinned_array<T>(static_cast<std::size_t>(stride_) * columns);
      TWOBODY_CUDA_TRY(cudaEventCreateWithFlags(&s.ready, cudaEventDisableTiming));
      TWOBODY_CUDA_TRY(cudaEventCreateWithFlags(&s.free, cudaEventDisableTiming));
    }
  }
  block_slots(block_slots const&) = delete;
  ~block_slots()
  {
    (void)cudaStreamSynchronize(copy_);  // staging buffers may not go while a copy reads them
    for (auto& s : slots_) {
      if (s.ready != nullptr) { (void)cudaEventSynchronize(s.free); }
      (void)cudaEventDestroy(s.ready);
      (void)cudaEventDestroy(s.free);
    }
  }

  /// A device view of block `block` ([r.begin, r.begin + r.size)) of `set` (0: A, 1: B), copied
  /// if not resident; `compute` waits for its copy. `keep`: a slot not to evict (the other
  /// block of the pair).
  Points acquire(int set, std::int64_t block, block_range r, Points const& host, int keep, cudaStream_t compute,
                 int& slot_out, std::size_t& copies)
  {
    ++clock_;
    for (std::size_t k = 0; k < slots_.size(); ++k) {
      auto& s = slots_[k];
      if (s.set == set && s.block == block) {
        s.used = clock_;
        slot_out = static_cast<int>(k);
        return view(s, r.size);
      }
    }
    std::size_t victim = slots_.size();
    for (std::size_t k = 0; k < slots_.size(); ++k) {
      if (static_cast<int>(k) == keep) { continue; }
      if (victim == slots_.size() || slots_[k].used < slots_[victim].used) { victim = k; }
    }
    auto& s = slots_[victim];
    // The staging buffer and the device slot may still be read by an earlier copy / kernel.
    TWOBODY_CUDA_TRY(cudaEventSynchronize(s.free));
    std::size_t const n = static_cast<std::size_t>(r.size);
    for (int c = 0; c < columns; ++c) {
      T const* src = c < Points::dims ? host.coords[c] : host.weights;
      std::memcpy(s.staging.data() + c * stride_, src + r.begin, n * sizeof(T));
      TWOBODY_CUDA_TRY(cudaMemcpyAsync(s.device.data() + c * stride_, s.staging.data() + c * stride_, n * sizeof(T),
                                       cudaMemcpyHostToDevice, copy_));
    }
    TWOBODY_CUDA_TRY(cudaEventRecord(s.ready, copy_));
    TWOBODY_CUDA_TRY(cudaStreamWaitEvent(compute, s.ready, 0));
    s.set   = set;
    s.block = block;
    s.used  = clock_;
    ++copies;
    slot_out = static_cast<int>(victim);
    return view(s, r.size);
  }

  /// The kernels enqueued on `compute` so far are the last readers of `slot`.
  void release(int slot, cudaStream_t compute)
  {
    TWOBODY_CUDA_TRY(cudaEventRecord(slots_[static_cast<std::size_t>(slot)].free, compute));
  }

 private:
  struct slot {
    device_array<T> device;
    pinned_array<T> staging;
    cudaEvent_t ready = nullptr, free = nullptr;
    int set            = -1;
    std::int64_t block = -1;
    unsigned long long used = 0;
  };
  Points view(slot const& s, size_type n) const
  {
    Points p;
    for (int d = 0; d < Points::dims; ++d) { p.coords[d] = s.device.data() + d * stride_; }
    if constexpr (Points::weighted) { p.weights = s.device.data() + Points::dims * stride_; }
    p.size = n;
    return p;
  }

  // Columns start on 256-byte boundaries: the kernels use vector loads only on 16-byte aligned
  // columns (an odd block size would put y, z, ... off alignment: scalar loads throughout).
  size_type stride_;
  cudaStream_t copy_;
  std::vector<slot> slots_;
  unsigned long long clock_ = 0;
};

using twobody::detail::owned_stream;

/// The devices a run uses: opt.devices, or the current device.
inline std::vector<int> devices_of(scale_options const& opt)
{
  if (!opt.devices.empty()) { return opt.devices; }
  int d = 0;
  TWOBODY_CUDA_TRY(cudaGetDevice(&d));
  return {d};
}

/// Runs every block pair of `pairs` (host memory) on the devices of `opt`: one worker (host
/// thread) per device entry draws block pairs from a shared counter, so a slower device does
/// fewer. Each worker makes its state with make_state(plan, stream) on its device, calls
/// launch(state, device pair set, block pair index, stream) per block pair (copies overlap the
/// previous pair's kernels) and finish(state, stream) -> R at the end. Returns the workers' R.
/// The first failure stops every worker; it is rethrown (CUDA and library errors name the
/// device) and no partial result is returned.
template <class R, class Points, class MakeState, class Launch, class Finish>
std::vector<R> run_blocks(pair_set<Points> const& pairs, scale_options const& opt, scale_stats& st,
                          MakeState&& make_state, Launch&& launch, Finish&& finish)
{
  twobody::detail::validate(pairs);
  TWOBODY_EXPECTS(opt.resident_blocks >= 3, "scale_options::resident_blocks must be at least 3");
  TWOBODY_EXPECTS(opt.parts >= 1 && opt.part < opt.parts, "scale_options: need 0 <= part < parts");
  std::vector<int> const devices = devices_of(opt);
  size_type const bs    = block_points_for(pairs, opt, devices.size() * opt.parts);
  block_plan const plan = block_plan::make(pairs.mode, pairs.a.size, pairs.b.size, bs);
  std::vector<std::size_t> const mine = share_of(plan, opt.part, opt.parts);
  std::size_t const share             = mine.size();
  st              = {};
  st.block_points = bs;
  st.block_pairs  = share;
  for (std::size_t k : mine) { st.pairs += plan.pair_count(plan[k]); }

  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;  // guards the progress record, the callback and the first error
  std::exception_ptr first_error;
  progress_meter progress(share);
  std::vector<R> results(devices.size());
  std::vector<scale_stats> worker_stats(devices.size());

  auto fail = [&](std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!first_error) { first_error = e; }
    stop = true;
  };
  auto work = [&](std::size_t w) {
    int const device = devices[w];
    try {
      try {
        TWOBODY_CUDA_TRY(cudaSetDevice(device));
        owned_stream compute, copy;
        block_slots<Points> slots(opt.resident_blocks, bs, copy.s);
        auto state = make_state(plan, compute.s);
        struct event_pairs : std::vector<std::pair<cudaEvent_t, cudaEvent_t>> {
          ~event_pairs()
          {
            for (auto& e : *this) {
              (void)cudaEventDestroy(e.first);
              (void)cudaEventDestroy(e.second);
            }
          }
        } marks;
        // At most two block pairs in flight per worker (one computing, the next queued with its
        // copy): the shared counter then hands the last block pairs to whichever device is free
        // instead of letting one device hoard a deep queue while the others idle.
        struct in_flight {
          cudaEvent_t done[2] = {nullptr, nullptr};
          int oldest          = 0;
          in_flight()
          {
            for (auto& e : done) { TWOBODY_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); }
          }
          ~in_flight()
          {
            for (auto& e : done) { (void)cudaEventDestroy(e); }
          }
        } flight;
        int const set_b      = pairs.mode == pair_mode::cross ? 1 : 0;  // self / ordered: both sides are A
        Points const& host_b = pairs.mode == pair_mode::cross ? pairs.b : pairs.a;
        scale_stats& ws      = worker_stats[w];
        for (;;) {
          TWOBODY_CUDA_TRY(cudaEventSynchronize(flight.done[flight.oldest]));  // (not yet recorded: returns at once)
          std::size_t const m = next++;
          if (m >= share || stop) { break; }
          std::size_t const k = mine[m];
          block_pair const bp = plan[k];
          int sa = -1, sb = -1;
          Points const a = slots.acquire(0, bp.a, plan.range_a(bp.a), pairs.a, -1, compute.s, sa, ws.blocks_copied);
          Points const b = bp.diagonal ? a
                                       : slots.acquire(set_b, bp.b, plan.range_b(bp.b), host_b, sa, compute.s, sb,
                                                       ws.blocks_copied);
          if (opt.time_kernels) {
            marks.emplace_back();
            TWOBODY_CUDA_TRY(cudaEventCreate(&marks.back().first));
            TWOBODY_CUDA_TRY(cudaEventCreate(&marks.back().second));
            TWOBODY_CUDA_TRY(cudaEventRecord(marks.back().first, compute.s));
          }
          launch(state, plan.pairs_of(bp, a, b), k, compute.s);
          if (opt.time_kernels) { TWOBODY_CUDA_TRY(cudaEventRecord(marks.back().second, compute.s)); }
          TWOBODY_CUDA_TRY(cudaEventRecord(flight.done[flight.oldest], compute.s));
          flight.oldest ^= 1;
          slots.release(sa, compute.s);
          if (sb >= 0) { slots.release(sb, compute.s); }
          if (opt.progress) {
            std::lock_guard<std::mutex> lock(mutex);
            if (stop) { break; }
            progress.add(opt.progress, plan.pair_count(bp));
          }
        }
        TWOBODY_CUDA_TRY(cudaStreamSynchronize(compute.s));
        for (auto const& m : marks) {
          float ms = 0;
          TWOBODY_CUDA_TRY(cudaEventElapsedTime(&ms, m.first, m.second));
          ws.kernel_seconds += ms * 1e-3;
        }
        if (!stop) { results[w] = finish(state, compute.s); }
      } catch (twobody::error const& e) {
        throw twobody::error("device " + std::to_string(device) + ": " + e.what());
      }
    } catch (...) {
      fail(std::current_exception());
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t w = 1; w < devices.size(); ++w) { threads.emplace_back(work, w); }
  int caller_device = 0;
  TWOBODY_CUDA_TRY(cudaGetDevice(&caller_device));
  work(0);
  for (auto& t : threads) { t.join(); }
  (void)cudaSetDevice(caller_device);
  if (first_error) { std::rethrow_exception(first_error); }
  st.seconds = progress.seconds();
  for (auto const& ws : worker_stats) {
    st.blocks_copied += ws.blocks_copied;
    st.kernel_seconds += ws.kernel_seconds;
  }
  return results;
}

}  // namespace detail

/// Histogram of f over `pairs` whose points are in host memory (any size), block pair by
/// block pair on the devices of `opt` (default: the current one). `stats` says how it ran.
template <class Points, class F, class Binning>
histogram_result<pair_count_t<Points>> histogram(pair_set<Points> const& pairs, F f,
                                                                     Binning const& bins,
                                                                     scale_options const& opt = {},
                                                                     scale_stats* stats = nullptr)
{
  using Count = pair_count_t<Points>;
  using twobody::detail::device_buffer;
  twobody::detail::check_bins_accept<F, Binning>();
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram: need at least one bin");
  TWOBODY_EXPECTS(bins.size() < std::numeric_limits<int>::max() - 1, "histogram: too many bins");
  std::size_t const slots = static_cast<std::size_t>(bins.size()) + 1;
  struct sums {
    device_buffer total, part;
    policy_plan plan;  ///< the cost model's plan, made once per worker for a full block pair
  };
  scale_stats st;
  auto const partials = detail::run_blocks<std::vector<Count>>(
    pairs, opt, st,
    [&](block_plan const& blocks, cudaStream_t s) {
      Points a{}, b{};  // the shape of a full off-diagonal block pair: all the planner reads
      a.size = blocks.range_a(0).size;
      b.size = blocks.range_b(0).size;
      sums d{device_buffer(sizeof(Count) * slots, s), device_buffer(sizeof(Count) * slots, s),
             plan_histogram<Count>(cross_pairs(a, b), f, bins)};
      TWOBODY_CUDA_TRY(cudaMemsetAsync(d.total.data(), 0, sizeof(Count) * slots, s));
      return d;
    },
    [&](sums& d, auto const& sub, std::size_t, cudaStream_t s) {
      // The device-memory histogram writes its counts; add each block pair's into the total.
      twobody::detail::run_planned_histogram(sub, f, bins, d.part.as<Count>(), d.plan, s);
      TWOBODY_CUDA_TRY(cub::DeviceTransform::Transform(cuda::std::make_tuple(d.total.as<Count>(), d.part.as<Count>()),
                                                       d.total.as<Count>(), slots, cuda::std::plus<Count>{}, s));
    },
    [&](sums& d, cudaStream_t s) {
      std::vector<Count> h(slots);
      TWOBODY_CUDA_TRY(cudaMemcpyAsync(h.data(), d.total.data(), sizeof(Count) * slots, cudaMemcpyDeviceToHost, s));
      TWOBODY_CUDA_TRY(cudaStreamSynchronize(s));
      return h;
    });
  std::vector<Count> all(slots, Count{});
  for (auto const& p : partials) {
    for (std::size_t i = 0; i < p.size(); ++i) { all[i] += p[i]; }
  }
  if (stats != nullptr) { *stats = st; }
  return histogram_result<Count>::from_slots(std::move(all), st.pairs);  // the pairs of this part
}

/// Pairs with pred(a, b) true (weighted: the sum of w_i w_j) over `pairs` in host memory.
template <class Points, class Pred>
pair_count_t<Points> count_pairs(pair_set<Points> const& pairs, Pred pred, scale_options const& opt = {},
                                             scale_stats* stats = nullptr)
{
  using C = pair_count_t<Points>;
  using twobody::detail::device_buffer;
  // One result slot per block pair on each device (zeroed: pairs of other devices stay 0).
  scale_stats st;
  auto const partials = detail::run_blocks<std::vector<C>>(
    pairs, opt, st,
    [&](block_plan const& plan, cudaStream_t s) {
      device_buffer d(sizeof(C) * std::max<std::size_t>(plan.size(), 1), s);
      TWOBODY_CUDA_TRY(cudaMemsetAsync(d.data(), 0, d.size(), s));
      return d;
    },
    [&](device_buffer& d, auto const& sub, std::size_t k, cudaStream_t s) {
      twobody::count_pairs(sub, pred, d.as<C>() + k, s);
    },
    [&](device_buffer& d, cudaStream_t s) {
      std::vector<C> h(d.size() / sizeof(C));
      TWOBODY_CUDA_TRY(cudaMemcpyAsync(h.data(), d.data(), d.size(), cudaMemcpyDeviceToHost, s));
      TWOBODY_CUDA_TRY(cudaStreamSynchronize(s));
      return h;
    });
  if (stats != nullptr) { *stats = st; }
  C total{};
  for (auto const& p : partials) {
    for (C const& c : p) { total += c; }
  }
  return total;
}

}  // namespace twobody::host
