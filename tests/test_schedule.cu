// Host-side work decomposition: tile schedule, diagonal pairing, shared-memory plans.
#include "common.cuh"

#include <twobody/model/histogram_plan.cuh>
#include <twobody/math/tile_schedule.cuh>

#include <set>
#include <utility>

using twobody::pair_mode;
using twobody::detail::tile_schedule;

namespace {

// Walks the schedule the way the kernel does (locate once per block, then advance) for a
// grid of g blocks and returns how often each tile pair was visited.
std::map<std::pair<long long, long long>, int> walk(tile_schedule const& s, long long g)
{
  std::map<std::pair<long long, long long>, int> seen;
  for (long long b = 0; b < g; ++b) {
    long long const first = s.begin_of(b, g), last = s.begin_of(b + 1, g);
    twobody::size_type row = 0, col = 0;
    if (first < last) { s.locate(first, row, col); }
    for (long long f = first; f < last; ++f, s.advance(row, col)) { ++seen[{row, col}]; }
  }
  return seen;
}

}  // namespace

TEST(TileSchedule, EveryTilePairExactlyOnce)
{
  for (pair_mode mode : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
    for (long long na : {1, 2, 31, 33, 1000, 4097}) {
      for (long long tile : {32, 128, 1024}) {
        long long const nb = mode == pair_mode::cross ? na / 3 + 7 : na;
        auto const s       = tile_schedule::make(mode, na, nb, tile);
        for (long long g : {1ll, 3ll, 7ll, 264ll}) {
          auto const seen = walk(s, g);
          long long expected = 0;
          for (long long i = 0; i < s.rows; ++i) {
            for (long long j = (mode == pair_mode::self ? i : 0); j < s.cols; ++j) {
              ++expected;
              auto it = seen.find({i, j});
              ASSERT_TRUE(it != seen.end() && it->second == 1)
                << twobody::to_string(mode) << " na=" << na << " tile=" << tile << " g=" << g << " (" << i << "," << j << ")";
            }
          }
          EXPECT_EQ(static_cast<long long>(seen.size()), expected);
          EXPECT_EQ(s.total, expected);
        }
      }
    }
  }
}

TEST(TileSchedule, AdvanceFollowsLocate)
{
  for (pair_mode mode : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
    for (long long na : {1, 129, 1000, 1024, 4097}) {
      auto const s = tile_schedule::make(mode, na, mode == pair_mode::cross ? 700 : na, 128);
      twobody::size_type row = 0, col = 0;
      s.locate(0, row, col);
      for (long long f = 1; f < s.total; ++f) {
        s.advance(row, col);
        twobody::size_type r2 = -1, c2 = -1;
        s.locate(f, r2, c2);
        ASSERT_EQ(std::make_pair(row, col), std::make_pair(r2, c2)) << twobody::to_string(mode) << " na=" << na << " f=" << f;
      }
    }
  }
}

// self_row_of solves in float below 2048 tile rows (every term exact there) and in double from
// 2048 on: every flat index of the largest float schedules and of the smallest double one lands
// in its row.
TEST(TileSchedule, SelfRowOfIsExactOnBothSidesOfTheFloatLimit)
{
  for (long long rows : {1, 2, 3, 1000, 2046, 2047, 2048}) {
    auto const s = tile_schedule::make(pair_mode::self, rows * 32, rows * 32, 32);
    ASSERT_EQ(s.rows, rows);
    for (long long f = 0; f < s.total; ++f) {
      long long const i = s.self_row_of(f);
      ASSERT_TRUE(i >= 0 && i < rows && s.row_offset(i) <= f && (i + 1 == rows || f < s.row_offset(i + 1)))
        << "rows=" << rows << " f=" << f << " row " << i;
    }
  }
}

