// Host tests of the block planner: for awkward sizes and block sizes, the block pairs cover
// every pair of points exactly once (self: each unordered pair, ordered: each ordered pair,
// cross: each (i, j)), consecutive pairs share the A block, and the block-size rules.
#include <twobody/host/block_plan.cuh>
#include <twobody/error.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using twobody::pair_mode;
using twobody::host::block_plan;

namespace {

/// Expands every block pair into its point pairs and counts how often each (i, j) is visited.
void check_cover(pair_mode mode, std::int64_t na, std::int64_t nb, std::int64_t bs)
{
  SCOPED_TRACE(std::string(twobody::to_string(mode)) + " na=" + std::to_string(na) + " nb=" + std::to_string(nb) +
               " block=" + std::to_string(bs));
  auto const plan = block_plan::make(mode, na, nb, bs);
  std::vector<int> seen(static_cast<std::size_t>(na * nb), 0);
  unsigned long long total = 0;
  for (std::size_t k = 0; k < plan.size(); ++k) {
    auto const p  = plan[k];
    auto const ra = plan.range_a(p.a), rb = plan.range_b(p.b);
    ASSERT_GT(ra.size, 0);
    ASSERT_GT(rb.size, 0);
    if (k > 0 && mode != pair_mode::self) { EXPECT_LE(plan[k - 1].a, p.a); }
    total += plan.pair_count(p);
    for (std::int64_t x = 0; x < ra.size; ++x) {
      for (std::int64_t y = 0; y < rb.size; ++y) {
        std::int64_t i = ra.begin + x, j = rb.begin + y;
        if (p.diagonal) {
          if (x == y || (mode == pair_mode::self && y < x)) { continue; }  // what self / ordered pairs skip
        }
        if (mode == pair_mode::self && j < i) { std::swap(i, j); }
        ++seen[static_cast<std::size_t>(i * nb + j)];
      }
    }
  }
  for (std::int64_t i = 0; i < na; ++i) {
    for (std::int64_t j = 0; j < nb; ++j) {
      int const want = mode == pair_mode::cross ? 1 : (mode == pair_mode::self ? (i < j ? 1 : 0) : (i != j ? 1 : 0));
      ASSERT_EQ(seen[static_cast<std::size_t>(i * nb + j)], want) << "pair (" << i << ", " << j << ")";
    }
  }
  auto const all = twobody::pair_set<twobody::points<float, 1>>{mode, {{}, nullptr, na}, {{}, nullptr, nb}}.count();
  EXPECT_EQ(total, all);
}

}  // namespace

TEST(BlockPlan, EveryPairExactlyOnceForAwkwardSizes)
{
  for (std::int64_t n : {0, 1, 2, 7, 31, 64, 65}) {
    for (std::int64_t bs : {1, 2, 3, 8, 64, 100}) {
      check_cover(pair_mode::self, n, n, bs);
      check_cover(pair_mode::ordered, n, n, bs);
      check_cover(pair_mode::cross, n, n / 2 + 3, bs);
      check_cover(pair_mode::cross, n, 0, bs);
    }
  }
}

TEST(BlockPlan, SelfPairsAreTheUpperTriangleOfBlocksInRowOrder)
{
  auto const plan = block_plan::make(pair_mode::self, 1000, 1000, 100);
  ASSERT_EQ(plan.blocks_a(), 10);
  ASSERT_EQ(plan.size(), 55u);
  std::size_t k = 0;
  for (std::int64_t i = 0; i < 10; ++i) {
    for (std::int64_t j = i; j < 10; ++j, ++k) {
      auto const p = plan[k];
      ASSERT_EQ(p.a, i) << k;
      ASSERT_EQ(p.b, j) << k;
      EXPECT_EQ(p.diagonal, i == j);
    }
  }
  EXPECT_THROW(plan[55], twobody::error);
  // Many blocks: the closed-form row search agrees with a walk.
  auto const big = block_plan::make(pair_mode::self, 5000000, 5000000, 1);
  std::size_t const n = 5000000;
  for (std::size_t row : {std::size_t(0), std::size_t(1), std::size_t(4999998), std::size_t(4999999), std::size_t(1234567)}) {
    std::size_t const start = row * n - row * (row - 1) / 2;
    auto const first = big[start];
    EXPECT_EQ(first.a, static_cast<std::int64_t>(row));
    EXPECT_EQ(first.b, static_cast<std::int64_t>(row));
    if (row > 0) {
      auto const last = big[start - 1];
      EXPECT_EQ(last.a, static_cast<std::int64_t>(row - 1));
      EXPECT_EQ(last.b, static_cast<std::int64_t>(n - 1));
    }
  }
}

TEST(BlockPlan, BadArgumentsAndBlockSizeRules)
{
  EXPECT_THROW(block_plan::make(pair_mode::self, 10, 11, 4), twobody::error);
  EXPECT_THROW(block_plan::make(pair_mode::cross, 10, 11, 0), twobody::error);
  EXPECT_THROW(block_plan::make(pair_mode::cross, -1, 11, 4), twobody::error);
  using twobody::host::block_points_for_budget;
  using twobody::host::min_block_points_for_overlap;
  EXPECT_EQ(block_points_for_budget(1 << 20, 12, 4), (1 << 20) / 48);
  EXPECT_EQ(block_points_for_budget(std::size_t(1) << 40, 12, 4), std::int64_t(1) << 31);  // one launch's cap
  EXPECT_THROW(block_points_for_budget(40, 12, 4), twobody::error);
  // 3e12 pairs/s, 12 bytes a point, 25 GB/s: blocks of at least 1440 points hide their copies.
  EXPECT_EQ(min_block_points_for_overlap(3e12, 12, 25e9), 1440);
}

