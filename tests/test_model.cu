// Cost model on the host: occupancy arithmetic (hand-worked cases), the birthday model of
// private copies, and the decision tree on described GPUs (no GPU needed).
#include <twobody/dispatch/auto_policy.cuh>
#include <twobody/functors.cuh>
#include <twobody/model/policy.cuh>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <set>

using namespace twobody;

namespace {

/// Sets TWOBODY_POLICY for one scope.
struct scoped_policy {
  explicit scoped_policy(char const* v) { setenv("TWOBODY_POLICY", v, 1); }
  ~scoped_policy() { unsetenv("TWOBODY_POLICY"); }
};

struct no_policy_env : ::testing::Test {
  void SetUp() override { unsetenv("TWOBODY_POLICY"); }
};

/// The spilling kernels' input among p's default candidates: shared_tile<256, ppt> with the
/// privatized output (points_per_thread 0 when there is none).
input_candidate spill_candidate(problem const& p, int points_per_thread)
{
  input_candidate c;
  c.points_per_thread = 0;
  for (auto const& d : default_candidates(p)) {
    if (d.input == input::shared_tile<>::kind && d.block_threads == 256 && d.points_per_thread == points_per_thread &&
        d.histogram_output == output::warp_privatized::kind) {
      c = d;
    }
  }
  return c;
}

}  // namespace

TEST(Occupancy, HandWorkedH100Cases)
{
  device_info const h = device_info::h100_sxm();
  // 256 threads, no registers or shared memory given: 2048 / 256 = 8 blocks (threads).
  occupancy o = model::blocks_per_sm(h, {256, 0, 0, 0});
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_EQ(o.limit, occupancy_limit::threads);
  // 128 registers: 128 * 32 = 4096 per warp, 65536 / 4096 = 16 warps = 2 blocks of 8 warps.
  o = model::blocks_per_sm(h, {256, 128, 0, 0});
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.limit, occupancy_limit::registers);
  // 126 registers round up to 4096 per warp as well (unit 256): still 2.
  EXPECT_EQ(model::blocks_per_sm(h, {256, 126, 0, 0}).blocks_per_sm, 2);
  // 72 registers: 2304 per warp, 28 warps, 3 blocks of 8.
  EXPECT_EQ(model::blocks_per_sm(h, {256, 72, 0, 0}).blocks_per_sm, 3);
  // Registers are split over the 4 sub-partitions: 48 registers (1536 per warp) fit 10 warps in
  // each quarter (16384 / 1536), 40 in all: 20 blocks of 2 warps, not 65536 / 1536 / 2 = 21
  // (readonly_tile<64, 2> on the H100, where cudaOccupancy says 20).
  o = model::blocks_per_sm(h, {64, 48, 32, 0});
  EXPECT_EQ(o.blocks_per_sm, 20);
  EXPECT_EQ(o.limit, occupancy_limit::registers);
  // Shared memory: 32 KiB tile + 33 KiB copies + 1 KiB reserved = 67584 B, 233472 / 67584 = 3.
  o = model::blocks_per_sm(h, {256, 64, 32768, 257 * 4 * 32});
  EXPECT_EQ(o.blocks_per_sm, 3);
  EXPECT_EQ(o.limit, occupancy_limit::shared_memory);
  // The 1 KiB reserved per block matters: 4 x (57344 + 1024) = 233472 fits exactly, 57345 does not.
  EXPECT_EQ(model::blocks_per_sm(h, {256, 32, 0, 57344}).blocks_per_sm, 4);
  EXPECT_EQ(model::blocks_per_sm(h, {256, 32, 0, 57345}).blocks_per_sm, 3);
  // More than a block may opt in to: does not fit at all.
  EXPECT_EQ(model::blocks_per_sm(h, {256, 32, 0, 232449}).blocks_per_sm, 0);
  // Small blocks: 32 threads, 32 blocks per SM at most.
  o = model::blocks_per_sm(h, {32, 16, 0, 0});
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.limit, occupancy_limit::blocks);
}

TEST(Occupancy, SmallSharedMemoryGpu)
{
  device_info const t4 = device_info::t4();
  EXPECT_EQ(model::blocks_per_sm(t4, {256, 0, 0, 0}).blocks_per_sm, 4);  // 1024 threads per SM
  EXPECT_EQ(model::blocks_per_sm(t4, {256, 0, 16384, 16384}).blocks_per_sm, 2);
  EXPECT_EQ(model::blocks_per_sm(t4, {256, 0, 32768, 32769}).blocks_per_sm, 0);
}

// The planner never picks a composition that cannot launch: on a T4 (64 KiB of shared memory a
// block), an A100 (163 KiB) and an H100 (227 KiB), for points of 4- and 8-byte values of 1 to 16
// dimensions (the largest tiles of 8-byte points take 64 KiB and more), every statistic's plan
// fits one block on an SM next to its tile.
TEST(Occupancy, PlansLaunchOnEveryGpu)
{
  for (device_info const& dev : {device_info::t4(), device_info::a100(), device_info::h100_sxm()}) {
    for (int value_bytes : {4, 8}) {
      for (int dims : {1, 3, 4, 16}) {
        std::vector<problem> problems;
        for (int slots : {64, 4097, 65537, 1 << 20}) {
          problems.push_back(problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, slots, 8, value_bytes, dims));
        }
        for (statistic_kind kind : {statistic_kind::reduction, statistic_kind::per_point, statistic_kind::pair_list}) {
          problem p  = problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, 1, 8, value_bytes, dims);
          p.kind     = kind;
          p.slots    = 0;
          p.output_bytes = kind == statistic_kind::pair_list ? -1 : 8;
          problems.push_back(p);
        }
        for (problem const& p : problems) {
          SCOPED_TRACE(dev.name + ": " + std::to_string(value_bytes) + "-byte values, " + std::to_string(dims) + " dims, " +
                       std::to_string(p.slots) + " slots, kind " + std::to_string(static_cast<int>(p.kind)));
          policy_plan const plan = choose_policy(p, dev);
          EXPECT_GT(plan.occ.blocks_per_sm, 0);
          EXPECT_LE(plan.input.static_smem + plan.dynamic_smem, dev.smem_per_block_optin);
          EXPECT_GT(model::blocks_per_sm(dev, {plan.input.block_threads, plan.input.regs_per_thread, plan.input.static_smem,
                                               plan.dynamic_smem})
                      .blocks_per_sm,
                    0);
        }
      }
    }
  }
}