// Bands (the tensor-core traversals of rows): the same tile pairs, each once, locate and index_of
// inverse to each other, and the units a strided grid runs at once form a compact patch.
TEST(TileSchedule, BandsVisitEveryTilePairOnceInCompactPatches)
{
  for (pair_mode mode : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
    for (long long na : {1ll, 129ll, 1000ll, 4097ll, 65536ll}) {
      for (long long band : {1ll, 3ll, 8ll}) {
        long long const nb = mode == pair_mode::cross ? na / 3 + 7 : na;
        auto const plain   = tile_schedule::make(mode, na, nb, 128);
        auto const s       = plain.with_bands(band);
        ASSERT_EQ(s.total, plain.total);
        EXPECT_FALSE(s.interleaved);
        std::set<std::pair<long long, long long>> seen;
        twobody::size_type row = 0, col = 0;
        for (long long f = 0; f < s.total; ++f) {
          twobody::size_type r = -1, c = -1;
          s.locate(f, r, c);
          ASSERT_TRUE(r >= 0 && r < s.rows && c >= 0 && c < s.cols) << twobody::to_string(mode) << " na=" << na << " f=" << f;
          if (mode == pair_mode::self) { ASSERT_LE(r, c); }
          ASSERT_EQ(s.index_of(r, c), f) << twobody::to_string(mode) << " na=" << na << " band=" << band;
          ASSERT_TRUE(seen.insert({r, c}).second) << "(" << r << "," << c << ") twice";
          if (f == 0) {
            row = r;
            col = c;
          } else {
            s.advance(row, col);
            ASSERT_EQ(std::make_pair(row, col), std::make_pair(r, c)) << "advance at f=" << f;
          }
        }
        EXPECT_EQ(static_cast<long long>(seen.size()), s.total);
      }
    }
  }
  // 132 blocks on 65536 rows (512 tiles of 128) in bands of 8: a wave of 132 units away from the
  // diagonal touches 8 row tiles and at most 18 column tiles (row-major: 1 row, 132 columns).
  auto const s = tile_schedule::make(pair_mode::self, 65536, 65536, 128).with_bands(8);
  for (long long wave : {100ll, 400ll, 700ll}) {
    std::set<long long> rows, cols;
    for (long long f = wave * 132; f < wave * 132 + 132; ++f) {
      twobody::size_type r = -1, c = -1;
      s.locate(f, r, c);
      rows.insert(r);
      cols.insert(c);
    }
    EXPECT_LE(rows.size(), 16u) << "wave " << wave;
    EXPECT_LE(cols.size(), 18u) << "wave " << wave;
  }
}

// A partial last row of A costs more per pair; kept at the end of the flat order, one block
// held all of it and ran up to 2x longer than the others (H100, cross launches of 419431 x
// 419431 points). Interleaved, every block's range holds its share of that row.
TEST(TileSchedule, PartialLastRowIsSpreadOverTheBlocks)
{
  for (pair_mode mode : {pair_mode::cross, pair_mode::ordered}) {
    for (long long na : {5000ll, 419431ll, 1677721ll}) {
      auto const s = tile_schedule::make(mode, na, mode == pair_mode::cross ? 419431 : na, 1024);
      ASSERT_TRUE(s.interleaved);
      for (long long g : {7ll, 264ll}) {
        for (long long b = 0; b < g; ++b) {
          long long const first = s.begin_of(b, g), last = s.begin_of(b + 1, g);
          long long partial = 0;
          twobody::size_type row = 0, col = 0;
          for (long long f = first; f < last; ++f) {
            s.locate(f, row, col);
            partial += row == s.rows - 1;
          }
          // One in every `rows` tile pairs, so at most ceil(range / rows) + 1 of them.
          EXPECT_LE(partial, (last - first + s.rows - 1) / s.rows + 1)
            << twobody::to_string(mode) << " na=" << na << " g=" << g << " block " << b;
        }
      }
    }
  }
  // Full last rows, self mode and one row need no interleaving.
  EXPECT_FALSE(tile_schedule::make(pair_mode::cross, 4096, 1000, 1024).interleaved);
  EXPECT_FALSE(tile_schedule::make(pair_mode::self, 1000, 1000, 1024).interleaved);
  EXPECT_FALSE(tile_schedule::make(pair_mode::cross, 1000, 5000, 1024).interleaved);
}

TEST(TileSchedule, BlocksGetEqualShares)
{
  auto const s = tile_schedule::make(pair_mode::self, 1 << 20, 1 << 20, 1024);
  EXPECT_EQ(s.total, 1024ll * 1025 / 2);
  long long lo = s.total, hi = 0;
  for (long long b = 0; b < 264; ++b) {
    long long const n = s.begin_of(b + 1, 264) - s.begin_of(b, 264);
    lo = std::min(lo, n);
    hi = std::max(hi, n);
  }
  EXPECT_LE(hi - lo, 1);
  EXPECT_EQ(s.begin_of(264, 264), s.total);
}

