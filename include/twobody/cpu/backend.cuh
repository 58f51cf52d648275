/// \file backend.cuh
/// \brief CPU backend: the same pair sets, functors, binnings and operators evaluated on
/// the host with OpenMP (per-thread private outputs, guided scheduling over the rows so
/// the shrinking rows of self mode stay balanced). The reference for tests, the baseline
/// for benchmarks and the fallback without a GPU. Point arrays must be in host memory.
/// Without OpenMP (compile without -fopenmp) it runs on one thread.
///
/// Users reach it through the one-call forms with `twobody::exec::cpu` (execution.cuh), which
/// take the same arguments and return the same types as on the GPU; the functions here are
/// the backend those forms call (joins here return a plain vector in (i, j) order).
#pragma once

#include <twobody/dispatch/as_emitter.cuh>
#include <twobody/emitters.cuh>
#include <twobody/math/bin_slot.cuh>
#include <twobody/points.cuh>
#include <twobody/progress.cuh>
#include <twobody/results.cuh>
#include <twobody/runtime_functor.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/progress_scope.cuh>
#include <twobody/util/validate.cuh>
#include <twobody/value_traits.cuh>

#include <cuda/std/functional>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace twobody::cpu {
namespace detail {

using twobody::detail::validate;

/// Run-time compiled functors (runtime_functor.cuh) have no host code: refused before any loop.
template <class F>
void require_host_functor()
{
  TWOBODY_EXPECTS(!holds_runtime_functor_v<F>,
                  "a runtime_functor runs on the GPU only: the CPU backend cannot call it (use exec::gpu)");
}

/// Calls visit(i, j) for every pair of row i (host loop body shared by all statistics).
template <class Points, class Visit>
inline void for_each_partner(pair_set<Points> const& pairs, std::int64_t i, Visit&& visit)
{
  std::int64_t const nb = pairs.mode == pair_mode::cross ? pairs.b.size : pairs.a.size;
  std::int64_t const j0 = pairs.mode == pair_mode::self ? i + 1 : 0;
  for (std::int64_t j = j0; j < nb; ++j) {
    if (pairs.mode == pair_mode::ordered && j == i) { continue; }
    visit(j);
  }
}

inline int max_threads()
{
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}
inline int thread_id()
{
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

/// The progress of one parallel loop, for the calling thread's callback (progress.cuh). Each
/// thread calls done(work) after a unit of work and skips the rest once stopped(); the calling
/// thread (OpenMP's thread 0) reports every progress_interval and, when the callback throws,
/// stops the loop; finish() after the loop reports the end or rethrows. Without a callback
/// done() and stopped() cost a branch.
class progress_poll {
 public:
  explicit progress_poll(std::uint64_t total)
    : cb_(twobody::detail::current_progress()), total_(total), last_(std::chrono::steady_clock::now())
  {
  }

  bool stopped() const { return cb_ != nullptr && stop_.load(std::memory_order_relaxed); }

  void done(std::uint64_t work)
  {
    if (cb_ == nullptr) { return; }
    std::uint64_t const now_done = done_.fetch_add(work, std::memory_order_relaxed) + work;
    if (thread_id() != 0 || stop_.load(std::memory_order_relaxed)) { return; }
    auto const now = std::chrono::steady_clock::now();
    if (now - last_ < twobody::detail::progress_interval) { return; }
    last_ = now;
    report(now_done);
  }

  /// After the loop, on the calling thread: the callback's exception, or the final report.
  void finish()
  {
    if (cb_ == nullptr) { return; }
    if (error_) { std::rethrow_exception(error_); }
    report(total_);
    if (error_) { std::rethrow_exception(error_); }
  }

 private:
  void report(std::uint64_t done)
  {
    try {
      (*cb_)(progress_report{std::min(done, total_), total_});
    } catch (...) {
      error_ = std::current_exception();
      stop_.store(true, std::memory_order_relaxed);
    }
  }

  progress_callback const* cb_;
  std::uint64_t total_;
  std::atomic<std::uint64_t> done_{0};
  std::atomic<bool> stop_{false};
  std::chrono::steady_clock::time_point last_;
  std::exception_ptr error_;
};

/// The pairs row i of a pair set holds (what progress counts).
template <class Points>
std::uint64_t partners_of(pair_set<Points> const& pairs, std::int64_t i)
{
  switch (pairs.mode) {
    case pair_mode::self: return static_cast<std::uint64_t>(pairs.a.size - 1 - i);
    case pair_mode::cross: return static_cast<std::uint64_t>(pairs.b.size);
    default: return static_cast<std::uint64_t>(pairs.a.size - 1);
  }
}

/// The records row(i, out) appends for rows 0 .. rows - 1, in row order: rows split into
/// contiguous chunks over the threads, one record vector per chunk, joined in chunk order.
/// `work(i)` is what row i counts for in progress reports (its pairs).
template <class Record, class Row, class Work>
std::vector<Record> records_by_row(std::int64_t rows, Row&& row, Work&& work)
{
  std::int64_t const chunks = rows <= 0 ? 0 : std::min<std::int64_t>(rows, 64 * max_threads());
  std::vector<std::vector<Record>> parts(static_cast<std::size_t>(chunks));
  std::uint64_t work_total = 0;
  for (std::int64_t i = 0; i < rows; ++i) { work_total += work(i); }
  progress_poll poll(work_total);
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t c = 0; c < chunks; ++c) {
    auto& out = parts[static_cast<std::size_t>(c)];
    for (std::int64_t i = rows * c / chunks; i < rows * (c + 1) / chunks && !poll.stopped(); ++i) {
      row(i, out);
      poll.done(work(i));
    }
  }
  poll.finish();
  std::vector<Record> all;
  std::size_t total = 0;
  for (auto const& v : parts) { total += v.size(); }
  all.reserve(total);
  for (auto const& v : parts) { all.insert(all.end(), v.begin(), v.end()); }
  return all;
}

}  // namespace detail