TEST(Occupancy, Rounds)
{
  EXPECT_EQ(model::rounds(0, 2, 132), 0);
  EXPECT_EQ(model::rounds(1, 2, 132), 1);
  EXPECT_EQ(model::rounds(264, 2, 132), 1);
  EXPECT_EQ(model::rounds(265, 2, 132), 2);
  EXPECT_EQ(model::rounds(131328, 2, 132), 498);  // 2^20 points, tiles of 2048: 512 * 513 / 2 tile pairs
  EXPECT_THROW(model::rounds(10, 0, 132), twobody::error);
}

TEST(Privatization, BirthdayProbabilities)
{
  // Eq. 5 against the exact product of Eq. 4.
  EXPECT_DOUBLE_EQ(model::p_distinct(1, 10), 1.0);
  EXPECT_NEAR(model::p_distinct(2, 2), std::exp(-0.5), 1e-15);
  EXPECT_DOUBLE_EQ(model::p_distinct_exact(2, 2), 0.5);
  EXPECT_DOUBLE_EQ(model::p_distinct_exact(3, 2), 0.0);
  EXPECT_NEAR(model::p_distinct_exact(23, 365), 0.4927, 1e-4);  // the birthday problem
  EXPECT_NEAR(model::p_distinct(23, 365), 0.4999, 1e-3);
  EXPECT_NEAR(model::p_distinct(32, 256), model::p_distinct_exact(32, 256), 0.03);
  EXPECT_THROW(model::p_distinct(0, 4), twobody::error);
}

TEST(Privatization, LatencyRecursion)
{
  // k = 1: no conflict.
  EXPECT_DOUBLE_EQ(model::update_latency(1, 4, 1.0, 0.5), 1.0);
  // k = 2: p C + (1 - p)(C + C_LP).
  double const p2 = std::exp(-2.0 * 1 / (2 * 2.0));
  EXPECT_NEAR(model::update_latency(2, 2, 1.0, 0.5), p2 * 1.0 + (1 - p2) * 1.5, 1e-15);
  // k = 3 by hand: p3 C + (1 - p3) L(2, C + C_LP).
  double const s = 8, c = 2, cp = 1;
  double const p3 = std::exp(-3.0 * 2 / (2 * s)), q2 = std::exp(-1.0 / s);
  double const l2 = q2 * (c + cp) + (1 - q2) * (c + 2 * cp);
  EXPECT_NEAR(model::update_latency(3, s, c, cp), p3 * c + (1 - p3) * l2, 1e-12);
  // Linear in (C_L, C_LP) and growing with k.
  EXPECT_NEAR(model::update_latency(8, 8, 2.0, 0.0), 2.0, 1e-15);
  EXPECT_LT(model::update_latency(4, 8, 1.0, 0.1), model::update_latency(8, 8, 1.0, 0.1));
}

TEST(Privatization, BankLayoutLimitsTheSlots)
{
  // Bin-major copies: copy c owns the 32 / H banks b with b % H == c.
  EXPECT_EQ(model::lanes_per_copy(32), 1);
  EXPECT_EQ(model::lanes_per_copy(4), 8);
  EXPECT_DOUBLE_EQ(model::conflict_slots(4097, 1), 32.0);  // 32 lanes, 32 banks, whatever the bins
  EXPECT_DOUBLE_EQ(model::conflict_slots(4097, 4), 8.0);
  EXPECT_DOUBLE_EQ(model::conflict_slots(5, 1), 5.0);      // fewer bins than banks
  EXPECT_DOUBLE_EQ(model::conflict_slots(4097, 3), 32.0);  // not a power of two: copies share banks
  privatization_constants const k{1.0, 0.1, 8.0};
  // More copies, less latency; 32 copies: none.
  double prev = 1e9;
  for (int h = 1; h <= 32; h *= 2) {
    double const l = model::privatized_latency(257, h, k);
    EXPECT_LT(l, prev);
    prev = l;
  }
  EXPECT_DOUBLE_EQ(model::privatized_latency(257, 32, k), 1.0);
}

TEST(Privatization, CopiesForAKernelWithoutATimeModel)
{
  // The grid kernel's shape on an H100: 256 threads, 64 registers (4 blocks by registers), 8.7 KB static.
  device_info const dev = device_info::h100_sxm();
  kernel_resources const k{256, 64, 8704, 0};
  privatization_constants const c{1.0, 0.2, 9.2};
  // Few slots: 32 copies fit without costing a block, and no lane waits for another.
  auto p = model::choose_copies(21, 4, k, dev, c);
  EXPECT_EQ(p.copies, 32);
  EXPECT_EQ(p.passes, 1);
  EXPECT_EQ(p.smem, 21u * 32 * 4);
  // 4097 slots: 32 or 16 copies do not fit next to 8.7 KB; 8 copies (131 KB) leave one block of
  // 8 warps, 0.87 of the full rate, still less than the conflicts 4 copies (3 blocks) add.
  p = model::choose_copies(4097, 4, k, dev, c);
  EXPECT_EQ(p.copies, 8);
  EXPECT_EQ(p.smem, 4097u * 8 * 4);
  // No conflict cost: the first H (most copies) that keeps the full rate.
  p = model::choose_copies(4097, 4, k, dev, privatization_constants{1.0, 0.0, 9.2});
  EXPECT_EQ(p.copies, 4);
  // Past shared memory: one copy in windows.
  p = model::choose_copies(100001, 4, k, dev, c);
  EXPECT_EQ(p.copies, 1);
  EXPECT_EQ(p.passes, 2);
  EXPECT_THROW(model::choose_copies(21, 4, kernel_resources{256, 64, dev.smem_per_block_optin, 0}, dev, c), error);
}

