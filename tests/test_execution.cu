// One API with or without a GPU: the execution policies (execution.cuh) give the same result
// types and values on both backends; exec::gpu without a GPU fails with a message naming the
// CPU backend; exec::automatic falls back. Plus the hostile-argument checks of the one-call
// forms (null arrays on the CPU, out-of-range slots of a user bin map, host pointers where
// device memory is needed, 2^32-point sets). Host parts run everywhere, GPU parts skip.
#include "common.cuh"

#include <cuda/functional>
#include <cuda/std/functional>

#include <chrono>
#include <limits>
#include <thread>
#include <type_traits>

namespace {

using namespace twobody;

// A user bin map without the bounded_slots promise that returns slots past size() and
// negative ones: those pairs must land in the outside slot, never out of bounds.
struct wild_bins {
  __host__ __device__ int size() const { return 8; }
  __host__ __device__ int operator()(float s) const
  {
    int const k = static_cast<int>(s);
    return (k % 3 == 0) ? k : (k % 3 == 1 ? -k - 1 : k + 1000);
  }
};

std::vector<execution_policy> usable_policies()
{
  std::vector<execution_policy> v{exec::cpu};
  if (tbt::gpu_available()) { v.push_back(exec::gpu); }
  return v;
}

template <class T>
std::vector<std::tuple<std::uint32_t, std::uint32_t>> sorted_keys(join_result<T> const& r)
{
  std::vector<std::tuple<std::uint32_t, std::uint32_t>> k;
  for (auto const& x : r.to_host()) { k.emplace_back(x.i, x.j); }
  std::sort(k.begin(), k.end());
  return k;
}

}  // namespace

TEST(Execution, SameResultTypesOnEveryBackend)
{
  tbt::host_points<float, 3> h(300, 11, 16);
  auto const pairs = self_pairs(h.view());
  distance_bins<float> const bins(28.f, 16);
  static_assert(std::is_same_v<decltype(histogram(exec::cpu, pairs, squared_euclidean{}, bins)),
                               decltype(histogram(pairs, squared_euclidean{}, bins))>);
  static_assert(std::is_same_v<decltype(count_pairs(exec::cpu, pairs, within_radius(4.f))), unsigned long long>);
  static_assert(std::is_same_v<decltype(sum_per_point(exec::cpu, ordered_pairs(h.view()), gaussian_kernel(2.f))),
                               std::vector<float>>);
  static_assert(std::is_same_v<decltype(pairs_within(exec::cpu, pairs, 2.f)), join_result<index_pair>>);

  // The reference: the backend's own functions.
  std::vector<unsigned long long> want(bins.size() + 1);
  cpu::histogram(pairs, squared_euclidean{}, bins, want.data());
  auto const want_count = cpu::count_pairs(pairs, within_radius(4.f));
  auto const want_join  = cpu::join(pairs, within_eps_fn<float>{4.f});
  ASSERT_GT(want_count, 100u);
  ASSERT_GT(want_join.size(), 10u);

  for (execution_policy const& ex : usable_policies()) {
    SCOPED_TRACE(ex.where == backend::cpu ? "cpu" : "gpu");
    auto const got = histogram(ex, pairs, squared_euclidean{}, bins);
    EXPECT_EQ(got.counts, std::vector<unsigned long long>(want.begin(), want.end() - 1));
    EXPECT_EQ(got.outside, want.back());
    EXPECT_EQ(got.pairs, pairs.count());
    EXPECT_EQ(count_pairs(ex, pairs, within_radius(4.f)), want_count);
    EXPECT_EQ(count_pairs(ex, pairs, within_radius(4.f), within_cutoff<float>{4.f}), want_count);
    auto const g2 = histogram(ex, pairs, squared_euclidean{}, distance_bins<float>(4.f, 4), within_cutoff<float>{4.f});
    EXPECT_EQ(g2.counts[0] + g2.counts[1] + g2.counts[2] + g2.counts[3], want_count);
    EXPECT_EQ(reduce_pairs(ex, pairs, within_radius(4.f), cuda::std::plus<unsigned long long>{}, 0ull), want_count);

    auto j = pairs_within(ex, pairs, 2.f);
    ASSERT_EQ(j.size(), want_join.size());
    std::vector<std::tuple<std::uint32_t, std::uint32_t>> wk;
    for (auto const& r : want_join) { wk.emplace_back(r.i, r.j); }
    EXPECT_EQ(sorted_keys(j), wk);
    EXPECT_EQ(sorted_keys(join(ex, pairs, within_eps_fn<float>{4.f})), wk);
    EXPECT_EQ(sorted_keys(pairs_within(ex, pairs, 2.f, within_cutoff<float>{2.f})), wk);
    std::size_t delivered = 0;
    join_each(ex, pairs, within_eps_fn<float>{4.f}, [&](index_pair const*, std::size_t n) { delivered += n; });
    EXPECT_EQ(delivered, want_join.size());

    auto const band = band_join(ex, cross_pairs(h.view(), h.view()), 0, -1.f, 1.f);
    EXPECT_EQ(band.size(), cpu::join(cross_pairs(h.view(), h.view()), band_fn<float>{0, -1.f, 1.f}).size());

    auto const sums = sum_per_point(ex, ordered_pairs(h.view()), within_radius(4.f));
    std::vector<float> want_sums(h.n);
    cpu::sum_per_point(ordered_pairs(h.view()), within_radius(4.f), want_sums.data());
    EXPECT_EQ(sums, want_sums);  // integer counts, exact in float
  }
}