TEST(TileSchedule, LocateIsExactPastTwoToThe31Points)
{
  // 3e9 points in tiles of 256: 11.7 million tiles, 6.9e13 tile pairs; spot-check locate.
  long long const n = 3'000'000'000ll;
  auto const s      = tile_schedule::make(pair_mode::self, n, n, 256);
  EXPECT_EQ(s.rows, (n + 255) / 256);
  for (long long i : {0ll, 1ll, 12345ll, (long long)(s.rows / 2), (long long)(s.rows - 2), (long long)(s.rows - 1)}) {
    for (long long dj : {0ll, 1ll}) {
      long long const j = i + dj;
      if (j >= s.rows) { continue; }
      long long const f = s.row_offset(i) + (j - i);
      twobody::size_type r = -1, c = -1;
      s.locate(f, r, c);
      EXPECT_EQ(r, i);
      EXPECT_EQ(c, j);
    }
  }
  twobody::size_type r = -1, c = -1;
  s.locate(s.total - 1, r, c);
  EXPECT_EQ(r, s.rows - 1);
  EXPECT_EQ(c, s.rows - 1);
}

TEST(DiagonalPairs, BalancedSchemeVisitsEachUnorderedPairOnce)
{
  using namespace twobody::detail;
  for (int ts : {32, 64, 1024}) {
    for (int count : {1, 2, 17, ts - 1, ts}) {
      std::set<std::pair<int, int>> seen;
      std::vector<int> work(ts, 0);
      for (int k = 1; k <= ts / 2; ++k) {
        for (int p = 0; p < ts; ++p) {
          int const q = diagonal_partner(p, k, ts);
          if (diagonal_self_pair(p, q, k, ts, count)) {
            auto key = std::minmax(p, q);
            EXPECT_TRUE(seen.insert(key).second) << "pair visited twice: " << p << "," << q;
            ++work[p];
          }
        }
      }
      EXPECT_EQ(seen.size(), static_cast<std::size_t>(count) * (count - 1) / 2) << "ts=" << ts << " count=" << count;
      if (count == ts) {  // full tile: every thread does ts/2 or ts/2 - 1 pairs (no divergent triangle)
        for (int p = 0; p < ts; ++p) { EXPECT_TRUE(work[p] == ts / 2 || work[p] == ts / 2 - 1); }
      }
    }
  }
}

TEST(PrivatizedPlan, FitsCopiesThenWindows)
{
  using twobody::detail::plan_privatized;
  auto p = plan_privatized(257, 32, 4, 48 * 1024);  // 257 slots * 4 B * 32 = 32.9 KB: fits
  EXPECT_EQ(p.copies, 32);
  EXPECT_EQ(p.passes, 1);
  EXPECT_EQ(p.smem, 257u * 4 * 32);
  p = plan_privatized(4097, 32, 4, 227 * 1024);  // 16 KB per copy: 14 fit
  EXPECT_EQ(p.copies, 14);
  EXPECT_EQ(p.passes, 1);
  p = plan_privatized(60001, 8, 4, 227 * 1024);  // one copy is 234 KB: windows, and the lanes' spare counters
  EXPECT_EQ(p.copies, 1);
  EXPECT_EQ(p.window, 227 * 1024 / 4 - twobody::detail::window_spare_counters);
  EXPECT_EQ(p.passes, 2);
  EXPECT_EQ(p.smem, 227u * 1024);
  p = plan_privatized(1, 3, 8, 1024);
  EXPECT_EQ(p.copies, 3);
  EXPECT_THROW(plan_privatized(0, 1, 4, 1024), twobody::error);
  EXPECT_THROW(plan_privatized(10, 0, 4, 1024), twobody::error);
  EXPECT_THROW(plan_privatized(10, 33, 4, 1024), twobody::error);
}