TEST(Privatization, PredictedTimeFollowsRoundsAndSaturation)
{
  privatization_constants const k{1e-9, 0.0, 8.0};
  occupancy two{2, occupancy_limit::registers}, one{1, occupancy_limit::shared_memory};
  // 264 items on 132 SMs with 2 blocks each: one round of 2 items per SM.
  EXPECT_DOUBLE_EQ(model::predicted_seconds(264, 1000, two, 256, 132, 1e-9, k), 2 * 1000 * 1e-9);
  // One block of 8 warps reaches the saturation: twice the rounds, half the work per round.
  EXPECT_DOUBLE_EQ(model::predicted_seconds(264, 1000, one, 256, 132, 1e-9, k), 2 * 1000 * 1e-9);
  // Below saturation (16 warps needed) one block runs at half rate.
  privatization_constants const k16{1e-9, 0.0, 16.0};
  EXPECT_DOUBLE_EQ(model::predicted_seconds(264, 1000, one, 256, 132, 1e-9, k16), 2 * 2 * 1000 * 1e-9);
  EXPECT_DOUBLE_EQ(model::predicted_seconds(0, 1000, one, 256, 132, 1e-9, k), 0.0);
  // A diagonal tile pair on the critical path: (rounds + extra) round times.
  EXPECT_DOUBLE_EQ(model::predicted_seconds(264, 1000, two, 256, 132, 1e-9, k, 0.5), 1.5 * 2 * 1000 * 1e-9);
  // Fewer items than SMs: one busy block per SM, whose 8 warps saturate k: one item's time, not
  // blocks_per_sm items' (small sets).
  occupancy four{4, occupancy_limit::registers};
  EXPECT_DOUBLE_EQ(model::predicted_seconds(3, 1000, four, 256, 132, 1e-9, k), 1000 * 1e-9);
  // ... and one warp of a 32-thread block reaches 1/8 of the rate: latency-bound.
  EXPECT_DOUBLE_EQ(model::predicted_seconds(3, 1000, four, 32, 132, 1e-9, k), 8 * 1000 * 1e-9);
  // A block's setup (zeroing and flushing copies) adds to its time once.
  EXPECT_DOUBLE_EQ(model::predicted_seconds(3, 1000, four, 256, 132, 1e-9, k, 0.0, 0, 500e-9), 1500 * 1e-9);
  EXPECT_DOUBLE_EQ(model::copies_setup(4, 100, k), 800 * 1e-9);
}

TEST_F(no_policy_env, DecisionTreeFamilies)
{
  device_info const h = device_info::h100_sxm();
  // Type I: registers.
  policy_plan p = choose_policy(problem::reduction_of(pair_mode::self, 1 << 20, 1 << 20, 8), h);
  EXPECT_EQ(p.output, output::registers::kind);
  EXPECT_EQ(p.input.input, input::shared_tile<>::kind);
  EXPECT_THROW(choose_policy(problem::reduction_of(pair_mode::self, 1 << 20, 1 << 20, 32), h), twobody::error);
  // Type III (unknown size): direct output buffer.
  problem join = problem::reduction_of(pair_mode::self, 1 << 20, 1 << 20, -1);
  join.kind    = statistic_kind::pair_list;
  EXPECT_EQ(choose_policy(join, h).output, output::direct_output_buffer<>::kind);
  // Type II: privatized copies, and a printable plan.
  p = choose_policy(problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, 257), h);
  EXPECT_EQ(p.output, output::warp_privatized::kind);
  EXPECT_NE(p.to_string().find("warp_privatized{"), std::string::npos);
  EXPECT_GT(p.predicted_seconds, 0.0);
}

// Small sets take the small tile (a 2048-point tile would leave a 256-point set one block of
// padding), large sets the large tiles; the same problem gets the same (cached) plan.
TEST_F(no_policy_env, SmallSetsPlanTheSmallTile)
{
  device_info const h = device_info::h100_sxm();
  // Small sets are latency-bound: few points per thread, and the tile that measured fastest on
  // the H100 (GPU time of an RDF call: 32 points at N <= 1024, 128 points at 4096; float points
  // of 3 dimensions hold the 128-point tile as 64 x 2 in four groups, H200).
  for (long long n : {256LL, 1024LL, 4096LL}) {
    int const fastest = n <= 1024 ? 32 : 128;
    policy_plan const hist = choose_policy(problem::histogram_of(pair_mode::self, n, n, 129), h);
    EXPECT_EQ(hist.input.tile_points(), fastest) << n;
    EXPECT_EQ(hist.input.points_per_thread, n <= 1024 ? 1 : 2) << n;
    EXPECT_LE(hist.copies, 4) << n;  // zeroing and flushing 32 copies cost more than their conflicts save
    policy_plan const count = choose_policy(problem::reduction_of(pair_mode::self, n, n, 8), h);
    EXPECT_EQ(count.input.tile_points(), fastest) << n;
  }
  for (long long n : {1LL << 18, 1LL << 20}) {
    EXPECT_GE(choose_policy(problem::histogram_of(pair_mode::self, n, n, 129), h).input.points_per_thread, 4) << n;
    EXPECT_EQ(choose_policy(problem::reduction_of(pair_mode::self, n, n, 8), h).input.block_threads, 256) << n;
  }
  problem const p = problem::histogram_of(pair_mode::cross, 3000, 5000, 300);
  EXPECT_EQ(choose_policy(p, h).to_string(), choose_policy(p, h).to_string());
}

// The one-call forms keep their plans (and occupancy answers) in a memo: each value is made
// once per key, the same value comes back, and past its bound the table starts afresh.
TEST(Memo, MakesEachValueOnceAndStaysBounded)
{
  twobody::detail::memo<policy_plan> plans(3);
  device_info const h = device_info::h100_sxm();
  int made            = 0;
  auto plan_of        = [&](long long n) {
    problem const p = problem::histogram_of(pair_mode::self, n, n, 129);
    return plans.get(model::problem_key(p, h.device, nullptr), [&] {
      ++made;
      return choose_policy(p, h);
    });
  };
  policy_plan const first = plan_of(4096);
  EXPECT_EQ(plan_of(4096).to_string(), first.to_string());
  EXPECT_EQ(first.to_string(), choose_policy(problem::histogram_of(pair_mode::self, 4096, 4096, 129), h).to_string());
  EXPECT_EQ(made, 1);
  plan_of(8192), plan_of(16384);
  EXPECT_EQ(made, 3);
  EXPECT_EQ(plans.size(), 3u);
  plan_of(32768);  // past the bound: afresh
  EXPECT_EQ(plans.size(), 1u);
  EXPECT_EQ(made, 4);
  // Keys differ by TWOBODY_POLICY and device too.
  problem const p = problem::histogram_of(pair_mode::self, 4096, 4096, 129);
  EXPECT_NE(model::problem_key(p, 0, nullptr), model::problem_key(p, 0, "copies=4"));
  EXPECT_NE(model::problem_key(p, 0, nullptr), model::problem_key(p, 1, nullptr));
  EXPECT_EQ(twobody::detail::key_bytes(1, 2.0).size(), sizeof(int) + sizeof(double));
}

