// One-call API behaviour of the launches: partial row tiles, shared counters flushed before they
// wrap, too small temp storage, streams. Part of test_gpu_api (test_gpu_api.cu has host arrays,
// empty sets, misaligned arrays and dimensions 1 to 6).
#include "gpu_api_checks.cuh"

// Cross and ordered launches whose A side ends in a partial tile of the one-call kernels
// (2048 own points per block): f runs on the padding and its results are dropped (adds of 0
// in the histograms), and the partial row is interleaved over the blocks. Integer squared
// distances, half-integer bin edges: exact.
TEST(GpuApi, PartialRowTilesKeepOnlyRealPairs)
{
  TBT_REQUIRE_GPU();
  std::int64_t const na = tbt::quick() ? 2 * 2048 + 5 : 5 * 2048 + 1001, nb = 2048 + 77;
  tbt::host_points<float, 3> ha(na, 41), hb(nb, 42);
  tbt::device_points<float, 3> a(ha), b(hb);
  auto const hda = ha.as<double>();
  auto const hdb = hb.as<double>();
  uniform_bins<float> const bins(-0.5f, 4999.5f, 250);
  uniform_bins<double> const dbins(-0.5, 4999.5, 250);
  for (pair_mode m : {pair_mode::cross, pair_mode::ordered}) {
    auto const pairs  = tbt::make_pairs(m, a.view(), b.view());
    auto const hpairs = tbt::make_pairs(m, hda.view(), hdb.view());
    EXPECT_EQ(count_pairs(pairs, within_radius(9.f)), cpu::count_pairs(hpairs, within_radius(9.0))) << tbt::mode_name(m);

    std::vector<unsigned long long> want(bins.size() + 1);
    cpu::histogram(hpairs, squared_euclidean{}, dbins, want.data());
    auto got = histogram(pairs, squared_euclidean{}, bins);
    got.counts.push_back(got.outside);
    EXPECT_EQ(got.counts, want) << "one-call histogram " << tbt::mode_name(m);
    auto counts = tbt::poisoned<unsigned long long>(bins.size() + 1);
    histogram<input::shared_tile<256, 8>>(pairs, squared_euclidean{}, bins, thrust::raw_pointer_cast(counts.data()),
                                          output::warp_privatized{32});
    thrust::host_vector<unsigned long long> got8 = counts;
    EXPECT_EQ(std::vector<unsigned long long>(got8.begin(), got8.end()), want) << "shared_tile<256, 8> " << tbt::mode_name(m);

    std::vector<double> wwant(bins.size() + 1);
    cpu::histogram(tbt::make_pairs(m, hda.weighted_view(), hdb.weighted_view()), squared_euclidean{}, dbins, wwant.data());
    auto wgot = histogram(tbt::make_pairs(m, a.weighted_view(), b.weighted_view()), squared_euclidean{}, bins);
    wgot.counts.push_back(wgot.outside);
    EXPECT_EQ(wgot.counts, wwant) << "weighted " << tbt::mode_name(m);

    std::vector<double> sums(static_cast<std::size_t>(na));
    cpu::sum_per_point(hpairs, within_radius(9.0), sums.data());
    auto const gsums = sum_per_point(pairs, within_radius(9.f));
    EXPECT_EQ(std::vector<double>(gsums.begin(), gsums.end()), sums) << "per point " << tbt::mode_name(m);
  }
}

TEST(GpuApi, SharedCountersAreFlushedBeforeTheyWrap)
{
  TBT_REQUIRE_GPU();
  unsigned long long const k = (1ull << 27) + 5;
  auto run = [&](auto flush) {
    auto counts = tbt::poisoned<unsigned long long>(2);
    cudaMemset(thrust::raw_pointer_cast(counts.data()), 0, 16);
    using agent = detail::privatized_histogram_agent<uniform_bins<float>, unsigned long long, unsigned, 1024, detail::window_mode::none>;
    typename agent::params p{uniform_bins<float>(0.f, 1.f, 1), thrust::raw_pointer_cast(counts.data()), 32, 0, 2,
                             detail::flush_limit_for<unsigned>(32ull << 16)};
    hammer<decltype(flush)::value><<<1, 1024, 2 * 32 * sizeof(unsigned)>>>(p, k);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    thrust::host_vector<unsigned long long> got = counts;
    return got[0];
  };
  EXPECT_EQ(run(std::true_type{}), 1024ull * k);
  // The same work without flushes wraps: the test above can see a missing flush.
  EXPECT_NE(run(std::false_type{}), 1024ull * k);
}

TEST(GpuApi, ReduceRejectsTooSmallTempStorage)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> h(1000, 5);
  tbt::device_points<float, 3> d(h);
  auto result = tbt::poisoned<unsigned long long>(1);
  std::size_t bytes = 0;
  count_pairs<default_input>(nullptr, bytes, self_pairs(d.view()), within_radius(3.f), thrust::raw_pointer_cast(result.data()));
  EXPECT_GT(bytes, 0u);
  thrust::device_vector<unsigned char> temp(bytes);
  std::size_t small = bytes - 1;
  EXPECT_THROW(count_pairs<default_input>(thrust::raw_pointer_cast(temp.data()), small, self_pairs(d.view()),
                                          within_radius(3.f), thrust::raw_pointer_cast(result.data())),
               twobody::error);
}

TEST(GpuApi, StreamsAreHonoured)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> h(20000, 8);
  tbt::device_points<float, 3> d(h);
  cudaStream_t s1, s2;
  ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
  auto c1 = tbt::poisoned<unsigned long long>(1), c2 = tbt::poisoned<unsigned long long>(1);
  count_pairs(self_pairs(d.view()), within_radius(4.f), thrust::raw_pointer_cast(c1.data()), s1);
  count_pairs(self_pairs(d.view()), within_radius(6.f), thrust::raw_pointer_cast(c2.data()), s2);
  ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s2), cudaSuccess);
  auto hd = h.as<double>();
  EXPECT_EQ(static_cast<unsigned long long>(c1[0]), cpu::count_pairs(self_pairs(hd.view()), within_radius(4.0)));
  EXPECT_EQ(static_cast<unsigned long long>(c2[0]), cpu::count_pairs(self_pairs(hd.view()), within_radius(6.0)));
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
}