// The windows of passes (histogram_plan.cuh): spread from slot 0 to the last slot, the own
// ranges a partition of the slots, each inside its window, and `holding` the first window that
// holds a range of slots.
TEST(PrivatizedPlan, PassWindowsSpreadOverTheSlots)
{
  using twobody::detail::pass_windows;
  for (auto const& w : {pass_windows{65537, 58000, 2}, pass_windows{1048577, 58000, 19}, pass_windows{1048577, 58000, 40},
                        pass_windows{84, 28, 3}, pass_windows{84, 34, 5}, pass_windows{10, 10, 1}}) {
    EXPECT_EQ(w.begin(0), 0);
    EXPECT_EQ(w.begin(w.passes - 1) + w.window, w.slots);
    EXPECT_EQ(w.own_begin(0), 0);
    EXPECT_EQ(w.own_end(w.passes - 1), w.slots);
    for (int k = 0; k < w.passes; ++k) {
      EXPECT_LE(w.begin(k), w.own_begin(k)) << k;
      EXPECT_LE(w.own_end(k), w.begin(k) + w.window) << k;
      EXPECT_LT(w.own_begin(k), w.own_end(k)) << k;
      if (k > 0) { EXPECT_GT(w.begin(k), w.begin(k - 1)); }
    }
    for (int lo = 0; lo < w.slots; lo += 1 + w.slots / 97) {
      for (int hi = lo; hi < w.slots; hi += 1 + w.slots / 89) {
        int const k = w.holding(lo, hi);
        int first   = -1;
        for (int j = 0; j < w.passes && first < 0; ++j) {
          if (w.begin(j) <= lo && hi < w.begin(j) + w.window) { first = j; }
        }
        ASSERT_EQ(k, first) << lo << ".." << hi;
        int meeting = 0;
        for (int j = 0; j < w.passes; ++j) { meeting += w.begin(j) <= hi && lo < w.begin(j) + w.window ? 1 : 0; }
        ASSERT_EQ(w.meeting(lo, hi), meeting) << lo << ".." << hi;
        ASSERT_LE(w.own_begin(w.owner(lo)), lo);
        ASSERT_GT(w.own_end(w.owner(lo)), lo);
      }
    }
  }
  pass_windows const two{65537, 58000, 2};
  EXPECT_EQ(two.holding(7000, 57000), 0);
  EXPECT_EQ(two.holding(7600, 65536), 1);
  EXPECT_EQ(two.holding(7000, 65536), -1);  // spans more than a window: each pass counts its own share
}

// What passes over spread windows visit (histogram_plan.cuh, visits_of): tile pairs whose slots
// fit one window once, others once per pass whose own range they meet; shares of the pairs.
TEST(PrivatizedPlan, PassVisitsCountWholeAndPartialTilePairs)
{
  using namespace twobody::detail;
  pass_windows const w{100, 40, 4};  // windows at 0, 20, 40, 60; own ranges 0-24, 25-49, 50-74, 75-99
  std::vector<tile_pair_slots> const t{{0, 39, 2.0}, {45, 70, 1.0}, {10, 80, 1.0}};
  pass_visits const v = visits_of(t, w);
  EXPECT_DOUBLE_EQ(v.whole, 3.0 / 4.0);    // the first two fit windows 0 and 40
  EXPECT_DOUBLE_EQ(v.partial, 4.0 / 4.0);  // the third meets all four own ranges
  EXPECT_DOUBLE_EQ(visits_of(t, pass_windows{100, 100, 1}).whole, 1.0);
  EXPECT_DOUBLE_EQ(visits_of({}, w).whole, 0.0);
  EXPECT_DOUBLE_EQ(v.staged, 0.0);  // no sub-tile pairs
  // Sub-tile pairs of a tile pair of slots 15..65 (in no window; met by the windows at 0, 20, 40
  // and 60), half whole in the window at 20, half spanning 30..65: staged by 4 passes per pair.
  std::vector<tile_pair_slots> const subs{{22, 50, 1.0, 15, 65}, {30, 65, 1.0, 15, 65}};
  pass_visits const s = visits_of(subs, w);
  EXPECT_DOUBLE_EQ(s.whole, 0.5);
  EXPECT_DOUBLE_EQ(s.partial, 0.5 * 2);  // own ranges 25-49 and 50-74
  EXPECT_DOUBLE_EQ(s.staged, 4.0);
  // Not decided on their own, they are their tile pair's: visited by the passes whose own share it
  // meets (0-24, 25-49, 50-74), no staging.
  pass_visits const as_tile = visits_of(subs, w, false);
  EXPECT_DOUBLE_EQ(as_tile.whole, 0.0);
  EXPECT_DOUBLE_EQ(as_tile.partial, 3.0);
  EXPECT_DOUBLE_EQ(as_tile.staged, 0.0);
  // Those of a tile pair whole in a window (slots 22..55: the window at 20) are counted with it.
  pass_visits const t2 = visits_of({{22, 30, 1.0, 22, 55}, {40, 55, 1.0, 22, 55}}, w);
  EXPECT_DOUBLE_EQ(t2.whole, 1.0);
  EXPECT_DOUBLE_EQ(t2.partial, 0.0);
  EXPECT_DOUBLE_EQ(t2.staged, 0.0);
}