TEST(Execution, GpuPolicyWithoutGpuNamesTheCpuBackend)
{
  if (tbt::gpu_available()) { GTEST_SKIP() << "this machine has a GPU: the no-GPU error cannot be provoked"; }
  float xs[4] = {0, 1, 2, 3};
  auto const pairs = self_pairs(make_points(4, xs, xs));
  try {
    (void)count_pairs(exec::gpu, pairs, within_radius(1.5f));
    FAIL() << "exec::gpu ran without a GPU";
  } catch (twobody::error const& e) {
    std::string const m = e.what();
    EXPECT_NE(m.find("no usable CUDA GPU"), std::string::npos) << m;
    EXPECT_NE(m.find("exec::cpu"), std::string::npos) << m;
  }
  // Even for an empty set: the caller asked for the GPU.
  EXPECT_THROW((void)histogram(exec::gpu, self_pairs(points<float, 2>{}), squared_euclidean{},
                               distance_bins<float>(1.f, 2)),
               twobody::error);
  // A GPU-only form (device output) says the same.
  unsigned long long out = 0;
  try {
    count_pairs(pairs, within_radius(1.5f), &out);
    FAIL() << "a device-output form ran without a GPU";
  } catch (twobody::error const& e) {
    EXPECT_NE(std::string(e.what()).find("exec::cpu"), std::string::npos) << e.what();
  }
  // The automatic policy (and the forms without one) fall back to the CPU.
  EXPECT_EQ(count_pairs(pairs, within_radius(1.5f)), 3u);
  EXPECT_EQ(count_pairs(exec::automatic, pairs, within_radius(1.5f)), 3u);
}

TEST(Execution, ReduceIdentityOnEmptyAndSinglePointSets)
{
  float xs[1] = {1.f};
  for (execution_policy const& ex : usable_policies()) {
    SCOPED_TRACE(ex.where == backend::cpu ? "cpu" : "gpu");
    auto const none = self_pairs(points<float, 1>{});
    auto const one  = self_pairs(make_points(1, xs));
    EXPECT_EQ(reduce_pairs(ex, none, squared_euclidean{}, cuda::std::plus<double>{}, 0.0), 0.0);
    EXPECT_EQ(reduce_pairs(ex, one, squared_euclidean{}, cuda::std::plus<double>{}, 0.0), 0.0);
    float const inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(reduce_pairs(ex, one, squared_euclidean{}, cuda::minimum<float>{}, inf), inf);
    EXPECT_EQ(count_pairs(ex, none, within_radius(1.f)), 0u);
    EXPECT_EQ(count_pairs(ex, one, within_radius(1.f)), 0u);
    // Two points: one pair, min distance exact.
    float two[2] = {1.f, 4.f};
    EXPECT_EQ(reduce_pairs(ex, self_pairs(make_points(2, two)), squared_euclidean{}, cuda::minimum<float>{}, inf), 9.f);
  }
}

