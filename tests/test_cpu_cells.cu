// Host tests of the CPU backend's cell list (cpu/cell_list.cuh) and the cutoff forms on exec::cpu
// that choose it: counts, histograms and joins equal the CPU's brute force for 1-D..4-D and 6-D,
// periodic and not, cross pairs with queries partly outside the indexed box, cutoffs around the
// data extent, duplicate points, NaN points and empty sets (integer coordinates: every distance
// test is exact); the automatic choice; the periodic box's range; progress in the pair set's pairs.
#include "common.cuh"

#include <twobody/grid.cuh>
#include <twobody/grid_join.cuh>

#include <gtest/gtest.h>

#include <cuda/std/array>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

namespace {

using twobody::pair_search;
using twobody::within_cutoff;

template <class R>
std::vector<std::tuple<std::uint32_t, std::uint32_t>> keys(R const& records)
{
  std::vector<std::tuple<std::uint32_t, std::uint32_t>> k;
  for (auto const& r : records) { k.emplace_back(r.i, r.j); }
  return k;
}

/// Counts, a histogram up to r and the join within r through the cells, each against brute force
/// on the CPU backend; the self pairs of h, and q x h. The cells' own functions in every
/// dimension; in 3-D also the public forms on exec::cpu that choose them (each public form
/// compiles its GPU side too, so only there).
/// `box`: the periodic box of f and pred, or null.
template <int D, class Pred, class F, class Points>
void check_against_brute(Points const& h, Points const& q, Pred pred, F f, float r, cuda::std::array<float, D> const* box = nullptr)
{
  auto const cl = box != nullptr ? twobody::cpu::cell_list<float, D>(h, r, *box) : twobody::cpu::cell_list<float, D>(h, r);
  twobody::uniform_bins<float> const bins(0.f, r, 7);
  for (bool cross : {false, true}) {
    SCOPED_TRACE(cross ? "cross" : "self");
    auto const pairs = cross ? twobody::cross_pairs(q, h) : twobody::self_pairs(h);
    Points const* queries = cross ? &q : nullptr;
    unsigned long long const want = twobody::cpu::count_pairs(pairs, pred);
    EXPECT_GT(want, 0u) << "test data with pairs inside the cutoff";
    twobody::grid_stats st;
    EXPECT_EQ(twobody::cpu::count_pairs(cl, queries, pred, &st), want);
    EXPECT_LE(st.distance_calls, static_cast<unsigned long long>(pairs.count()));
    EXPECT_EQ(st.cells, cl.cells());

    auto const hb = twobody::cpu::histogram(pairs, f, bins);
    auto const hc = twobody::cpu::histogram(cl, queries, f, bins, &st);
    EXPECT_EQ(hc.counts, hb.counts);
    EXPECT_EQ(hc.pairs, st.distance_calls) << "pairs and outside count the visited pairs";
    EXPECT_EQ(hc.outside, st.distance_calls - (hb.pairs - hb.outside));

    auto const jb = twobody::cpu::join(pairs, pred);
    EXPECT_EQ(keys(twobody::cpu::join(cl, queries, pred)), keys(jb)) << "the same records in (i, j) order";

    if constexpr (D == 3) {  // the public forms choose the cells
      auto const cpu = twobody::exec::cpu;
      pair_search chosen = pair_search::automatic;
      within_cutoff<float> const cells{r, pair_search::grid, {}, &chosen};
      EXPECT_EQ(twobody::count_pairs(cpu, pairs, pred, cells), want);
      EXPECT_EQ(chosen, pair_search::grid);
      EXPECT_EQ(twobody::count_pairs(cpu, pairs, pred, within_cutoff<float>{r, pair_search::brute_force}), want);
      EXPECT_EQ(chosen, pair_search::grid) << "only a given `chosen` is written";
      EXPECT_EQ(twobody::histogram(cpu, pairs, f, bins, cells).counts, hb.counts);
      EXPECT_EQ(keys(twobody::join(cpu, pairs, pred, cells).to_host()), keys(jb));
    }
  }
}

template <int D>
void check_dimension(std::int64_t n, int range, float r)
{
  SCOPED_TRACE("D = " + std::to_string(D) + ", range " + std::to_string(range) + ", r = " + std::to_string(r));
  tbt::host_points<float, D> const h(n, 300 + D, range);
  tbt::host_points<float, D> const q(n / 2 + 3, 400 + D, range + range / 2);  // partly outside h's box
  check_against_brute<D>(h.view(), q.view(), twobody::within_radius(r), twobody::euclidean{}, r);
}

}  // namespace