TEST_F(no_policy_env, H100CopiesFollowSharedMemory)
{
  device_info const h = device_info::h100_sxm();
  auto plan = [&](int slots) { return choose_policy(problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, slots), h); };
  // Few bins: 32 bank-private copies next to the 2048-point tile (2 blocks/SM by registers).
  for (int slots : {2, 17, 257, 600}) {
    policy_plan const p = plan(slots);
    EXPECT_EQ(p.copies, 32) << slots;
    EXPECT_EQ(p.input.points_per_thread, 8) << slots;
    EXPECT_EQ(p.occ.blocks_per_sm, 2) << slots;
  }
  // 4097 slots: 4 copies (65.5 KB) keep 2 blocks/SM; 8 copies (131 KB) would leave one.
  policy_plan const big = plan(4097);
  EXPECT_EQ(big.copies, 4);
  EXPECT_EQ(big.occ.blocks_per_sm, 2);
  // Copies never shrink as bins get fewer.
  int prev = 0;
  for (int slots = 8193; slots >= 2; slots /= 2) {
    int const c = plan(slots).copies;
    EXPECT_GE(c, prev) << slots;
    prev = c;
  }
  // Past shared memory: one copy in several passes.
  policy_plan const huge = plan(200000);
  EXPECT_EQ(huge.copies, 1);
  EXPECT_GT(huge.passes, 1);
  EXPECT_LE(static_cast<long long>(huge.window) * 4 + huge.input.static_smem, static_cast<long long>(h.smem_per_block_optin));
}

TEST_F(no_policy_env, SmallProblemsTakeSmallerTiles)
{
  device_info const h = device_info::h100_sxm();
  // 2^14 points: tiles of 2048 make 36 tile pairs for 264 block slots, tiles of 1024 make 136,
  // tiles of 128 make 8256 (bench_frames floor/rdf128 at 16384).
  policy_plan const small = choose_policy(problem::histogram_of(pair_mode::self, 1 << 14, 1 << 14, 257), h);
  EXPECT_EQ(small.input.tile_points(), 128);
  // 2^16 points: 2 rounds of 2048-point tiles, where the block with a diagonal tile pair sets
  // the time (measured: 1.6 against 1.94 T pairs/s for 1024-point tiles).
  EXPECT_EQ(choose_policy(problem::histogram_of(pair_mode::self, 1 << 16, 1 << 16, 257), h).input.points_per_thread, 4);
  policy_plan const large = choose_policy(problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, 257), h);
  EXPECT_EQ(large.input.points_per_thread, 8);
  // Cross mode has no diagonal tile pairs.
  EXPECT_EQ(model::diagonal_extra(problem::histogram_of(pair_mode::cross, 1 << 16, 1 << 16, 257),
                                  h100_constants(large.input)), 0.0);
}

TEST_F(no_policy_env, SmallSharedMemoryGpuTakesFewerCopies)
{
  device_info const t4 = device_info::t4();
  // 64 KiB per SM: 257 slots x 32 copies (33 KB) next to a 32 KB tile would not fit twice.
  policy_plan const p = choose_policy(problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, 257), t4);
  EXPECT_EQ(p.output, output::warp_privatized::kind);
  EXPECT_LT(p.copies, 32);
  EXPECT_GE(p.occ.blocks_per_sm, 1);
  // 4097 slots x 4 B = 16 KB per copy: one copy next to the tile, or the shuffle tile with more.
  policy_plan const big = choose_policy(problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, 4097), t4);
  EXPECT_EQ(big.passes, 1);
  EXPECT_GE(big.occ.blocks_per_sm, 1);
}

TEST_F(no_policy_env, EnvironmentForcesAPolicy)
{
  device_info const h = device_info::h100_sxm();
  problem const sdh = problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, 257);
  {
    scoped_policy env("copies=8");
    policy_plan const p = choose_policy(sdh, h);
    EXPECT_EQ(p.copies, 8);
    EXPECT_TRUE(p.forced);
  }
  {
    scoped_policy env("input=shuffle_tile,copies=4");
    policy_plan const p = choose_policy(sdh, h);
    EXPECT_EQ(p.input.input, input::shuffle_tile<>::kind);
    EXPECT_EQ(p.copies, 4);
  }
  {
    scoped_policy env("points_per_thread=4");
    EXPECT_EQ(choose_policy(sdh, h).input.points_per_thread, 4);
  }
  {
    scoped_policy env("input=readonly_tile");  // not among the default histogram candidates
    EXPECT_THROW(choose_policy(sdh, h), twobody::error);
  }
  {
    scoped_policy env("copies=64");
    EXPECT_THROW(choose_policy(sdh, h), twobody::error);
  }
  {
    scoped_policy env("colour=blue");
    EXPECT_THROW(choose_policy(sdh, h), twobody::error);
  }
  {
    scoped_policy env("copies=32,cluster=0");  // 4097 slots x 32 copies do not fit in one block
    EXPECT_THROW(choose_policy(problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, 4097), h), twobody::error);
  }
  {
    scoped_policy env("copies=32");  // ... but over the shared memory of a cluster they do
    policy_plan const p = choose_policy(problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, 4097), h);
    EXPECT_EQ(p.output, output::cluster_privatized::kind);
    EXPECT_EQ(p.copies, 32);
    EXPECT_GE(p.cluster, 2);
  }
  {
    scoped_policy env("cluster=8");
    policy_plan const p = choose_policy(sdh, h);
    EXPECT_EQ(p.output, output::cluster_privatized::kind);
    EXPECT_EQ(p.cluster, 8);
    EXPECT_NE(p.to_string().find("cluster_privatized{8 blocks"), std::string::npos) << p;
    EXPECT_THROW(choose_policy(sdh, device_info::t4()), twobody::error);  // no clusters before sm_90
  }
  {
    scoped_policy env("cluster=17");
    EXPECT_THROW(choose_policy(sdh, h), twobody::error);
  }
  EXPECT_FALSE(choose_policy(sdh, h).forced);
}

