// The hostile-argument checks of the one-call forms on every backend: exec::gpu without a GPU,
// the identity of empty sets, null arrays on the CPU, 2^32-point sets, out-of-range slots of a user
// bin map, host pointers where device memory is needed. Part of test_execution (test_execution.cu
// has the same results on every backend and the progress reports).
#include "execution_checks.cuh"

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
