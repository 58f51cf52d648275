// Cost model on the GPU: the device description and the host occupancy arithmetic against
// the CUDA runtime, and the one-call functions running whatever the model (or
// TWOBODY_POLICY) picks with results equal to the CPU backend.
#include "common.cuh"

#include <cstdlib>

using namespace twobody;

namespace {

struct scoped_policy {
  explicit scoped_policy(char const* v) { setenv("TWOBODY_POLICY", v, 1); }
  ~scoped_policy() { unsetenv("TWOBODY_POLICY"); }
};

int attribute(cudaDeviceAttr a)
{
  int v = 0, dev = 0;
  EXPECT_EQ(cudaGetDevice(&dev), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetAttribute(&v, a, dev), cudaSuccess);
  return v;
}

/// Host occupancy arithmetic == cudaOccupancyMaxActiveBlocksPerMultiprocessor for `Kernel`
/// at several dynamic shared-memory sizes.
template <class Kernel>
void expect_occupancy_matches_runtime(char const* what)
{
  device_info const& dev = device_info::get();
  std::size_t const limit = Kernel::dynamic_smem_limit();
  for (std::size_t smem : {std::size_t(0), std::size_t(4096), std::size_t(33 * 1024), std::size_t(57345),
                           std::size_t(66 * 1024), std::size_t(100 * 1024), limit}) {
    if (smem > limit) { continue; }
    int api = 0;
    ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&api, Kernel::get(), Kernel::resources().block_threads, smem),
              cudaSuccess);
    occupancy const host = model::blocks_per_sm(dev, Kernel::resources(smem));
    EXPECT_EQ(host.blocks_per_sm, api) << what << " dynamic smem " << smem << " regs " << Kernel::resources().regs_per_thread
                                       << " static smem " << Kernel::resources().static_smem;
  }
}

template <class Input>
using sdh_kernel = detail::pair_kernel<Input, detail::privatized_histogram_agent<distance_bins<float>, unsigned long long,
                                                                                 unsigned int, Input::block_threads, detail::window_mode::none>,
                                       points<float, 3>, squared_euclidean>;
template <class Input>
using count_kernel = detail::pair_kernel<Input, detail::reduction_agent<unsigned long long, cuda::std::plus<unsigned long long>,
                                                                        unsigned int, Input::block_threads>,
                                         points<float, 3>, within_radius_fn<float>>;

}  // namespace

TEST(GpuModel, DeviceInfoMatchesTheRuntimeAndIsCached)
{
  TBT_REQUIRE_GPU();
  device_info const& d = device_info::get();
  EXPECT_EQ(&d, &device_info::get());
  EXPECT_EQ(d.sm_count, attribute(cudaDevAttrMultiProcessorCount));
  EXPECT_EQ(static_cast<int>(d.smem_per_sm), attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor));
  EXPECT_EQ(static_cast<int>(d.smem_per_block_optin), attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
  EXPECT_EQ(static_cast<int>(d.reserved_smem_per_block), attribute(cudaDevAttrReservedSharedMemoryPerBlock));
  EXPECT_EQ(d.regs_per_sm, attribute(cudaDevAttrMaxRegistersPerMultiprocessor));
  EXPECT_EQ(d.max_threads_per_sm, attribute(cudaDevAttrMaxThreadsPerMultiProcessor));
  EXPECT_EQ(d.max_blocks_per_sm, attribute(cudaDevAttrMaxBlocksPerMultiprocessor));
  EXPECT_EQ(static_cast<int>(d.l2_bytes), attribute(cudaDevAttrL2CacheSize));
  EXPECT_EQ(d.cc_major, attribute(cudaDevAttrComputeCapabilityMajor));
  if (d.cc_major == 9 && d.sm_count == 132 && d.name.find("H100") != std::string::npos) {
    // The description used without a GPU must be this H100 (an H200 has 132 SMs too, and 60 MB of L2).
    device_info const h = device_info::h100_sxm();
    EXPECT_EQ(h.smem_per_sm, d.smem_per_sm);
    EXPECT_EQ(h.smem_per_block_optin, d.smem_per_block_optin);
    EXPECT_EQ(h.reserved_smem_per_block, d.reserved_smem_per_block);
    EXPECT_EQ(h.l2_bytes, d.l2_bytes);
  }
}

TEST(GpuModel, OccupancyArithmeticMatchesTheRuntime)
{
  TBT_REQUIRE_GPU();
  expect_occupancy_matches_runtime<sdh_kernel<input::shared_tile<256, 8>>>("sdh shared_tile<256, 8>");
  expect_occupancy_matches_runtime<sdh_kernel<input::shared_tile<256, 4>>>("sdh shared_tile<256, 4>");
  expect_occupancy_matches_runtime<sdh_kernel<input::shuffle_tile<256, 4>>>("sdh shuffle_tile<256, 4>");
  expect_occupancy_matches_runtime<sdh_kernel<input::shared_tile<128, 1>>>("sdh shared_tile<128, 1>");
  expect_occupancy_matches_runtime<count_kernel<input::shared_tile<256, 4>>>("count shared_tile<256, 4>");
  expect_occupancy_matches_runtime<count_kernel<input::shared_tile<256, 8, 4>>>("count shared_tile<256, 8, 4>");
  expect_occupancy_matches_runtime<count_kernel<input::readonly_tile<64, 2>>>("count readonly_tile<64, 2>");
}