// The one-call forms compile exactly the shapes the registry lists for a statistic and point
// type (8 points per thread only for float points of up to 4 dimensions), in registry order,
// and the planner without a GPU sees the same shapes.
TEST(Registry, OneCallInputsAndDefaultCandidatesComeFromTheRegistry)
{
  using namespace twobody;
  // Histograms and per-point sums of float points of up to 3 dimensions take the 128-point tile
  // as 64 x 2 in four groups, the others (and counts) as 128 x 1 in two.
  static_assert(std::is_same_v<detail::histogram_inputs<points<float, 3>>,
                               detail::input_list<input::shared_tile<256, 8>, input::shared_tile<256, 4>,
                                                  input::shared_tile<256, 2, 4, 4>, input::shared_tile<32, 1>, input::shuffle_tile<256, 4>>>);
  static_assert(std::is_same_v<detail::histogram_inputs<points<double, 3>>,
                               detail::input_list<input::shared_tile<256, 4>, input::shared_tile<256, 1, 4, 2>, input::shared_tile<32, 1>, input::shuffle_tile<256, 4>>>);
  static_assert(std::is_same_v<detail::histogram_inputs<points<float, 6>>,
                               detail::input_list<input::shared_tile<256, 4>, input::shared_tile<256, 1, 4, 2>, input::shared_tile<32, 1>, input::shuffle_tile<256, 4>>>);
  static_assert(std::is_same_v<detail::per_point_inputs<points<float, 2>>,
                               detail::input_list<input::shared_tile<256, 8>, input::shared_tile<256, 4>, input::shared_tile<256, 2, 4, 4>, input::shared_tile<32, 1>>>);
  static_assert(std::is_same_v<detail::per_point_inputs<points<double, 3>>,
                               detail::input_list<input::shared_tile<256, 4>, input::shared_tile<256, 1, 4, 2>, input::shared_tile<32, 1>>>);
  static_assert(std::is_same_v<detail::per_point_inputs<points<float, 4>>,
                               detail::input_list<input::shared_tile<256, 8>, input::shared_tile<256, 4>, input::shared_tile<256, 1, 4, 2>, input::shared_tile<32, 1>>>);
  auto names = [](std::vector<input_candidate> const& v) {
    std::vector<std::string> n;
    for (auto const& c : v) { n.push_back(c.name()); }
    return n;
  };
  EXPECT_EQ(names(default_candidates(problem::histogram_of(pair_mode::self, 1000, 1000, 257))),
            (std::vector<std::string>{"shared_tile<256, 8>", "shared_tile<256, 4>", "shared_tile<256, 4>+global_atomics",
                                      "shared_tile<256, 2, groups 4>", "shared_tile<32, 1>", "shuffle_tile<256, 4>",
                                      "shuffle_tile<256, 4>+cluster"}));
  EXPECT_EQ(names(default_candidates(problem::histogram_of(pair_mode::self, 1000, 1000, 257, 4, 8))),
            (std::vector<std::string>{"shared_tile<256, 4>", "shared_tile<256, 4>+global_atomics", "shared_tile<256, 1, groups 2>",
                                      "shared_tile<32, 1>", "shuffle_tile<256, 4>", "shuffle_tile<256, 4>+cluster"}));
  static_assert(std::is_same_v<detail::global_histogram_inputs<points<float, 3>>, detail::input_list<input::shared_tile<256, 4>>>);
  static_assert(std::is_same_v<detail::cluster_histogram_inputs<points<float, 3>>, detail::input_list<input::shuffle_tile<256, 4>>>);
  static_assert(std::is_same_v<detail::spill_histogram_inputs<points<float, 3>>,
                               detail::input_list<input::shared_tile<256, 8>, input::shared_tile<256, 4>>>);
  static_assert(std::is_same_v<detail::spill_histogram_inputs<points<double, 3>>, detail::input_list<input::shared_tile<256, 4>>>);
  auto per_point = [](int value_bytes) {
    problem p = problem::reduction_of(pair_mode::ordered, 1000, 1000, value_bytes, value_bytes);
    p.kind    = statistic_kind::per_point;
    return p;
  };
  EXPECT_EQ(names(default_candidates(per_point(4))),
            (std::vector<std::string>{"shared_tile<256, 8>", "shared_tile<256, 4>", "shared_tile<256, 2, groups 4>", "shared_tile<32, 1>"}));
  EXPECT_EQ(names(default_candidates(per_point(8))),
            (std::vector<std::string>{"shared_tile<256, 4>", "shared_tile<256, 1, groups 2>", "shared_tile<32, 1>"}));
  EXPECT_EQ(names(default_candidates(problem::reduction_of(pair_mode::self, 1000, 1000, 8))),
            (std::vector<std::string>{"shared_tile<256, 4>", "shared_tile<256, 1, groups 2>", "shared_tile<32, 1>"}));
  // Names and TWOBODY_POLICY inputs come from the same entries.
  EXPECT_STREQ(to_string(input::shuffle_tile<>::kind), "shuffle_tile");
  EXPECT_EQ(model::parse_policy_override("input=readonly_tile").input, input::readonly_tile<>::kind);
  constexpr input_kind shared_kind = input::shared_tile<128, 2>::kind;
  EXPECT_EQ(shared_kind, input::shared_tile<>::kind);
  try {
    (void)model::parse_policy_override("input=tensor_core");
    FAIL() << "an unknown input was accepted";
  } catch (twobody::error const& e) {
    EXPECT_NE(std::string(e.what()).find("shared_tile, shuffle_tile, readonly_tile, naive"), std::string::npos) << e.what();
  }
}

// Each output policy describes itself (its kind, the statistics it serves, whether the model
// chooses it) and is listed once; plans name policies by their kinds, so no two families of the
// lists share a name.
TEST(Registry, OutputPoliciesAreRegisteredOnce)
{
  using namespace twobody;
  int entries = 0, chosen = 0;
  unsigned served = 0;
  std::set<std::string> kinds;
  model::for_each_output([&](auto e) {
    using output_policy = decltype(e);
    ++entries;
    chosen += output_policy::chosen_by_model ? 1 : 0;
    served |= output_policy::statistics;
    EXPECT_TRUE(kinds.insert(to_string(output_policy::kind)).second) << "two outputs named " << to_string(output_policy::kind);
  });
  std::set<std::string> inputs;
  model::for_each_input([&](auto family) {
    EXPECT_TRUE(inputs.insert(decltype(family)::name).second) << "two input families named " << decltype(family)::name;
    using shape = typename decltype(family)::template type<256, 4>;
    EXPECT_EQ(decltype(family)::kind, shape::kind);
  });
  EXPECT_EQ(inputs.size(), 6u);
  EXPECT_EQ(entries, 9);
  EXPECT_EQ(chosen, 7);  // all but block_privatized and two_pass (baselines)
  EXPECT_EQ(served, serves(statistic_kind::reduction) | serves(statistic_kind::histogram) |
                      serves(statistic_kind::per_point) | serves(statistic_kind::pair_list) |
                      serves(statistic_kind::nearest));
  static_assert(output::warp_privatized::kind != output::block_privatized::kind);
  static_assert(output::direct_output_buffer<64, output::page_owner::warp>::kind == output::direct_output_buffer<>::kind);
  EXPECT_STREQ(to_string(output::warp_privatized::kind), "warp_privatized");
  EXPECT_STREQ(to_string(output::global_atomics::kind), "global_atomics");
  EXPECT_STREQ(to_string(output::direct_output_buffer<>::kind), "direct_output_buffer");
  EXPECT_STREQ(to_string(output::two_pass::kind), "two_pass");
  EXPECT_STREQ(to_string(output::cluster_privatized::kind), "cluster_privatized");
  EXPECT_STREQ(to_string(output::nearest_lists::kind), "nearest_lists");
}

