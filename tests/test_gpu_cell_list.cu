// The one-call histogram of small self sets over the cells of a periodic box
// (detail/cell_list_traversal.cuh): the cell grid's host math (no GPU needed), and on the GPU the
// cell kernel against the tile kernels' all-pairs result, the CPU backend and an independent
// double-precision reference, with integer coordinates (every minimum-image squared distance an
// exact integer) and bins whose edges lie away from every sqrt(integer) the data can give.
#include "common.cuh"

#include <twobody/twobody.cuh>

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/transform.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace twobody;

namespace {

using detail::cell_grid;
using detail::cell_grid_of;

template <int D>
struct integer_set {
  std::vector<float> c[D];
  float box[D];
};

/// n points with integer coordinates in [0, box] (some exactly on 0 and on the box's far face).
template <int D>
integer_set<D> integer_points(int n, float const (&box)[D], unsigned seed)
{
  integer_set<D> s;
  std::mt19937 rng(seed);
  for (int d = 0; d < D; ++d) {
    s.box[d] = box[d];
    for (int i = 0; i < n; ++i) {
      auto const L = static_cast<unsigned>(box[d]);
      unsigned const r = rng() % 50;
      s.c[d].push_back(static_cast<float>(r == 0 ? 0u : (r == 1 ? L : rng() % L)));
    }
  }
  return s;
}

/// The smallest distance, relative, from sqrt(s) * inv_width to an integer over s = 1 .. max_s:
/// how far every possible value lies from a bin edge.
double edge_margin(distance_bins<float> const& bins, long long max_s)
{
  double worst = 1.0;
  for (long long s = 1; s <= max_s; ++s) {
    double const t = std::sqrt(static_cast<double>(s)) * static_cast<double>(bins.inv_width);
    if (t < bins.size() + 1) { worst = std::min(worst, std::abs(t - std::round(t)) / std::max(t, 1.0)); }
  }
  return worst;
}

/// The histogram of the minimum-image distances in double (slots: bins, then outside).
template <int D>
std::vector<unsigned long long> reference(integer_set<D> const& s, distance_bins<float> const& bins)
{
  std::vector<unsigned long long> h(static_cast<std::size_t>(bins.size()) + 1, 0);
  std::size_t const n = s.c[0].size();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      double sq = 0;
      for (int d = 0; d < D; ++d) {
        double const a = std::abs(static_cast<double>(s.c[d][i]) - s.c[d][j]);
        double const m = std::min(a, static_cast<double>(s.box[d]) - a);
        sq += m * m;
      }
      double const k = std::floor(std::sqrt(sq) * static_cast<double>(bins.inv_width));
      ++h[k < bins.size() ? static_cast<std::size_t>(k) : h.size() - 1];
    }
  }
  return h;
}

template <int D>
struct device_set {
  thrust::device_vector<float> c[D];
  explicit device_set(integer_set<D> const& s)
  {
    for (int d = 0; d < D; ++d) { c[d] = s.c[d]; }
  }
  points<float, D> view() const
  {
    points<float, D> p;
    for (int d = 0; d < D; ++d) { p.coords[d] = thrust::raw_pointer_cast(c[d].data()); }
    p.size = static_cast<size_type>(c[0].size());
    return p;
  }
};

template <int D>
points<float, D> host_view(integer_set<D> const& s)
{
  points<float, D> p;
  for (int d = 0; d < D; ++d) { p.coords[d] = s.c[d].data(); }
  p.size = static_cast<size_type>(s.c[0].size());
  return p;
}

template <int D>
periodic_squared_euclidean<float, D> box_of(integer_set<D> const& s)
{
  periodic_squared_euclidean<float, D> f;
  for (int d = 0; d < D; ++d) { f.box[d] = s.box[d]; }
  return f;
}

std::vector<unsigned long long> slots_of(histogram_result<unsigned long long> const& r)
{
  std::vector<unsigned long long> v = r.counts;
  v.push_back(r.outside);
  return v;
}

