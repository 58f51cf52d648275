// Device tests of the out-of-core block layer: histograms and counts over host-resident
// points split into many blocks (small budgets and block sizes) equal the in-core one-call
// results exactly (integer coordinates, dyadic weights), for self, cross and ordered pairs;
// progress reports, cancellation from the callback, and bad options.
#include "common.cuh"

#include <twobody/host/out_of_core.cuh>
#include <twobody/host/out_of_core_join.cuh>
#include <twobody/cpu/backend.cuh>

#include <stdexcept>

namespace {

template <class H>
void expect_same(H const& got, H const& want)
{
  EXPECT_EQ(got.counts, want.counts);
  EXPECT_EQ(got.outside, want.outside);
  EXPECT_EQ(got.pairs, want.pairs);
}

}  // namespace

TEST(GpuOutOfCore, HistogramsOverManyBlocksEqualTheInCoreResult)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> ha(20011, 71, 64), hb(7013, 72, 64);
  distance_bins<float> const bins(60.f, 37);
  for (size_type bs : {1000, 4096, 20011}) {
    SCOPED_TRACE("block_points " + std::to_string(bs));
    host::scale_options opt;
    opt.block_points = bs;
    host::scale_stats st;
    expect_same(host::histogram(self_pairs(ha.view()), squared_euclidean{}, bins, opt, &st),
                histogram(self_pairs(ha.view()), squared_euclidean{}, bins));
    std::size_t const blocks = static_cast<std::size_t>((20011 + bs - 1) / bs);
    EXPECT_EQ(st.block_pairs, blocks * (blocks + 1) / 2);
    EXPECT_GE(st.blocks_copied, blocks);
    expect_same(host::histogram(cross_pairs(ha.view(), hb.view()), squared_euclidean{}, bins, opt),
                histogram(cross_pairs(ha.view(), hb.view()), squared_euclidean{}, bins));
    expect_same(host::histogram(ordered_pairs(hb.view()), squared_euclidean{}, bins, opt),
                histogram(ordered_pairs(hb.view()), squared_euclidean{}, bins));
  }
  // Weighted (dyadic weights: the double sums are exact in any order).
  host::scale_options opt;
  opt.block_points = 3000;
  auto const w = host::histogram(self_pairs(ha.weighted_view()), squared_euclidean{}, bins, opt);
  auto const w_ref = histogram(self_pairs(ha.weighted_view()), squared_euclidean{}, bins);
  EXPECT_EQ(w.counts, w_ref.counts);
}

TEST(GpuOutOfCore, BudgetSetsTheBlockSizeAndCountsAgree)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> h(40000, 81, 100);
  host::scale_options opt;
  opt.device_memory_budget = 4 * 2500 * 12;  // 4 resident blocks of 2500 points: 16 blocks
  host::scale_stats st;
  opt.time_kernels = true;
  auto const n = host::count_pairs(self_pairs(h.view()), within_radius(6.f), opt, &st);
  EXPECT_GT(st.kernel_seconds, 0.0);
  EXPECT_LE(st.kernel_seconds, st.seconds * 1.05);
  opt.time_kernels = false;
  EXPECT_EQ(st.block_points, 2500);
  EXPECT_EQ(st.block_pairs, 16u * 17u / 2u);
  EXPECT_EQ(n, count_pairs(self_pairs(h.view()), within_radius(6.f)));
  tbt::host_points<float, 3> q(9000, 82, 100);
  EXPECT_EQ(host::count_pairs(cross_pairs(q.view(), h.view()), within_radius(6.f), opt),
            count_pairs(cross_pairs(q.view(), h.view()), within_radius(6.f)));
  EXPECT_EQ(host::count_pairs(self_pairs(h.weighted_view()), within_radius(6.f), opt),
            count_pairs(self_pairs(h.weighted_view()), within_radius(6.f)));
}

TEST(GpuOutOfCore, ProgressCancellationEmptySetsAndBadOptions)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> h(10000, 91, 64);
  distance_bins<float> const bins(60.f, 10);
  host::scale_options opt;
  opt.block_points = 1000;
  std::size_t calls = 0;
  host::scale_progress last;
  opt.progress = [&](host::scale_progress const& p) {
    ++calls;
    EXPECT_EQ(p.block_pairs_done, calls);
    last = p;
  };
  (void)host::histogram(self_pairs(h.view()), squared_euclidean{}, bins, opt);
  EXPECT_EQ(calls, 55u);
  EXPECT_EQ(last.block_pairs_total, 55u);
  EXPECT_EQ(last.pairs_done, 10000ull * 9999ull / 2ull);
  EXPECT_GT(last.pairs_per_s, 0.0);

  // A callback that throws cancels the run; nothing half-merged comes back, and the next run works.
  opt.progress = [](host::scale_progress const& p) {
    if (p.block_pairs_done == 7) { throw std::runtime_error("cancelled by the caller"); }
  };
  EXPECT_THROW(host::histogram(self_pairs(h.view()), squared_euclidean{}, bins, opt), std::runtime_error);
  opt.progress = nullptr;
  expect_same(host::histogram(self_pairs(h.view()), squared_euclidean{}, bins, opt),
              histogram(self_pairs(h.view()), squared_euclidean{}, bins));

  points<float, 3> empty;
  EXPECT_EQ(host::count_pairs(self_pairs(empty), within_radius(1.f), opt), 0u);
  EXPECT_EQ(host::histogram(cross_pairs(h.view(), empty), squared_euclidean{}, bins, opt).pairs, 0u);

  host::scale_options bad;
  bad.resident_blocks = 2;
  EXPECT_THROW(host::count_pairs(self_pairs(h.view()), within_radius(1.f), bad), twobody::error);
  host::scale_options tiny;
  tiny.device_memory_budget = 40;  // not one point per block
  EXPECT_THROW(host::count_pairs(self_pairs(h.view()), within_radius(1.f), tiny), twobody::error);
}

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