// The cluster-shared histogram's host arithmetic: the slot -> (owner, local) division, the
// layouts (shares, windows, passes) and the model's choice on the H100 description.
TEST(ClusterHistogram, RankDivisionIsExact)
{
  for (int c = 1; c <= detail::max_cluster_blocks; ++c) {
    unsigned long long const d = detail::cluster_rank_divisor(c);
    for (unsigned s = 0; s < (1u << 21); s += (s < 70000 ? 1u : 997u)) {
      ASSERT_EQ((2ull * s * d) >> 32, s / static_cast<unsigned>(c)) << "c=" << c << " slot=" << s;
    }
  }
}

TEST(ClusterHistogram, LayoutsFitTheClusterAndSplitIntoEqualWindows)
{
  std::size_t const smem = 232448 - 1024;
  auto one = detail::plan_cluster(65537, 4, 1, 4, smem);  // 16.4 k slots per block
  EXPECT_EQ(one.passes, 1);
  EXPECT_EQ(one.window, 65537);
  EXPECT_EQ(one.cluster, 4);
  EXPECT_EQ(one.smem, 16385u * 4);
  auto two = detail::plan_cluster(1048577, 16, 1, 4, smem);  // 4 MB over 16 x 226 KB: two passes
  EXPECT_EQ(two.passes, 2);
  EXPECT_EQ(two.window, 524289);
  EXPECT_LE(two.smem, smem);
  auto copies = detail::plan_cluster(4097, 2, 8, 4, smem);
  EXPECT_EQ(copies.smem, 2049u * 8 * 4);
  auto tiny = detail::plan_cluster(3, 16, 1, 4, smem);  // fewer slots than blocks: shares of one slot
  EXPECT_EQ(tiny.passes, 1);
  EXPECT_EQ(tiny.smem, 4u);
  EXPECT_THROW(detail::plan_cluster(100, 17, 1, 4, smem), twobody::error);
  EXPECT_THROW(detail::plan_cluster(100, 4, 33, 4, smem), twobody::error);
  EXPECT_THROW(detail::plan_cluster(100, 4, 32, 4, 64), twobody::error);
}

TEST_F(no_policy_env, ClusterModelFollowsTheMeasuredCosts)
{
  device_info const h = device_info::h100_sxm();
  privatization_constants const k{6.307e-11, policy::h100_c_lp, policy::h100_saturation};
  // Remote updates cost more the more blocks share the histogram; one block pays the local factor only.
  double const l1 = model::cluster_latency(4097, 1, 1, k, policy::h100_cluster);
  EXPECT_NEAR(l1, policy::h100_cluster.local_factor * model::privatized_latency(4097, 1, k), 1e-15);
  double prev = l1;
  for (int c : {2, 4, 8, 16}) {
    double const l = model::cluster_latency(4097, c, 1, k, policy::h100_cluster);
    EXPECT_GT(l, prev) << c;
    prev = l;
  }
  // Whole clusters: 132 SMs x 1 block hold 8 clusters of 16 (128 blocks).
  EXPECT_EQ(model::cluster_resident_blocks(h, 1, 16), 128);
  EXPECT_EQ(model::cluster_resident_blocks(h, 3, 1), 396);
  // On the H100 the model keeps histograms off clusters at every bin count of the sweep (passes
  // over windows, and global atomics past about 400 k bins, measured faster).
  for (int slots : {4097, 65537, 262145, 1048577}) {
    policy_plan const p = choose_policy(problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, slots), h);
    EXPECT_NE(p.output, output::cluster_privatized::kind) << slots << ": " << p;
    input_candidate c{input::shuffle_tile<>::kind, 256, 4, 96, 0, output::cluster_privatized::kind};
    policy_plan const forced = model::choose_cluster_layout(problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, slots), h, c);
    EXPECT_EQ(forced.output, output::cluster_privatized::kind);
    EXPECT_GT(forced.predicted_seconds, p.predicted_seconds) << slots;
    EXPECT_LE(forced.dynamic_smem, h.smem_per_block_optin);
  }
  EXPECT_EQ(model::parse_policy_override("cluster=0").cluster, 0);
  EXPECT_EQ(model::parse_policy_override("cluster=16").cluster, 16);
  EXPECT_EQ(model::parse_policy_override("").cluster, -1);
}

// The model's predicted times against the H100's measured ones across the bins sweep (2^20-point
// SDH, benchmarks/results/bins-faff8df-h100-2026-11-25/ and, for 262144 bins in 5 passes, the
// 2026-11-23 figure the histograms issue quotes): within 25% where the choice rests on them, and
// the choice is the measured fastest of passes and global atomics.
TEST_F(no_policy_env, PredictionsFollowTheMeasuredBinsSweep)
{
  device_info const h = device_info::h100_sxm();
  struct row {
    int bins;
    output_kind output;
    double measured_s;
  };
  for (row const r : {row{4096, output::warp_privatized::kind, 0.2474}, row{8192, output::warp_privatized::kind, 0.2551},
                      row{16384, output::warp_privatized::kind, 0.2592}, row{32768, output::warp_privatized::kind, 0.2886},
                      row{65536, output::warp_privatized::kind, 0.745}, row{262144, output::warp_privatized::kind, 1.891},
                      row{1048576, output::global_atomics::kind, 6.054}}) {
    policy_plan const p = choose_policy(problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, r.bins + 1), h);
    EXPECT_EQ(p.output, r.output) << r.bins << ": " << p;
    EXPECT_NEAR(p.predicted_seconds / r.measured_s, 1.0, 0.25) << r.bins << ": " << p;
  }
  // Global atomics only where the bins are many: the passes win below about 800 k.
  EXPECT_EQ(choose_policy(problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, 600001), h).output,
            output::warp_privatized::kind);
  EXPECT_EQ(choose_policy(problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, 1000001), h).output,
            output::global_atomics::kind);
  EXPECT_NE(choose_policy(problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, 1000001), h).to_string().find("global"),
            std::string::npos);
}