/// Threads the CPU backend runs on: OpenMP's maximum, or 1 when compiled without OpenMP (the
/// twobody::twobody CMake target carries OpenMP where CMake finds it).
inline int threads() { return detail::max_threads(); }

/// Histogram on the host: `counts` gets bins.size() + 1 values (the last one: outside).
template <class Points, class F, class Binning, class Count>
void histogram(pair_set<Points> const& pairs, F f, Binning const& bins, Count* counts)
{
  static_assert(!Points::weighted || cuda::std::is_floating_point_v<Count>,
                "twobody::cpu::histogram: a weighted point set needs double counts");
  twobody::detail::check_bins_accept<F, Binning>();
  detail::require_host_functor<F>();
  detail::validate(pairs);
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram: need at least one bin");
  TWOBODY_EXPECTS(counts != nullptr, "histogram: the counts pointer is null");
  std::size_t const slots = static_cast<std::size_t>(bins.size()) + 1;
  Points const& b = pairs.mode == pair_mode::cross ? pairs.b : pairs.a;
  std::vector<std::vector<Count>> priv(detail::max_threads(), std::vector<Count>(slots, Count{}));
  detail::progress_poll poll(static_cast<std::uint64_t>(pairs.count()));
#pragma omp parallel for schedule(guided)
  for (std::int64_t i = 0; i < pairs.a.size; ++i) {
    if (poll.stopped()) { continue; }
    auto& h      = priv[detail::thread_id()];
    auto const p = pairs.a[i];
    auto const w = pairs.a.weight(i);
    detail::for_each_partner(pairs, i, [&](std::int64_t j) {
      auto const s = twobody::detail::slot_of(bins, f(p, b[j]));
      if constexpr (Points::weighted) {
        h[s] += static_cast<Count>(w * b.weight(j));
      } else {
        h[s] += Count(1);
      }
    });
    poll.done(detail::partners_of(pairs, i));
  }
  poll.finish();
  for (std::size_t s = 0; s < slots; ++s) {
    Count total{};
    for (auto const& h : priv) { total += h[s]; }
    counts[s] = total;
  }
}

/// Histogram on the host, returned as on the GPU.
template <class Points, class F, class Binning>
histogram_result<pair_count_t<Points>> histogram(pair_set<Points> const& pairs, F f, Binning const& bins)
{
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram: need at least one bin");
  std::vector<pair_count_t<Points>> slots(static_cast<std::size_t>(bins.size()) + 1);
  cpu::histogram(pairs, f, bins, slots.data());
  return histogram_result<pair_count_t<Points>>::from_slots(std::move(slots), pairs.count());
}