TEST(Execution, CpuBackendRejectsNullArrays)
{
  float xs[4] = {0, 1, 2, 3};
  auto p      = make_points(4, xs, xs, xs);
  p.coords[2] = nullptr;
  std::vector<unsigned long long> counts(5);
  EXPECT_THROW(cpu::histogram(self_pairs(p), squared_euclidean{}, distance_bins<float>(4.f, 4), counts.data()),
               twobody::error);
  EXPECT_THROW((void)cpu::count_pairs(self_pairs(p), within_radius(1.f)), twobody::error);
  EXPECT_THROW((void)cpu::join(self_pairs(p), within_eps_fn<float>{1.f}), twobody::error);
  EXPECT_THROW((void)histogram(exec::cpu, cross_pairs(make_points(4, xs, xs, xs), p), squared_euclidean{},
                               distance_bins<float>(4.f, 4)),
               twobody::error);
  std::vector<float> sums(4);
  EXPECT_THROW(cpu::sum_per_point(ordered_pairs(p), gaussian_kernel(1.f), sums.data()), twobody::error);
  try {
    (void)cpu::count_pairs(self_pairs(p), within_radius(1.f));
  } catch (twobody::error const& e) {
    EXPECT_NE(std::string(e.what()).find("coordinate array of point set A is null"), std::string::npos) << e.what();
  }
}

TEST(Execution, SetsOf2To32PointsAreRefusedBeforeAnyWork)
{
  float xs[4] = {0, 1, 2, 3};
  auto huge   = make_points(4, xs, xs);
  huge.size   = std::int64_t(1) << 32;  // never read: the check comes first
  for (execution_policy const& ex : usable_policies()) {
    EXPECT_THROW((void)pairs_within(ex, self_pairs(huge), 1.f), twobody::error);
    EXPECT_THROW((void)join(ex, cross_pairs(make_points(4, xs, xs), huge), within_eps_fn<float>{1.f}), twobody::error);
    EXPECT_THROW((void)count_pairs(ex, self_pairs(huge), within_radius(1.f)), twobody::error);
  }
}

TEST(Execution, UserBinMapSlotsOutOfRangeCountAsOutside)
{
  // Squared distances 0..(n-1)^2 on a line; the map sends 2 of 3 values out of range.
  int const n = 40;
  std::vector<float> xs(n);
  for (int i = 0; i < n; ++i) { xs[i] = static_cast<float>(i); }
  auto const pairs = self_pairs(make_points(n, xs.data()));
  std::vector<unsigned long long> want(9, 0);
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      int const k = (j - i) * (j - i);
      int const s = wild_bins{}(static_cast<float>(k));
      ++want[(s >= 0 && s < 8) ? s : 8];
    }
  }
  ASSERT_GT(want[8], 100u);
  for (execution_policy const& ex : usable_policies()) {
    SCOPED_TRACE(ex.where == backend::cpu ? "cpu" : "gpu");
    auto const got = histogram(ex, pairs, squared_euclidean{}, wild_bins{});
    EXPECT_EQ(got.counts, std::vector<unsigned long long>(want.begin(), want.end() - 1));
    EXPECT_EQ(got.outside, want[8]);
  }
  if (!tbt::gpu_available()) { return; }
  // The explicit forms with every histogram output policy clamp as well.
  thrust::device_vector<float> dx(xs.begin(), xs.end());
  auto const dpairs = self_pairs(make_points(n, thrust::raw_pointer_cast(dx.data())));
  thrust::device_vector<unsigned long long> d(9, 12345);
  auto* dc = thrust::raw_pointer_cast(d.data());
  histogram<default_input>(dpairs, squared_euclidean{}, wild_bins{}, dc, output::warp_privatized{8});
  EXPECT_EQ(std::vector<unsigned long long>(d.begin(), d.end()), want);
  thrust::fill(d.begin(), d.end(), 12345);
  histogram<default_input>(dpairs, squared_euclidean{}, wild_bins{}, dc, output::global_atomics{});
  EXPECT_EQ(std::vector<unsigned long long>(d.begin(), d.end()), want);
}

TEST(Execution, HostPointersWhereDeviceMemoryIsNeeded)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> h(500, 5, 16);
  tbt::device_points<float, 3> d(h);
  auto const pairs = self_pairs(d.view());
  std::size_t bytes = 0;
  count_pairs<default_input>(nullptr, bytes, pairs, within_radius(4.f), static_cast<unsigned long long*>(nullptr));
  std::vector<unsigned char> host_temp(bytes);
  thrust::device_vector<unsigned long long> result(1);
  try {
    count_pairs<default_input>(host_temp.data(), bytes, pairs, within_radius(4.f),
                               thrust::raw_pointer_cast(result.data()));
    FAIL() << "a host temp buffer was accepted";
  } catch (twobody::error const& e) {
    EXPECT_NE(std::string(e.what()).find("d_temp"), std::string::npos) << e.what();
  }
  unsigned long long host_counts[5];
  EXPECT_THROW(histogram(pairs, squared_euclidean{}, distance_bins<float>(4.f, 4), host_counts), twobody::error);
  // The CPU backend refuses device arrays by name instead of crashing on them.
  try {
    (void)count_pairs(exec::cpu, pairs, within_radius(4.f));
    FAIL() << "the CPU backend read device memory";
  } catch (twobody::error const& e) {
    EXPECT_NE(std::string(e.what()).find("device memory"), std::string::npos) << e.what();
  }
  // The context survived all of that.
  EXPECT_EQ(count_pairs(exec::gpu, pairs, within_radius(4.f)), cpu::count_pairs(self_pairs(h.view()), within_radius(4.f)));
}