TEST(CpuCells, CountsHistogramsAndJoinsMatchBruteForce)
{
  check_dimension<1>(3000, 4000, 3.f);
  check_dimension<2>(2500, 200, 4.f);
  check_dimension<3>(2500, 64, 5.f);
  check_dimension<4>(1500, 24, 4.f);
  check_dimension<6>(1000, 8, 3.f);
}

TEST(CpuCells, CutoffsAroundTheDataExtentAndDuplicates)
{
  check_dimension<3>(1500, 16, 16.f);   // the cutoff equals the range: at most 2 cells per axis
  check_dimension<3>(1200, 16, 100.f);  // larger than the extent: every point in one cell
  check_dimension<2>(1500, 4, 1.f);     // a 4 x 4 lattice: many duplicates, points on every border
}

TEST(CpuCells, PeriodicBoxUsesTheMinimumImage)
{
  for (float r : {3.f, 7.f, 12.f}) {
    SCOPED_TRACE("r = " + std::to_string(r));
    int const L = 40;
    tbt::host_points<float, 3> const h(3000, 77, L), q(1000, 78, L);  // integer coordinates in [0, 40)
    auto const metric = twobody::make_periodic_euclidean(float(L), float(L), float(L));
    twobody::within<decltype(metric), float> const pred{metric, r};
    cuda::std::array<float, 3> const box{float(L), float(L), float(L)};
    check_against_brute<3>(h.view(), q.view(), pred, metric, r, &box);
  }
}

TEST(CpuCells, PointsWithNanCoordinatesTakePartInNoPair)
{
  tbt::host_points<float, 3> h(2000, 5, 32);
  for (std::int64_t i = 0; i < h.n; i += 97) { h.c[i % 3][i] = std::numeric_limits<float>::quiet_NaN(); }
  h.c[0][1] = std::numeric_limits<float>::infinity();
  auto const pairs = twobody::self_pairs(h.view());
  auto const pred  = twobody::within_radius(4.f);
  pair_search chosen = pair_search::automatic;
  EXPECT_EQ(twobody::count_pairs(twobody::exec::cpu, pairs, pred, within_cutoff<float>{4.f, pair_search::grid, {}, &chosen}),
            twobody::cpu::count_pairs(pairs, pred));
  EXPECT_EQ(chosen, pair_search::grid);
  // NaN queries in a periodic box (clamped, their cell would be 0) are near nothing either.
  tbt::host_points<float, 3> const indexed(2000, 8, 32);  // in [0, 32)
  tbt::host_points<float, 3> q(700, 6, 32);
  for (std::int64_t i = 0; i < q.n; i += 31) { q.c[2][i] = std::numeric_limits<float>::quiet_NaN(); }
  auto const metric = twobody::make_periodic_euclidean(32.f, 32.f, 32.f);
  twobody::within<decltype(metric), float> const near{metric, 4.f};
  auto const cross = twobody::cross_pairs(q.view(), indexed.view());
  twobody::uniform_bins<float> const bins(0.f, 4.f, 4);
  auto const hc = twobody::histogram(twobody::exec::cpu, cross, metric, bins, within_cutoff<float>{4.f, pair_search::grid, {}, &chosen});
  EXPECT_EQ(chosen, pair_search::grid);
  EXPECT_EQ(hc.counts, twobody::cpu::histogram(cross, metric, bins).counts);
  EXPECT_EQ(twobody::count_pairs(twobody::exec::cpu, cross, near, within_cutoff<float>{4.f, pair_search::grid}),
            twobody::cpu::count_pairs(cross, near));
}

TEST(CpuCells, EmptySetsHaveNoPairs)
{
  tbt::host_points<float, 3> const none(0, 1), some(50, 2, 16);
  within_cutoff<float> const cells{3.f, pair_search::grid};
  EXPECT_EQ(twobody::count_pairs(twobody::exec::cpu, twobody::self_pairs(none.view()), twobody::within_radius(3.f), cells), 0u);
  EXPECT_EQ(twobody::count_pairs(twobody::exec::cpu, twobody::cross_pairs(none.view(), some.view()), twobody::within_radius(3.f), cells),
            0u);
  EXPECT_EQ(twobody::count_pairs(twobody::exec::cpu, twobody::cross_pairs(some.view(), none.view()), twobody::within_radius(3.f), cells),
            0u);
  auto const h = twobody::histogram(twobody::exec::cpu, twobody::self_pairs(none.view()), twobody::euclidean{},
                                    twobody::uniform_bins<float>(0.f, 3.f, 4), cells);
  EXPECT_EQ(h.counts, std::vector<unsigned long long>(4, 0));
  EXPECT_EQ(h.pairs, 0u);
}