// Spilling histograms (past shared memory, one pass): the window that holds the most of a
// sample (the outside slot, last, always stays in shared memory), how much spills and over how
// many slots, the layout, and a predicted time that grows with the spill and with its
// concentration on few slots (global atomics on one address serialize).
TEST_F(no_policy_env, SpillWindowHoldsTheMostAndItsTimeGrowsWithTheSpill)
{
  using twobody::detail::densest_window;
  //                                     0  1  2  3  4  5  6  7  8  9 (outside)
  std::vector<unsigned long long> counts{0, 1, 5, 0, 7, 2, 0, 0, 9, 40};
  auto const w3 = densest_window(counts, 3);  // 5 + 0 + 7 = 12 at 2 beats 0 + 9 (+ the outside slot, not counted)
  EXPECT_EQ(w3.begin, 2);
  EXPECT_DOUBLE_EQ(w3.spilled_share, 12.0 / 64.0);  // slots 1, 5 and 8 spill: 1 + 2 + 9 of 64
  // Spread: 12 * 11 / (2 * 1 + 9 * 8) (below the 6 spilled slots 0, 1, 5, 6, 7 and 8).
  EXPECT_DOUBLE_EQ(w3.spilled_slots, 12.0 * 11.0 / 74.0);
  EXPECT_EQ(densest_window(counts, 1).begin, 8);
  EXPECT_EQ(densest_window(counts, 10).begin, 0);
  EXPECT_DOUBLE_EQ(densest_window(counts, 10).spilled_share, 0.0);
  auto const w9 = densest_window(counts, 9);  // slots 0..8: nothing spills
  EXPECT_EQ(w9.begin, 0);
  EXPECT_DOUBLE_EQ(w9.spilled_share, 0.0);
  EXPECT_DOUBLE_EQ(w9.spilled_slots, 1.0);
  EXPECT_EQ(densest_window(std::vector<unsigned long long>(5, 0), 2).begin, 0);  // no sample: the first window
  EXPECT_EQ(densest_window({0, 3, 3, 0, 0}, 2).begin, 1);                        // the earliest of equals
  // Every spilled slot sampled once: spread over all of them, not 1 / 0.
  auto const once = densest_window({1, 1, 1, 1, 1, 0}, 1);
  EXPECT_DOUBLE_EQ(once.spilled_share, 0.8);
  EXPECT_DOUBLE_EQ(once.spilled_slots, 4.0);
  EXPECT_THROW(densest_window(counts, 0), twobody::error);

  auto const layout = twobody::detail::plan_spill(65537, 100, 50000, 4);
  EXPECT_TRUE(layout.spill);
  EXPECT_EQ(layout.passes, 1);
  EXPECT_EQ(layout.copies, 1);
  EXPECT_EQ(layout.window_begin, 100);
  EXPECT_EQ(layout.smem, (50000u + twobody::detail::window_spare_counters) * 4u);
  EXPECT_THROW(twobody::detail::plan_spill(65537, 65530, 10, 4), twobody::error);
  EXPECT_THROW(twobody::detail::plan_spill(65537, -1, 10, 4), twobody::error);

  device_info const h = device_info::h100_sxm();
  problem const p     = problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, 65537);
  input_candidate spill_input;
  for (auto const& c : default_candidates(p)) {
    if (c.name() == "shared_tile<256, 4>") { spill_input = c; }
  }
  ASSERT_EQ(spill_input.block_threads, 256);
  policy_plan const none   = model::choose_spill_layout(p, h, spill_input, 0, 50000, 0.0, 1.0);
  policy_plan const half   = model::choose_spill_layout(p, h, spill_input, 0, 50000, 0.5, 10000.0);
  policy_plan const all    = model::choose_spill_layout(p, h, spill_input, 0, 50000, 1.0, 10000.0);
  policy_plan const narrow = model::choose_spill_layout(p, h, spill_input, 0, 50000, 0.5, 2.0);
  EXPECT_TRUE(none.spill);
  EXPECT_EQ(none.window, 50000);
  EXPECT_LT(none.predicted_seconds, half.predicted_seconds);
  EXPECT_LT(half.predicted_seconds, all.predicted_seconds);
  EXPECT_LT(half.predicted_seconds, narrow.predicted_seconds);
  // Nothing spilled: one pass, below the two passes over windows the plain plan takes.
  policy_plan const passes = choose_policy(p, h);
  EXPECT_GT(passes.passes, 1) << passes;
  EXPECT_LT(none.predicted_seconds, passes.predicted_seconds);
  EXPECT_NE(none.to_string().find("spilled"), std::string::npos) << none;
}

// The spilling pass's predictions against bench_bins on the H100 (2^20-point SDH, 2026-11-26 at
// 9b97e67, benchmarks/results/bins-spill-h100-2026-11-26/): the sampled spilled share and
// spread of each run, the measured seconds, within 15% (the issue asks 25%).
TEST_F(no_policy_env, SpillPredictionsFollowTheMeasuredSweep)
{
  device_info const h = device_info::h100_sxm();
  struct row {
    int bins;
    int points_per_thread;
    int window;
    double spilled_share, spilled_slots, measured_s;
  };
  for (row const r : {row{65536, 4, 53984, 0.000153, 9.0, 0.5918}, row{65536, 8, 49888, 0.001195, 77.0, 0.5703},
                      row{131072, 4, 53984, 0.1484, 7286.0, 1.4694}, row{131072, 8, 49888, 0.1871, 8799.0, 1.5368},
                      row{262144, 4, 53984, 0.4951, 23718.0, 3.6411}, row{262144, 8, 49888, 0.5294, 25131.0, 3.7593},
                      row{524288, 4, 53984, 0.7358, 39529.0, 4.6907}, row{1048576, 4, 53984, 0.8648, 50403.0, 5.4246}}) {
    problem const p         = problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, r.bins + 1);
    input_candidate const c = spill_candidate(p, r.points_per_thread);
    ASSERT_EQ(c.points_per_thread, r.points_per_thread);
    policy_plan const s = model::choose_spill_layout(p, h, c, 0, r.window, r.spilled_share, r.spilled_slots);
    EXPECT_NEAR(s.predicted_seconds / r.measured_s, 1.0, 0.15) << r.bins << " bins, " << r.points_per_thread << ": " << s;
  }
}

namespace {
struct costly_functor {
  static constexpr double relative_cost = 3.5;
};
}  // namespace

