// The out-of-core block layer with several workers, joins over block pairs, and block columns of
// odd sizes. Part of test_gpu_out_of_core (test_gpu_out_of_core.cu has the histograms and counts
// over many blocks, progress and cancellation).
#include "gpu_out_of_core_checks.cuh"

TEST(GpuOutOfCore, SeveralWorkersShareTheBlockPairsAndAFailureNamesTheDevice)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> h(30000, 93, 100);
  distance_bins<float> const bins(60.f, 64);
  auto const want = histogram(self_pairs(h.view()), squared_euclidean{}, bins);
  // Two and three workers on this machine's devices (a device listed twice: two workers share it).
  for (std::vector<int> devices : {std::vector<int>{0, 0}, std::vector<int>{0, 0, 0}, host::all_devices()}) {
    SCOPED_TRACE("workers " + std::to_string(devices.size()));
    host::scale_options opt;
    opt.block_points = 2000;
    opt.devices      = devices;
    std::size_t calls = 0;
    opt.progress = [&](host::scale_progress const&) { ++calls; };
    host::scale_stats st;
    expect_same(host::histogram(self_pairs(h.view()), squared_euclidean{}, bins, opt, &st), want);
    EXPECT_EQ(calls, st.block_pairs);
    EXPECT_EQ(host::count_pairs(self_pairs(h.view()), within_radius(6.f), opt),
              count_pairs(self_pairs(h.view()), within_radius(6.f)));
  }
  // A device that does not exist: the run stops with an error naming it, no result.
  host::scale_options bad;
  bad.block_points = 2000;
  bad.devices      = {0, 4099};
  try {
    (void)host::histogram(self_pairs(h.view()), squared_euclidean{}, bins, bad);
    ADD_FAILURE() << "expected an error";
  } catch (twobody::error const& e) {
    EXPECT_NE(std::string(e.what()).find("device 4099"), std::string::npos) << e.what();
  }
  int current = -1;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 0);  // the caller's device is restored
}

TEST(GpuOutOfCore, JoinsConcatenateBlockPairsWithSetIndices)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> ha(9000, 95, 48), hb(5000, 96, 48);
  within_eps_fn<float> const pred{16.f};
  auto keys = [](auto v) {
    sort_by_index(v);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> k;
    for (auto const& r : v) { k.emplace_back(r.i, r.j); }
    return k;
  };
  for (std::vector<int> devices : {std::vector<int>{}, std::vector<int>{0, 0}}) {
    SCOPED_TRACE("workers " + std::to_string(devices.size()));
    host::scale_options opt;
    opt.block_points = 1700;
    opt.devices      = devices;
    auto const self = host::join(self_pairs(ha.view()), pred, opt);
    for (auto const& r : self) { ASSERT_LT(r.i, r.j); }
    EXPECT_EQ(keys(self), keys(cpu::join(self_pairs(ha.view()), pred)));
    EXPECT_EQ(keys(host::join(cross_pairs(ha.view(), hb.view()), pred, opt)),
              keys(cpu::join(cross_pairs(ha.view(), hb.view()), pred)));
    EXPECT_EQ(keys(host::join(ordered_pairs(hb.view()), pred, opt)), keys(cpu::join(ordered_pairs(hb.view()), pred)));
  }
  // Records with values keep them; a tiny pool forces rounds inside block pairs.
  host::scale_options opt;
  opt.block_points = 2500;
  join_options small;
  small.pool_records = 4096;
  small.grow_pool    = false;
  auto const with_d = host::join(self_pairs(ha.view()), emit_pairs_within<squared_euclidean, float>{{}, 16.f}, opt, small);
  auto const ref    = join(self_pairs(ha.view()), emit_pairs_within<squared_euclidean, float>{{}, 16.f}).to_host();
  EXPECT_EQ(keys(with_d), keys(ref));
}

TEST(GpuOutOfCore, BlockColumnsAreVectorAlignedForOddBlockSizes)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  // An odd block size would put the y, z and weight columns of a slot off 16-byte alignment,
  // and the kernels would fall back to scalar loads: columns start on 256-byte boundaries.
  tbt::host_points<float, 3> h(3001, 97, 64);
  host::detail::owned_stream copy, compute;
  host::detail::block_slots<points<float, 3, true>> slots(3, 1001, copy.s);
  int slot           = -1;
  std::size_t copies = 0;
  auto const v = slots.acquire(0, 1, {1001, 1001}, h.weighted_view(), -1, compute.s, slot, copies);
  for (auto const* c : v.coords) { EXPECT_EQ(reinterpret_cast<std::uintptr_t>(c) % 256, 0u); }
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.weights) % 256, 0u);
  EXPECT_EQ(v.size, 1001);
  EXPECT_EQ(copies, 1u);
  ASSERT_EQ(cudaStreamSynchronize(compute.s), cudaSuccess);
  std::vector<float> z(1001), w(1001);
  ASSERT_EQ(cudaMemcpy(z.data(), v.coords[2], z.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(w.data(), v.weights, w.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(z, std::vector<float>(h.c[2].begin() + 1001, h.c[2].begin() + 2002));
  EXPECT_EQ(w, std::vector<float>(h.w.begin() + 1001, h.w.begin() + 2002));
  slots.release(slot, compute.s);
}