/// Every form of the one-call histogram of `s` on the GPU against the tile kernels (the explicit
/// all-pairs form), the CPU backend and the double reference; `cells`: whether the plan takes the cells.
template <int D>
void check_set(integer_set<D> const& s, distance_bins<float> const& bins, bool cells, std::vector<unsigned long long> const* ref)
{
  device_set<D> const dev(s);
  auto const pairs = self_pairs(dev.view());
  auto const f     = box_of(s);
  int const slots  = bins.size() + 1;
  policy_plan const plan = plan_histogram<unsigned long long>(pairs, f, bins);
  EXPECT_EQ(plan.cell_list, cells) << plan;
  thrust::device_vector<unsigned long long> d(slots, 0xdeadbeefull);
  histogram(pairs, f, bins, thrust::raw_pointer_cast(d.data()));
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned long long> got(d.begin(), d.end());
  thrust::device_vector<unsigned long long> t(slots, 0xdeadbeefull);
  histogram<default_input>(pairs, f, bins, thrust::raw_pointer_cast(t.data()), output::warp_privatized{4});
  std::vector<unsigned long long> const tiles(t.begin(), t.end());
  EXPECT_EQ(got, tiles) << "n = " << pairs.a.size;
  // The host result twice (the second reuses the zeroed scratch the first left).
  EXPECT_EQ(slots_of(histogram(exec::gpu, pairs, f, bins)), tiles) << "n = " << pairs.a.size;
  EXPECT_EQ(slots_of(histogram(exec::gpu, pairs, f, bins)), tiles) << "n = " << pairs.a.size;
  EXPECT_EQ(slots_of(histogram(exec::cpu, self_pairs(host_view(s)), f, bins)), tiles) << "n = " << pairs.a.size;
  if (ref != nullptr) { EXPECT_EQ(got, *ref) << "n = " << pairs.a.size; }
  unsigned long long total = 0;
  for (auto v : got) { total += v; }
  EXPECT_EQ(total, static_cast<unsigned long long>(pairs.count()));
}

}  // namespace

// The cells from the bins' reach: at least sqrt(values_outside_from) (1 + 2^-10) wide, at least 3
// and at most 32 per axis, at most 4096 in all.
TEST(CellGrid, CellsFollowTheReachAndTheCaps)
{
  auto const cube = make_periodic_squared_euclidean(100.f, 100.f, 100.f);
  cell_grid<3> const g = cell_grid_of(cube, distance_bins<float>(12.f, 128));
  EXPECT_EQ(g.cells[0], 8);
  EXPECT_EQ(g.cells[1], 8);
  EXPECT_EQ(g.cells[2], 8);
  EXPECT_DOUBLE_EQ(g.visited_share(), 27.0 / 512.0);
  double const reach = std::sqrt(static_cast<double>(detail::values_outside_from(distance_bins<float>(12.f, 128))));
  EXPECT_GE(100.0 / g.cells[0], reach * (1.0 + 1.0 / 1024.0));
  EXPECT_FLOAT_EQ(g.inv_width[0], 0.08f);

  cell_grid<3> const aniso = cell_grid_of(make_periodic_squared_euclidean(100.f, 60.f, 40.f), distance_bins<float>(9.7f, 83));
  EXPECT_EQ(aniso.cells[0], 10);
  EXPECT_EQ(aniso.cells[1], 6);
  EXPECT_EQ(aniso.cells[2], 4);

  // Many cells per axis: 32 at most, then fewer until 4096 in all.
  cell_grid<3> const fine = cell_grid_of(cube, distance_bins<float>(0.1f, 10));
  EXPECT_EQ(fine.total(), 4096);
  EXPECT_EQ(fine.cells[0], 16);
  cell_grid<2> const flat = cell_grid_of(make_periodic_squared_euclidean(100.f, 100.f), distance_bins<float>(0.1f, 10));
  EXPECT_EQ(flat.cells[0], 32);
  EXPECT_EQ(flat.cells[1], 32);

  // A reach past a third of an axis: no grid.
  EXPECT_FALSE(cell_grid_of(cube, distance_bins<float>(34.f, 10)).usable());
  EXPECT_FALSE(cell_grid_of(make_periodic_squared_euclidean(100.f, 100.f, 30.f), distance_bins<float>(12.f, 10)).usable());
  EXPECT_TRUE(cell_grid_of(cube, distance_bins<float>(33.f, 10)).usable());
}

