// GPU calls with a progress callback (progress.cuh, util/launch_control.cuh): the reports grow to
// the total on the calling thread, the results equal those of calls without a callback, and an
// exception from the callback stops the launches within about a report interval.
#include "common.cuh"

#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

using namespace twobody;

namespace {

struct stop_request {
  std::uint64_t done;
};

/// Records the reports of one call and checks them against its total.
struct report_log {
  std::vector<progress_report> seen;
  std::thread::id caller = std::this_thread::get_id();
  bool other_thread      = false;
  progress_callback const note = [this](progress_report const& p) {
    other_thread = other_thread || std::this_thread::get_id() != caller;
    seen.push_back(p);
  };

  /// The reports of the call just made end at `total`, never go back, and came on this thread.
  /// Returns how many came before the end.
  std::size_t check(std::uint64_t total, char const* what)
  {
    SCOPED_TRACE(what);
    std::size_t before_end = 0;
    EXPECT_FALSE(seen.empty());
    for (std::size_t k = 0; k < seen.size(); ++k) {
      EXPECT_EQ(seen[k].total, total);
      EXPECT_LE(seen[k].done, total);
      if (k > 0) { EXPECT_LE(seen[k - 1].done, seen[k].done); }
      before_end += seen[k].done < total ? 1 : 0;
    }
    if (!seen.empty()) { EXPECT_EQ(seen.back().done, total); }
    EXPECT_FALSE(other_thread);
    seen.clear();
    return before_end;
  }
};

}  // namespace

TEST(GpuProgress, ReportsGrowToTheTotalAndResultsAreUnchanged)
{
  TBT_REQUIRE_GPU();
  // 2^21 points: about 2.2e12 self pairs, a second or more for a count on an H100, so that
  // reports come while the kernels run.
  tbt::host_points<float, 3> const h(1 << 21, 41, 4096);
  tbt::device_points<float, 3> const d(h);
  report_log log;
  auto const with  = exec::gpu.with_progress(&log.note);
  auto const self  = self_pairs(d.view());
  auto const count = count_pairs(exec::gpu, self, within_radius(9.f));
  EXPECT_EQ(count_pairs(with, self, within_radius(9.f)), count);
  EXPECT_GE(log.check(self.count(), "count_pairs"), 1u) << "no report while the kernel ran";

  auto const bins = uniform_bins<float>(0.f, 4096.f, 64);
  auto const h_with = histogram(with, self, euclidean{}, bins);
  auto const h_without = histogram(exec::gpu, self, euclidean{}, bins);
  EXPECT_EQ(h_with.counts, h_without.counts);
  EXPECT_EQ(h_with.outside, h_without.outside);
  log.check(self.count(), "histogram");

  // Smaller sets for the other statistics: the reports end at the total all the same.
  tbt::host_points<float, 3> const s(20000, 42, 64);
  tbt::device_points<float, 3> const ds(s);
  auto const small = self_pairs(ds.view());
  // (Neighbour counts: integers, exact in float whatever order the atomics add them in.)
  EXPECT_EQ(sum_per_point(with, ordered_pairs(ds.view()), within_radius(4.f)),
            sum_per_point(exec::gpu, ordered_pairs(ds.view()), within_radius(4.f)));
  log.check(ordered_pairs(ds.view()).count(), "sum_per_point");
  EXPECT_EQ(pairs_within(with, small, 2.f).size(), pairs_within(exec::gpu, small, 2.f).size());
  log.check(small.count(), "pairs_within");
  within_cutoff<float> grid{2.f};
  grid.search = pair_search::grid;
  EXPECT_EQ(count_pairs(with, small, within_radius(2.f), grid),
            count_pairs(exec::cpu, self_pairs(s.view()), within_radius(2.f)));
  log.check(small.count(), "count_pairs through the grid index");
  EXPECT_EQ(detail::current_gpu_progress(), nullptr);
}

TEST(GpuProgress, AnExceptionFromTheCallbackStopsTheKernels)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> const h(1 << 22, 43, 4096);  // about 8.8e12 pairs: several seconds
  tbt::device_points<float, 3> const d(h);
  auto const self = self_pairs(d.view());
  progress_callback const stop = [](progress_report const& p) {
    if (p.done < p.total) { throw stop_request{p.done}; }
  };
  auto const t0 = std::chrono::steady_clock::now();
  try {
    (void)count_pairs(exec::gpu.with_progress(&stop), self, within_radius(9.f));
    FAIL() << "the callback's exception did not propagate";
  } catch (stop_request const& s) {
    double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s.done, self.count());
    EXPECT_LT(seconds, 1.0) << "stopped " << seconds << " s after the call began";
  }
  EXPECT_EQ(detail::current_gpu_progress(), nullptr);
  // The GPU and the thread's scratch are fine: a call right after counts what it should.
  tbt::host_points<float, 3> const s(3000, 44, 64);
  tbt::device_points<float, 3> const ds(s);
  EXPECT_EQ(count_pairs(exec::gpu, self_pairs(ds.view()), within_radius(5.f)),
            count_pairs(exec::cpu, self_pairs(s.view()), within_radius(5.f)));
  auto const bins = uniform_bins<float>(0.f, 64.f, 16);
  EXPECT_EQ(histogram(exec::gpu, self_pairs(ds.view()), euclidean{}, bins).counts,
            histogram(exec::cpu, self_pairs(s.view()), euclidean{}, bins).counts);
}