// Progress reports and stopping (progress.cuh): the CPU backend's loops report on the calling
// thread, done only grows and ends at total (the pairs, or the frames), the results are those of
// a call without reports, and an exception from the callback stops the call and propagates.
struct stop_request {
  std::uint64_t done;
};

TEST(Progress, CpuBackendReportsToTheEndOnTheCallingThread)
{
  tbt::host_points<float, 3> const a(2500, 31), b(700, 32);
  auto const self  = self_pairs(a.view());
  auto const cross = cross_pairs(a.view(), b.view());
  std::vector<progress_report> seen;
  bool other_thread            = false;
  auto const caller            = std::this_thread::get_id();
  progress_callback const note = [&](progress_report const& p) {
    other_thread = other_thread || std::this_thread::get_id() != caller;
    seen.push_back(p);
  };
  auto const with = exec::cpu.with_progress(&note);
  EXPECT_EQ(with.on(cudaStream_t{}).progress, &note);
  auto check = [&](std::uint64_t total, char const* what) {
    SCOPED_TRACE(what);
    ASSERT_FALSE(seen.empty());
    for (std::size_t k = 1; k < seen.size(); ++k) { EXPECT_LE(seen[k - 1].done, seen[k].done); }
    EXPECT_EQ(seen.back().done, total);
    EXPECT_EQ(seen.back().total, total);
    EXPECT_FALSE(other_thread);
    seen.clear();
  };
  EXPECT_EQ(count_pairs(with, self, within_radius(9.f)), count_pairs(exec::cpu, self, within_radius(9.f)));
  check(self.count(), "count_pairs");
  auto const bins = uniform_bins<float>(0.f, 120.f, 12);
  EXPECT_EQ(histogram(with, cross, euclidean{}, bins).counts, histogram(exec::cpu, cross, euclidean{}, bins).counts);
  check(cross.count(), "histogram");
  EXPECT_EQ(sum_per_point(with, ordered_pairs(b.view()), gaussian_kernel(4.f)),
            sum_per_point(exec::cpu, ordered_pairs(b.view()), gaussian_kernel(4.f)));
  check(ordered_pairs(b.view()).count(), "sum_per_point");
  EXPECT_EQ(pairs_within(with, self, 3.f).size(), pairs_within(exec::cpu, self, 3.f).size());
  check(self.count(), "pairs_within");

  std::vector<size_type> const offsets{0, 1000, 1000, 2500};  // an empty frame too
  std::vector<float> const boxes(9, 64.f);
  auto const frames = make_frames(a.view(), offsets.data(), 3).with_boxes(boxes.data());
  auto const f      = make_periodic_euclidean(64.f, 64.f, 64.f);
  auto const near = uniform_bins<float>(0.f, 30.f, 10);  // within half the box
  EXPECT_EQ(histogram_frames(with, self_frame_pairs(frames), f, near).counts,
            histogram_frames(exec::cpu, self_frame_pairs(frames), f, near).counts);
  check(3, "histogram_frames (frames)");
}

TEST(Progress, AnExceptionFromTheCallbackStopsTheCall)
{
  tbt::host_points<float, 3> const a(40000, 33);
  auto const self = self_pairs(a.view());
  progress_callback const stop = [](progress_report const& p) { throw stop_request{p.done}; };
  auto const t0 = std::chrono::steady_clock::now();
  try {
    (void)count_pairs(exec::cpu.with_progress(&stop), self, within_radius(9.f));
    FAIL() << "the callback's exception did not propagate";
  } catch (stop_request const& s) {
    double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Stopped at the first report, about 100 ms in (or at the end, if the whole call was faster).
    EXPECT_TRUE(s.done < self.count() || seconds < 0.5) << s.done << " of " << self.count() << " in " << seconds << " s";
  }
  // Nothing is left behind: the same thread's next call runs, without reports, to the end.
  EXPECT_EQ(count_pairs(exec::cpu, self_pairs(points<float, 3>{}), within_radius(9.f)), 0u);
  EXPECT_EQ(detail::current_progress(), nullptr);
}