// Which calls the cells serve (self sets of 2 to 4096 points, 3 cells per axis or more), and which
// the one-call histogram gives them: from 2048 points, at most a quarter of the pairs visited.
TEST(CellGrid, WhichCallsTakeTheCells)
{
  auto const cube = make_periodic_squared_euclidean(100.f, 100.f, 100.f);
  std::vector<float> x(5000, 1.f);
  auto with = [&](size_type n) { return make_points(n, x.data(), x.data(), x.data()); };
  distance_bins<float> const bins(12.f, 128);
  EXPECT_TRUE(detail::cell_list_serves(self_pairs(with(2)), cube, bins));
  EXPECT_FALSE(detail::cell_list_pays(self_pairs(with(2047)), cube, bins));
  EXPECT_TRUE(detail::cell_list_pays(self_pairs(with(2048)), cube, bins));
  EXPECT_TRUE(detail::cell_list_pays(self_pairs(with(4096)), cube, bins));
  EXPECT_FALSE(detail::cell_list_serves(self_pairs(with(1)), cube, bins));
  EXPECT_FALSE(detail::cell_list_serves(self_pairs(with(4097)), cube, bins));
  EXPECT_FALSE(detail::cell_list_serves(cross_pairs(with(100), with(100)), cube, bins));
  EXPECT_FALSE(detail::cell_list_serves(self_pairs(with(100)), cube, distance_bins<float>(12.f, 1 << 14)));
  // 5 cells per axis visit 27/125 of the pairs (taken), 4 visit 27/64 (served, not taken).
  EXPECT_TRUE(detail::cell_list_pays(self_pairs(with(3000)), cube, distance_bins<float>(19.9f, 128)));
  EXPECT_FALSE(detail::cell_list_pays(self_pairs(with(3000)), cube, distance_bins<float>(24.9f, 128)));
  EXPECT_TRUE(detail::cell_list_serves(self_pairs(with(3000)), cube, distance_bins<float>(24.9f, 128)));
  // Other statistics keep the tiles: bins without an outside threshold, an open box.
  EXPECT_FALSE((detail::cell_list_serves_v<points<float, 3>, periodic_squared_euclidean<float, 3>, uniform_bins<float>>));
  EXPECT_FALSE((detail::cell_list_serves_v<points<float, 3>, squared_euclidean, distance_bins<float>>));
  EXPECT_FALSE((detail::cell_list_serves_v<points<double, 3>, periodic_squared_euclidean<double, 3>, distance_bins<double>>));
  EXPECT_FALSE((detail::cell_list_serves_v<points<float, 3, true>, periodic_squared_euclidean<float, 3>, distance_bins<float>>));
  EXPECT_FALSE((detail::cell_list_serves_v<points<float, 1>, periodic_squared_euclidean<float, 1>, distance_bins<float>>));
  EXPECT_TRUE((detail::cell_list_serves_v<points<float, 2>, periodic_squared_euclidean<float, 2>, distance_bins<float>>));
}

TEST(GpuCellList, MatchesTheTilesTheCpuBackendAndTheReference)
{
  TBT_REQUIRE_GPU();
  distance_bins<float> const bins(12.3f, 100);
  ASSERT_GT(edge_margin(bins, 3 * 50 * 50), 1e-5);
  for (int n : {1000, 2047, 2048, 2049, 3001, 4096}) {
    integer_set<3> const s = integer_points<3>(n, {100.f, 100.f, 100.f}, 11 + n);
    auto const ref = reference(s, bins);
    check_set(s, bins, n >= detail::cell_list_min_points, &ref);
  }
  // A shorter reach: 4096 cells.
  distance_bins<float> const fine(4.7f, 100);
  ASSERT_GT(edge_margin(fine, 3 * 50 * 50), 1e-5);
  ASSERT_EQ(cell_grid_of(make_periodic_squared_euclidean(100.f, 100.f, 100.f), fine).total(), 4096);
  integer_set<3> const s = integer_points<3>(4096, {100.f, 100.f, 100.f}, 5);
  auto const ref         = reference(s, fine);
  check_set(s, fine, true, &ref);
}

// The cell kernel itself at every size it serves, below the sizes the planner gives it too (units
// of 32 points: partial, whole, one more), with 3 cells per axis (every cell a neighbour of every
// other: no pair unvisited) and with 4096 cells (16 per axis: the block scan's wide form);
// launched directly into a poisoned device output.
TEST(GpuCellList, KernelAtEverySize)
{
  TBT_REQUIRE_GPU();
  for (float r : {12.3f, 30.7f, 4.7f}) {
    distance_bins<float> const bins(r, 100);
    ASSERT_GT(edge_margin(bins, 3 * 50 * 50), 1e-5);
    for (int n : {2, 3, 31, 32, 33, 63, 64, 65, 1000}) {
      integer_set<3> const s = integer_points<3>(n, {100.f, 100.f, 100.f}, 7 * n);
      device_set<3> const dev(s);
      auto const pairs = self_pairs(dev.view());
      ASSERT_TRUE(detail::cell_list_serves(pairs, box_of(s), bins));
      thrust::device_vector<unsigned long long> d(bins.size() + 1, 0xdeadbeefull);
      EXPECT_FALSE(detail::launch_cell_list(pairs, box_of(s), bins, thrust::raw_pointer_cast(d.data()), cudaStream_t{}));
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<unsigned long long> const got(d.begin(), d.end());
      EXPECT_EQ(got, reference(s, bins)) << "n = " << n << ", r_max = " << r;
    }
  }
}

