// The host forms' zeroed scratch: per-point sums, histograms, counts and reductions leave it zero,
// and an unsettled use is zeroed again. Part of test_gpu_fast_paths (test_gpu_fast_paths.cu has
// the fast paths' results).
#include "gpu_fast_paths_checks.cuh"

TEST(GpuFastPaths, PerPointHostFormLeavesItsScratchZero)
{
  TBT_REQUIRE_GPU();
  // 2 points; a tile's worth; past the cooperative limit; the scratch's capacity for float
  // (16384 sums) and for double (8192); one past each (the device result and copy back).
  for (std::int64_t n : {2, 300, 4097, 16384, 16385}) { check_per_point_host_calls<float>(n); }
  for (std::int64_t n : {8192, 8193}) { check_per_point_host_calls<double>(n); }
  // One point has no partner: all zeros, and nothing is launched.
  tbt::host_points<float, 3> one(1, 46);
  EXPECT_EQ(sum_per_point(ordered_pairs(one.view()), within_radius(5.f)), std::vector<float>(1, 0.f));
}

TEST(GpuFastPaths, ZeroedScratchIsZeroedAgainAfterAnUnsettledUse)
{
  TBT_REQUIRE_GPU();
  constexpr std::size_t bytes = detail::zeroed_scratch::capacity;
  EXPECT_EQ(detail::zeroed_scratch::of_thread(bytes + 1), nullptr);
  detail::zeroed_scratch* s = detail::zeroed_scratch::of_thread(bytes);
  ASSERT_NE(s, nullptr);
  // A use that fails between launch and result leaves garbage and is never settled.
  ASSERT_EQ(cudaMemset(s->as<unsigned char>(), 0x5a, bytes + sizeof(unsigned)), cudaSuccess);
  s = detail::zeroed_scratch::of_thread(bytes);
  std::vector<unsigned char> got(bytes + sizeof(unsigned), 1);
  ASSERT_EQ(cudaMemcpy(got.data(), s->as<unsigned char>(), got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(got, std::vector<unsigned char>(got.size(), 0));
  s->settle();
}

// The host-synchronous histogram counts into the same kind of scratch (its last block copies the
// counts to mapped host memory and clears them): calls in a row with bin counts up to the
// scratch's capacity (8191 bins and the outside slot of 8-byte counters) and one past it,
// weighted and not. Integer squared distances, half-integer bin edges: exact.
TEST(GpuFastPaths, HistogramHostFormLeavesItsScratchZero)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> h(tbt::quick() ? 1500 : 5000, 47);
  tbt::device_points<float, 3> d(h);
  auto const hd = h.as<double>();
  for (int width : {1, 3}) {
    for (int nb : {64, 8191, 8192, 64, 700}) {
      uniform_bins<float> const bins(-0.5f, -0.5f + float(nb * width), nb);
      uniform_bins<double> const dbins(-0.5, -0.5 + double(nb * width), nb);
      std::vector<unsigned long long> want(nb + 1);
      cpu::histogram(self_pairs(hd.view()), squared_euclidean{}, dbins, want.data());
      auto got = histogram(exec::gpu, self_pairs(d.view()), squared_euclidean{}, bins);
      got.counts.push_back(got.outside);
      EXPECT_EQ(got.counts, want) << "bins " << nb << " width " << width;
      std::vector<double> wwant(nb + 1);
      cpu::histogram(ordered_pairs(hd.weighted_view()), squared_euclidean{}, dbins, wwant.data());
      auto wgot = histogram(exec::gpu, ordered_pairs(d.weighted_view()), squared_euclidean{}, bins);
      wgot.counts.push_back(wgot.outside);
      EXPECT_EQ(wgot.counts, wwant) << "weighted, bins " << nb << " width " << width;
    }
  }
}

// Host-synchronous counts and reductions fold their blocks' partials by ticket in the same
// per-thread zeroed scratch as the histogram and per-point forms (no grid barrier): calls of
// every kind in a row, sizes from one tile pair to many blocks, host and device points, each
// exact against the CPU (integer coordinates), and the scratch all zero after each call.
TEST(GpuFastPaths, CountAndReductionHostFormsLeaveTheScratchZero)
{
  TBT_REQUIRE_GPU();
  auto scratch_is_zero = [] {
    constexpr std::size_t bytes = detail::zeroed_scratch::capacity + sizeof(unsigned);
    detail::zeroed_scratch* s   = detail::zeroed_scratch::of_thread(detail::zeroed_scratch::capacity);
    std::vector<unsigned char> got(bytes, 1);
    EXPECT_EQ(cudaMemcpy(got.data(), s->as<unsigned char>(), bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    s->settle();  // only read
    return got == std::vector<unsigned char>(bytes, 0);
  };
  uniform_bins<float> const bins(-0.5f, 99.5f, 50);
  uniform_bins<double> const dbins(-0.5, 99.5, 50);
  for (std::int64_t n : {2, 100, 4096, tbt::quick() ? 9000 : 40000}) {
    tbt::host_points<float, 3> h(n, 48);
    tbt::device_points<float, 3> d(h);
    auto const hd = h.as<double>();
    for (float r : {5.f, 11.f}) {
      auto const want = cpu::count_pairs(self_pairs(hd.view()), within_radius(double(r)));
      EXPECT_EQ(count_pairs(exec::gpu, self_pairs(d.view()), within_radius(r)), want) << n;
      EXPECT_TRUE(scratch_is_zero()) << "count, n " << n;
      EXPECT_EQ(count_pairs(exec::gpu, self_pairs(h.view()), within_radius(r)), want) << "host points " << n;
      auto const wwant = cpu::count_pairs(ordered_pairs(hd.weighted_view()), within_radius(double(r)));
      EXPECT_EQ(count_pairs(exec::gpu, ordered_pairs(d.weighted_view()), within_radius(r)), wwant) << n;
      EXPECT_TRUE(scratch_is_zero()) << "weighted count, n " << n;
      // Sums of integer squared distances in double: exact in any order.
      double const sum = reduce_pairs(exec::gpu, self_pairs(d.view()), squared_euclidean{}, cuda::std::plus<double>{}, 0.0);
      EXPECT_EQ(sum, reduce_pairs(exec::cpu, self_pairs(hd.view()), squared_euclidean{}, cuda::std::plus<double>{}, 0.0)) << n;
      EXPECT_TRUE(scratch_is_zero()) << "sum, n " << n;
      auto got = histogram(exec::gpu, self_pairs(d.view()), squared_euclidean{}, bins);
      got.counts.push_back(got.outside);
      std::vector<unsigned long long> hwant(51);
      cpu::histogram(self_pairs(hd.view()), squared_euclidean{}, dbins, hwant.data());
      EXPECT_EQ(got.counts, hwant) << n;
      EXPECT_TRUE(scratch_is_zero()) << "histogram, n " << n;
    }
  }
}