// A functor's relative cost (value_traits.cuh) reaches the problem the histograms plan, and the
// plan cache tells problems of different costs apart.
TEST(PairCost, FunctorsDeclareItAndTheProblemCarriesIt)
{
  EXPECT_EQ(relative_pair_cost<squared_euclidean>::value, 1.0);
  EXPECT_EQ(relative_pair_cost<void>::value, 1.0);
  EXPECT_EQ(relative_pair_cost<costly_functor>::value, 3.5);
  EXPECT_GT(relative_pair_cost<euclidean>::value, 1.0);
  double const periodic = relative_pair_cost<periodic_squared_euclidean<float, 3>>::value;
  EXPECT_GT(periodic, 1.0);
  EXPECT_GT((relative_pair_cost<periodic_euclidean<float, 3>>::value), periodic);
  EXPECT_GT(relative_pair_cost<rp_pi_separation>::value, 1.0);

  points<float, 3> shape{};
  shape.size       = 1000;
  auto const pairs = self_pairs(shape);
  problem const plain  = detail::histogram_problem<unsigned int>(pairs, 257);
  problem const costly = detail::histogram_problem<unsigned int, costly_functor>(pairs, 257);
  EXPECT_EQ(plain.pair_cost, 1.0);
  EXPECT_EQ(costly.pair_cost, 3.5);
  EXPECT_NE(model::problem_key(plain, 0, nullptr), model::problem_key(costly, 0, nullptr));

  // The shared-memory plans scale with it; the same layout is chosen.
  device_info const h = device_info::h100_sxm();
  problem big         = problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, 4097);
  policy_plan const a = choose_policy(big, h);
  big.pair_cost       = 3.5;
  policy_plan const b = choose_policy(big, h);
  EXPECT_EQ(a.copies, b.copies);
  EXPECT_EQ(a.input.points_per_thread, b.input.points_per_thread);
  EXPECT_NEAR(b.predicted_seconds / a.predicted_seconds, 3.5, 1e-3);  // (the copies' zeroing is not scaled)
}

// (r_p, pi) histograms (rp_pi_separation with bins_2d) on the H100 at e7123a4
// (benchmarks/results/bins-spill-h100-2026-11-26, 2^20 points). Priced like the SDH (cost 1) the
// model predicted 0.37-0.40 of every shared-memory plan, and kept two and five passes at 65536
// and 262144 bins where one spilling pass was 1.46 and 1.22 times faster. With its cost: within
// 25%, and the spill where it is faster.
TEST_F(no_policy_env, PairCostFollowsTheMeasuredSweeps)
{
  device_info const h = device_info::h100_sxm();
  auto rp_pi = [](int side) {
    problem p   = problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, side * side + 1);
    p.pair_cost = relative_pair_cost<rp_pi_separation>::value;
    return p;
  };
  struct planned {
    int side;
    int passes;
    double measured_s;
  };
  for (planned const r : {planned{64, 1, 0.5840}, planned{256, 2, 1.8567}, planned{512, 5, 4.9341}}) {
    policy_plan const plan = choose_policy(rp_pi(r.side), h);
    EXPECT_EQ(plan.passes, r.passes) << plan;
    EXPECT_NEAR(plan.predicted_seconds / r.measured_s, 1.0, 0.25) << r.side * r.side << " bins: " << plan;
  }
  struct spilled {
    int side;
    double share, slots, measured_s;
    bool beats_passes;
  };
  for (spilled const r : {spilled{256, 0.02503, 1291.5, 1.2693, true}, spilled{512, 0.61682, 30873.9, 4.0395, true},
                          spilled{1024, 0.88051, 52784.6, 5.3688, false}}) {
    problem const p         = rp_pi(r.side);
    input_candidate const c = spill_candidate(p, 4);
    ASSERT_EQ(c.points_per_thread, 4);
    policy_plan const s = model::choose_spill_layout(p, h, c, 0, 53984, r.share, r.slots);
    EXPECT_NEAR(s.predicted_seconds / r.measured_s, 1.0, 0.25) << r.side * r.side << " bins: " << s;
    if (r.beats_passes) { EXPECT_LT(s.predicted_seconds, choose_policy(p, h).predicted_seconds) << r.side * r.side << " bins"; }
  }
  // The other functors with a cost, one pass at 4096 bins (benchmarks/results/bins-paircost-h100-2026-11-26).
  struct one_pass {
    double cost, measured_s;
  };
  for (one_pass const r : {one_pass{relative_pair_cost<euclidean>::value, 0.474},
                           one_pass{relative_pair_cost<periodic_squared_euclidean<float, 3>>::value, 0.322},
                           one_pass{relative_pair_cost<periodic_euclidean<float, 3>>::value, 0.580}}) {
    problem p   = problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, 4097);
    p.pair_cost = r.cost;
    EXPECT_NEAR(choose_policy(p, h).predicted_seconds / r.measured_s, 1.0, 0.10) << "cost " << r.cost;
  }
}

// Passes over spread windows on ordered points (model::choose_ordered_passes): where tile pairs
// fit one window whole only from 5 passes on, it takes at least 5; where every tile pair spans
// everything (each visited by every pass), it costs about the passes' count times the whole
// case's; the layout fits the SM's shared memory.
TEST_F(no_policy_env, OrderedPassesTakeTheWindowsThatHoldTheTilePairs)
{
  device_info const h = device_info::h100_sxm();
  problem const p     = problem::histogram_of(pair_mode::self, 1 << 20, 1 << 20, 131073);
  input_candidate const c = spill_candidate(p, 4);
  ASSERT_GT(c.points_per_thread, 0);
  auto const whole_from_5 = [](twobody::detail::pass_windows const& w) {
    return w.passes >= 5 ? twobody::detail::pass_visits{1.0, 0.0} : twobody::detail::pass_visits{0.0, double(w.passes)};
  };
  policy_plan const fit = twobody::model::choose_ordered_passes(p, h, c, whole_from_5);
  EXPECT_GE(fit.passes, 5);
  EXPECT_EQ(fit.output, output::warp_privatized::kind);
  EXPECT_LE(fit.dynamic_smem * fit.occ.blocks_per_sm, h.smem_per_sm);
  EXPECT_GE(static_cast<long long>(fit.window) * fit.passes, p.slots);
  auto const never_whole = [](twobody::detail::pass_windows const& w) { return twobody::detail::pass_visits{0.0, double(w.passes)}; };
  policy_plan const spread = twobody::model::choose_ordered_passes(p, h, c, never_whole);
  EXPECT_GT(spread.predicted_seconds, 2.0 * fit.predicted_seconds);
  EXPECT_EQ(spread.copies, 1);  // the fewest passes: the widest window
}