TEST(GpuModel, OneCallHistogramRunsEveryForcedPlanCorrectly)
{
  TBT_REQUIRE_GPU();
  unsetenv("TWOBODY_POLICY");
  std::int64_t const n = tbt::quick() ? 700 : 5000;
  tbt::host_points<float, 3> h(n, 51);
  tbt::device_points<float, 3> d(h);
  distance_bins<float> const bins(112.f, 200);  // integer coordinates in [0, 64): distances < 111
  auto const hp = self_pairs(h.view());
  std::vector<unsigned long long> want(bins.size() + 1);
  cpu::histogram(hp, squared_euclidean{}, bins, want.data());
  auto run = [&](char const* policy) {
    std::unique_ptr<scoped_policy> env;
    if (policy != nullptr) { env = std::make_unique<scoped_policy>(policy); }
    policy_plan const plan = plan_histogram(self_pairs(d.view()), squared_euclidean{}, bins);
    auto got = tbt::poisoned<unsigned long long>(bins.size() + 1);
    histogram(self_pairs(d.view()), squared_euclidean{}, bins, thrust::raw_pointer_cast(got.data()));
    thrust::host_vector<unsigned long long> g = got;
    EXPECT_EQ(std::vector<unsigned long long>(g.begin(), g.end()), want) << (policy ? policy : "model") << ": " << plan;
    return plan;
  };
  policy_plan const free = run(nullptr);
  EXPECT_EQ(free.output, output::warp_privatized::kind);
  EXPECT_FALSE(free.forced);
  EXPECT_EQ(run("copies=1").copies, 1);
  EXPECT_EQ(run("copies=4").copies, 4);
  EXPECT_EQ(run("input=shuffle_tile").input.input, input::shuffle_tile<>::kind);
  EXPECT_EQ(run("points_per_thread=8").input.points_per_thread, 8);
  EXPECT_EQ(run("points_per_thread=4,copies=16").input.points_per_thread, 4);
  {
    scoped_policy env("input=readonly_tile");
    EXPECT_THROW(plan_histogram(self_pairs(d.view()), squared_euclidean{}, bins), twobody::error);
  }
}

// The 2048-point tile's one-pass SDH kernel asks the compiler for two blocks per SM (at most 128
// registers): with more, the planner takes the 1024-point tile at 2^20 points (checked below).
static_assert(twobody::detail::engine_min_blocks_v<
                twobody::detail::tile_traversal<twobody::input::shared_tile<256, 8>, twobody::points<float, 3>>,
                twobody::detail::statistic_visitor<
                  twobody::detail::privatized_histogram_agent<twobody::distance_bins<float>, unsigned long long, unsigned,
                                                              256, twobody::detail::window_mode::none>,
                  twobody::detail::tile_formed<twobody::squared_euclidean>>> == 2);

TEST(GpuModel, OneCallChoosesTilesBySizeAndStaysCorrect)
{
  TBT_REQUIRE_GPU();
  unsetenv("TWOBODY_POLICY");
  // On a GPU with many SMs a small problem takes the small tile (64 x 2: 8256 tile pairs at
  // 2^14 points; bench_frames floor/rdf128 at 16384: 171 us a call against 311 us with the
  // 1024-point tile) and a large one the largest.
  tbt::host_points<float, 3> small_h(1 << 14, 52);
  tbt::device_points<float, 3> small_d(small_h);
  distance_bins<float> const bins(112.f, 256);
  policy_plan const small = plan_histogram(self_pairs(small_d.view()), squared_euclidean{}, bins);
  if (device_info::get().sm_count >= 64) {
    EXPECT_EQ(small.input.tile_points(), 128) << small;
    points<float, 3> big = small_d.view();
    big.size             = 1 << 20;  // only planned, not run
    EXPECT_EQ(plan_histogram(self_pairs(big), squared_euclidean{}, bins).input.points_per_thread, 8);
  }
  // Per-point sums, both tile shapes, equal to the CPU backend (exact neighbour counts).
  for (std::int64_t n : {std::int64_t(3000), std::int64_t(tbt::quick() ? 3000 : 40000)}) {
    tbt::host_points<float, 3> ha(n, 53), hb(n / 2 + 5, 54);
    tbt::device_points<float, 3> a(ha), b(hb);
    std::vector<float> want(n);
    cpu::sum_per_point(cross_pairs(ha.view(), hb.view()), within_radius(6.f), want.data());
    policy_plan const plan = plan_sum_per_point(cross_pairs(a.view(), b.view()), within_radius(6.f));
    EXPECT_EQ(plan.output, output::per_point_sum::kind);
    auto got = tbt::poisoned<float>(n);
    sum_per_point(cross_pairs(a.view(), b.view()), within_radius(6.f), thrust::raw_pointer_cast(got.data()));
    thrust::host_vector<float> g = got;
    EXPECT_EQ(std::vector<float>(g.begin(), g.end()), want) << "n=" << n << ": " << plan;
  }
}