TEST(BlockPlan, BlockSizeForSeveralWorkersAndBlockViews)
{
  using twobody::host::block_points_for_pairs;
  // For each mode and awkward sizes: the result gives at least the asked block pairs (or blocks
  // of one point), never exceeds the given size, and is the largest such size.
  for (pair_mode mode : {pair_mode::self, pair_mode::ordered, pair_mode::cross}) {
    for (std::int64_t na : {1, 2, 7, 100, 1001, 1 << 20}) {
      for (std::int64_t nb : {1, 13, 1001}) {
        if (mode != pair_mode::cross && nb != na) { continue; }
        for (std::size_t want : {1u, 2u, 16u, 48u, 128u}) {
          SCOPED_TRACE(std::string(twobody::to_string(mode)) + " na=" + std::to_string(na) + " nb=" +
                       std::to_string(nb) + " want=" + std::to_string(want));
          std::int64_t const start = std::max(na, nb);
          std::int64_t const bs    = block_points_for_pairs(mode, na, nb, start, want);
          ASSERT_GE(bs, 1);
          ASSERT_LE(bs, start);
          std::size_t const got = block_plan::make(mode, na, nb, bs).size();
          EXPECT_TRUE(got >= want || bs == 1) << "bs=" << bs << " gives " << got;
          if (bs < start) {  // one point more per block would give too few block pairs
            EXPECT_LT(block_plan::make(mode, na, nb, bs + 1).size(), want) << "bs=" << bs;
          }
        }
      }
    }
  }
  EXPECT_EQ(block_points_for_pairs(pair_mode::self, 1000, 1000, 300, 1), 300);  // the cap stays
  EXPECT_THROW(block_points_for_pairs(pair_mode::self, 10, 10, 0, 4), twobody::error);

  // block_of: a view of a range, weights included, no copy.
  std::vector<float> x(10), y(10), w(10);
  for (int i = 0; i < 10; ++i) {
    x[i] = float(i);
    y[i] = float(2 * i);
    w[i] = float(i) / 4;
  }
  auto const set = twobody::make_weighted_points(10, w.data(), x.data(), y.data());
  auto const b   = twobody::host::block_of(set, {6, 3});
  EXPECT_EQ(b.size, 3);
  EXPECT_EQ(b[0].x[0], 6.f);
  EXPECT_EQ(b[2].x[1], 16.f);
  EXPECT_EQ(b.weight(1), 7.f / 4);
}

TEST(BlockPlan, SharesPartitionThePlanAndBalanceTheWork)
{
  using twobody::host::share_of;
  for (pair_mode mode : {pair_mode::self, pair_mode::ordered, pair_mode::cross}) {
    for (std::int64_t n : {0, 5, 100, 16777216}) {
      for (std::int64_t bs : {1, 7, 1677721}) {
        auto const plan = block_plan::make(mode, n, mode == pair_mode::cross ? n / 2 + 1 : n, bs);
        if (plan.size() > 200000) { continue; }
        for (std::size_t parts : {1u, 2u, 3u, 7u}) {
          SCOPED_TRACE(std::string(twobody::to_string(mode)) + " n=" + std::to_string(n) + " bs=" +
                       std::to_string(bs) + " parts=" + std::to_string(parts));
          std::vector<int> owner(plan.size(), -1);
          unsigned long long largest = 0, lo = ~0ull, hi = 0;
          for (std::size_t k = 0; k < plan.size(); ++k) { largest = std::max(largest, plan.pair_count(plan[k])); }
          for (std::size_t p = 0; p < parts; ++p) {
            auto const mine = share_of(plan, p, parts);
            for (std::size_t m = 1; m < mine.size(); ++m) {  // largest first, row order among equals
              auto const before = plan.pair_count(plan[mine[m - 1]]), now = plan.pair_count(plan[mine[m]]);
              EXPECT_TRUE(before > now || (before == now && mine[m - 1] < mine[m])) << "at " << m;
            }
            unsigned long long load = 0;
            for (std::size_t k : mine) {
              ASSERT_LT(k, plan.size());
              EXPECT_EQ(owner[k], -1) << "block pair " << k << " in two shares";
              owner[k] = static_cast<int>(p);
              load += plan.pair_count(plan[k]);
            }
            lo = std::min(lo, load);
            hi = std::max(hi, load);
          }
          for (std::size_t k = 0; k < plan.size(); ++k) { EXPECT_NE(owner[k], -1) << "block pair " << k << " in no share"; }
          if (plan.size() > 0) { EXPECT_LE(hi - lo, largest); }
        }
      }
    }
  }
  EXPECT_THROW(share_of(block_plan::make(pair_mode::self, 10, 10, 3), 2, 2), twobody::error);
}
