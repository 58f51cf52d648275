// One-call API behaviour: host arrays, empty sets, alignment paths and dimensions 1 to 6.
// Partial tiles, the 32-bit counter flush, temp storage and streams: test_gpu_api_launches.cu
// (the same binary).
#include "gpu_api_checks.cuh"

TEST(GpuApi, HostArraysAreStagedAndMatchDeviceArrays)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> h(5000, 99);
  tbt::device_points<float, 3> d(h);
  uniform_bins<float> bins(0.25f, 128.25f, 256);
  auto from_host   = histogram(self_pairs(h.view()), euclidean{}, bins);
  auto from_device = histogram(self_pairs(d.view()), euclidean{}, bins);
  EXPECT_EQ(from_host.counts, from_device.counts);
  EXPECT_EQ(from_host.outside, from_device.outside);
  EXPECT_EQ(from_host.pairs, 5000ull * 4999 / 2);
  std::vector<unsigned long long> want(257);
  cpu::histogram(self_pairs(h.as<double>().view()), euclidean{}, uniform_bins<double>(0.25, 128.25, 256), want.data());
  from_host.counts.push_back(from_host.outside);
  EXPECT_EQ(from_host.counts, want);
  EXPECT_EQ(count_pairs(self_pairs(h.view()), within_radius(9.f)), count_pairs(self_pairs(d.view()), within_radius(9.f)));
}

TEST(GpuApi, EmptySetsGiveZerosAndTheIdentity)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> none(0, 1), one(1, 2), some(10, 3);
  tbt::device_points<float, 3> d0(none), d1(one), d10(some);
  uniform_bins<float> bins(0.f, 10.f, 7);
  for (auto const& pairs : {self_pairs(d0.view()), self_pairs(d1.view()), cross_pairs(d0.view(), d10.view()),
                            cross_pairs(d10.view(), d0.view()), ordered_pairs(d1.view())}) {
    auto counts = tbt::poisoned<unsigned long long>(8);
    histogram(pairs, euclidean{}, bins, thrust::raw_pointer_cast(counts.data()));
    thrust::host_vector<unsigned long long> got = counts;
    for (auto c : got) { EXPECT_EQ(c, 0ull); }
    EXPECT_EQ(count_pairs(pairs, within_radius(1.f)), 0ull);
    EXPECT_EQ(reduce_pairs(pairs, euclidean{}, cuda::minimum<float>{}, 42.f), 42.f);
  }
}

TEST(GpuApi, MisalignedArraysTakeTheScalarPath)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> h(4097, 5);
  tbt::device_points<float, 3> d(h);
  auto shifted = d.view();
  for (auto& c : shifted.coords) { c += 1; }  // 4-byte aligned only
  shifted.size -= 1;
  tbt::host_points<double, 3> hd = h.as<double>();
  auto hview = hd.view();
  for (auto& c : hview.coords) { c += 1; }
  hview.size -= 1;
  EXPECT_EQ((count_pairs<input::shared_tile<256, 4>>(self_pairs(shifted), within_radius(8.f))),
            cpu::count_pairs(self_pairs(hview), within_radius(8.0)));
  EXPECT_EQ((count_pairs<input::shared_tile<128, 2>>(self_pairs(shifted), within_radius(8.f))),
            cpu::count_pairs(self_pairs(hview), within_radius(8.0)));
}

TEST(GpuApi, DimensionsOneToSix)
{
  TBT_REQUIRE_GPU();
  auto run = [](auto dim_tag) {
    constexpr int D = decltype(dim_tag)::value;
    tbt::host_points<float, D> h(3001, 77, 16);
    tbt::device_points<float, D> d(h);
    auto const want = cpu::count_pairs(self_pairs(h.template as<double>().view()), within_radius(5.0));
    EXPECT_EQ(count_pairs(self_pairs(d.view()), within_radius(5.f)), want) << "D=" << D;
    EXPECT_EQ((count_pairs<input::shuffle_tile<128, 1>>(self_pairs(d.view()), within_radius(5.f))), want) << "D=" << D;
  };
  run(std::integral_constant<int, 1>{});
  run(std::integral_constant<int, 2>{});
  run(std::integral_constant<int, 3>{});
  run(std::integral_constant<int, 4>{});
  run(std::integral_constant<int, 6>{});
}