TEST(CpuCells, AutomaticChoosesCellsWhereTheyPayAndBruteForceElsewhere)
{
  auto const pred = twobody::within_radius(2.f);
  pair_search chosen = pair_search::automatic;
  tbt::host_points<float, 3> const large(6000, 9, 200);  // 30 cells of 2 along each axis: cells pay
  EXPECT_EQ(twobody::count_pairs(twobody::exec::cpu, twobody::self_pairs(large.view()), pred, within_cutoff<float>{2.f, {}, {}, &chosen}),
            twobody::cpu::count_pairs(twobody::self_pairs(large.view()), pred));
  EXPECT_EQ(chosen, pair_search::grid);
  tbt::host_points<float, 3> const small(200, 9, 200);  // under 2^16 pairs: brute force
  (void)twobody::count_pairs(twobody::exec::cpu, twobody::self_pairs(small.view()), pred, within_cutoff<float>{2.f, {}, {}, &chosen});
  EXPECT_EQ(chosen, pair_search::brute_force);
  tbt::host_points<float, 3> const dense(6000, 9, 4);  // one cell holds everything: brute force
  (void)twobody::count_pairs(twobody::exec::cpu, twobody::self_pairs(dense.view()), pred, within_cutoff<float>{2.f, {}, {}, &chosen});
  EXPECT_EQ(chosen, pair_search::brute_force);
}

TEST(CpuCells, PeriodicCellsNeedCoordinatesInTheBox)
{
  int const L = 40;
  tbt::host_points<float, 3> h(3000, 11, L);
  h.c[1][7] = -3.f;  // outside [0, 40): brute force's minimum image still takes it
  auto const metric = twobody::make_periodic_euclidean(float(L), float(L), float(L));
  twobody::within<decltype(metric), float> const pred{metric, 5.f};
  auto const pairs = twobody::self_pairs(h.view());
  pair_search chosen = pair_search::grid;
  EXPECT_EQ(twobody::count_pairs(twobody::exec::cpu, pairs, pred, within_cutoff<float>{5.f, {}, {}, &chosen}),
            twobody::cpu::count_pairs(pairs, pred));
  EXPECT_EQ(chosen, pair_search::brute_force);
  EXPECT_THROW((void)twobody::count_pairs(twobody::exec::cpu, pairs, pred, within_cutoff<float>{5.f, pair_search::grid}), twobody::error);
}

TEST(CpuCells, ProgressCountsThePairSetsPairsAndAThrowStopsTheCall)
{
  tbt::host_points<float, 3> const h(5000, 13, 200), q(3000, 14, 200);
  auto const pred = twobody::within_radius(3.f);
  within_cutoff<float> const cells{3.f, pair_search::grid};
  for (bool cross : {false, true}) {
    SCOPED_TRACE(cross ? "cross" : "self");
    auto const pairs = cross ? twobody::cross_pairs(q.view(), h.view()) : twobody::self_pairs(h.view());
    std::vector<twobody::progress_report> seen;
    twobody::progress_callback const note = [&](twobody::progress_report const& p) { seen.push_back(p); };
    EXPECT_EQ(twobody::count_pairs(twobody::exec::cpu.with_progress(&note), pairs, pred, cells), twobody::cpu::count_pairs(pairs, pred));
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.back().done, static_cast<std::uint64_t>(pairs.count()));
    EXPECT_EQ(seen.back().total, static_cast<std::uint64_t>(pairs.count()));
    for (std::size_t k = 1; k < seen.size(); ++k) { EXPECT_LE(seen[k - 1].done, seen[k].done); }
  }
  struct stop {};
  twobody::progress_callback const halt = [](twobody::progress_report const&) { throw stop{}; };
  EXPECT_THROW((void)twobody::count_pairs(twobody::exec::cpu.with_progress(&halt), twobody::self_pairs(h.view()), pred, cells), stop);
  EXPECT_GT(twobody::count_pairs(twobody::exec::cpu, twobody::self_pairs(h.view()), pred, cells), 0u) << "usable after the stop";
}