/// Reduction on the host (weighted sets multiply each value by w_i w_j first). `identity`
/// must be the identity of `op` (0 for plus, +inf for min): each thread starts from it.
template <class Points, class F, class Op, class T>
T reduce_pairs(pair_set<Points> const& pairs, F f, Op op, T identity)
{
  detail::require_host_functor<F>();
  detail::validate(pairs);
  Points const& b = pairs.mode == pair_mode::cross ? pairs.b : pairs.a;
  std::vector<T> priv(detail::max_threads(), identity);
  detail::progress_poll poll(static_cast<std::uint64_t>(pairs.count()));
#pragma omp parallel for schedule(guided)
  for (std::int64_t i = 0; i < pairs.a.size; ++i) {
    if (poll.stopped()) { continue; }
    T acc        = identity;
    auto const p = pairs.a[i];
    auto const w = pairs.a.weight(i);
    detail::for_each_partner(pairs, i, [&](std::int64_t j) {
      if constexpr (Points::weighted) {
        acc = op(acc, static_cast<T>(static_cast<T>(f(p, b[j])) * (w * b.weight(j))));
      } else {
        acc = op(acc, static_cast<T>(f(p, b[j])));
      }
    });
    T& mine = priv[detail::thread_id()];
    mine    = op(mine, acc);
    poll.done(detail::partners_of(pairs, i));
  }
  poll.finish();
  T total = identity;
  for (T const& v : priv) { total = op(total, v); }
  return total;
}

/// Pairs with pred(a, b) true (weighted sets: the sum of w_i w_j over them).
template <class Points, class Pred>
pair_count_t<Points> count_pairs(pair_set<Points> const& pairs, Pred pred)
{
  using C = pair_count_t<Points>;
  return cpu::reduce_pairs(pairs, pred, cuda::std::plus<C>{}, C{});
}

/// out[i] = sum over the partners j of a_i of f(a_i, b_j) (cross: all of B; ordered: j != i).
template <class Points, class F, class Out>
void sum_per_point(pair_set<Points> const& pairs, F f, Out* out)
{
  static_assert(!Points::weighted, "cpu::sum_per_point: weighted point sets are not supported");
  detail::require_host_functor<F>();
  detail::validate(pairs);
  TWOBODY_EXPECTS(pairs.mode != pair_mode::self,
                  "sum_per_point: self pairs visit each pair once; use ordered_pairs (all j != i) or cross_pairs");
  TWOBODY_EXPECTS(out != nullptr || pairs.a.size == 0, "sum_per_point: the output pointer is null");
  Points const& b = pairs.mode == pair_mode::cross ? pairs.b : pairs.a;
  detail::progress_poll poll(static_cast<std::uint64_t>(pairs.count()));
#pragma omp parallel for schedule(guided)
  for (std::int64_t i = 0; i < pairs.a.size; ++i) {
    if (poll.stopped()) { continue; }
    Out acc{};
    auto const p = pairs.a[i];
    detail::for_each_partner(pairs, i, [&](std::int64_t j) { acc += static_cast<Out>(f(p, b[j])); });
    out[i] = acc;
    poll.done(detail::partners_of(pairs, i));
  }
  poll.finish();
}

/// Per-point sums on the host, returned as on the GPU (in the points' value type).
template <class Points, class F>
std::vector<typename Points::value_type> sum_per_point(pair_set<Points> const& pairs, F f)
{
  std::vector<typename Points::value_type> out(static_cast<std::size_t>(pairs.a.size > 0 ? pairs.a.size : 0));
  cpu::sum_per_point(pairs, f, out.data());
  return out;
}

/// Join on the host: the records `x` (an emitter, or a predicate for index pairs) keeps, in
/// (i, j) order (rows split into contiguous chunks, one record vector per chunk, joined in
/// row order). The reference for the GPU joins.
template <class Points, class X>
std::vector<join_record_t<X>> join(pair_set<Points> const& pairs, X const& x)
{
  auto const e = twobody::detail::as_emitter(x);
  using Record = typename decltype(e)::record_type;
  twobody::detail::check_record<Record>();
  detail::require_host_functor<X>();
  detail::validate(pairs);
  Points const& b = pairs.mode == pair_mode::cross ? pairs.b : pairs.a;
  return detail::records_by_row<Record>(
    pairs.a.size,
    [&](std::int64_t i, std::vector<Record>& out) {
      auto const p = pairs.a[i];
      detail::for_each_partner(pairs, i, [&](std::int64_t j) {
        Record r{};
        if (e(p, b[j], i, j, r)) { out.push_back(r); }
      });
    },
    [&](std::int64_t i) { return detail::partners_of(pairs, i); });
}

}  // namespace twobody::cpu