TEST(GpuCellList, AnisotropicBoxesAndTwoDimensions)
{
  TBT_REQUIRE_GPU();
  distance_bins<float> const bins3(9.7f, 83);
  ASSERT_GT(edge_margin(bins3, 50 * 50 + 30 * 30 + 20 * 20), 1e-5);
  integer_set<3> const s3 = integer_points<3>(3000, {100.f, 60.f, 40.f}, 5);
  auto const ref3 = reference(s3, bins3);
  check_set(s3, bins3, true, &ref3);

  distance_bins<float> const bins2(7.7f, 64);
  ASSERT_GT(edge_margin(bins2, 40 * 40 + 25 * 25), 1e-5);
  integer_set<2> const s2 = integer_points<2>(2500, {80.f, 50.f}, 6);
  auto const ref2 = reference(s2, bins2);
  check_set(s2, bins2, true, &ref2);
}

// Points outside [0, L] or with a NaN coordinate prove nothing about cells: the kernel then
// visits every pair, with the tile kernels' values (a NaN pair is outside).
TEST(GpuCellList, StrayPointsVisitEveryPair)
{
  TBT_REQUIRE_GPU();
  distance_bins<float> const bins(12.3f, 100);
  integer_set<3> s = integer_points<3>(2500, {100.f, 100.f, 100.f}, 9);
  s.c[0][7]   = -1.f;
  s.c[1][400] = 101.f;
  check_set(s, bins, true, nullptr);
  s.c[2][2499] = std::numeric_limits<float>::quiet_NaN();
  check_set(s, bins, true, nullptr);
}

// Where the cells would visit more than a quarter of the pairs, the tiles run.
TEST(GpuCellList, LongReachKeepsTheTiles)
{
  TBT_REQUIRE_GPU();
  distance_bins<float> const bins(30.7f, 100);
  integer_set<3> const s = integer_points<3>(1000, {100.f, 100.f, 100.f}, 3);
  check_set(s, bins, false, nullptr);
}

// The asynchronous form is one graph node (cooperative: it zeroes its own poisoned output) and
// replays: 100 replays add up to 100 results.
TEST(GpuCellList, CapturedAndReplayed)
{
  TBT_REQUIRE_GPU();
  if (!device_info::get().cooperative_launch) { GTEST_SKIP() << "no cooperative launches on this GPU"; }
  distance_bins<float> const bins(12.3f, 100);
  integer_set<3> const s = integer_points<3>(4000, {100.f, 100.f, 100.f}, 21);
  auto const ref         = reference(s, bins);
  device_set<3> const dev(s);
  auto const pairs = self_pairs(dev.view());
  auto const f     = box_of(s);
  int const slots  = bins.size() + 1;
  thrust::device_vector<unsigned long long> d(slots, 0xdeadbeefull);
  thrust::device_vector<unsigned long long> acc(slots, 0);
  cudaStream_t st{};
  ASSERT_EQ(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
  histogram(pairs, f, bins, thrust::raw_pointer_cast(d.data()), st);  // plans outside the capture
  cudaGraph_t graph{};
  ASSERT_EQ(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal), cudaSuccess);
  histogram(pairs, f, bins, thrust::raw_pointer_cast(d.data()), st);
  ASSERT_EQ(cudaStreamEndCapture(st, &graph), cudaSuccess);
  std::size_t nodes = 0;
  ASSERT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
  EXPECT_EQ(nodes, 1u);
  cudaGraphExec_t exec_graph{};
  ASSERT_EQ(cudaGraphInstantiate(&exec_graph, graph, 0), cudaSuccess);
  int const replays = 100;
  for (int r = 0; r < replays; ++r) {
    ASSERT_EQ(cudaGraphLaunch(exec_graph, st), cudaSuccess);
    thrust::transform(thrust::cuda::par.on(st), acc.begin(), acc.end(), d.begin(), acc.begin(),
                      thrust::plus<unsigned long long>{});
  }
  ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
  std::vector<unsigned long long> const got(acc.begin(), acc.end());
  for (int k = 0; k < slots; ++k) { EXPECT_EQ(got[k], replays * ref[k]) << k; }
  (void)cudaGraphExecDestroy(exec_graph);
  (void)cudaGraphDestroy(graph);
  (void)cudaStreamDestroy(st);
}
