// What the GPU tests of the grid index check with: counts and histograms over a grid_index of
// D-dimensional points against the CPU backend's brute force (and, in 3-D, the GPU's one-call
// forms), with every traversal option, and cross pairs with queries partly outside the indexed
// set's box. The references are the CPU's so that each dimension compiles the grid's kernels
// only: the one-call forms have their own tests (test_gpu_api, test_gpu_histogram).
#pragma once

#include "common.cuh"

#include <twobody/grid.cuh>

namespace tbt_grid {

template <int D>
void check_dimension(std::int64_t n, int range, float r)
{
  SCOPED_TRACE("D = " + std::to_string(D) + ", range " + std::to_string(range) + ", r = " + std::to_string(r));
  tbt::host_points<float, D> h(n, 100 + D, range);
  tbt::device_points<float, D> d(h);
  auto const pred  = twobody::within_radius(r);
  auto const brute = twobody::cpu::count_pairs(twobody::self_pairs(h.view()), pred);
  if constexpr (D == 3) { EXPECT_EQ(twobody::count_pairs(twobody::self_pairs(d.view()), pred), brute) << "one-call GPU count"; }
  twobody::grid_index<float, D> grid(d.view(), r);
  twobody::grid_stats st;
  twobody::grid_options opt;
  opt.stats = &st;
  EXPECT_EQ(twobody::count_pairs(grid, pred, opt), brute);
  EXPECT_LE(st.distance_calls, static_cast<unsigned long long>(n) * (n - 1) / 2);
  for (int k : {1, 4, 32}) {
    twobody::grid_options o;
    o.threads_per_query = k;
    o.order_by_workload = k != 4;  // both orders, each with two group sizes
    EXPECT_EQ(twobody::count_pairs(grid, pred, o), brute) << "threads_per_query " << k;
  }
  twobody::grid_stats full_st;
  twobody::grid_options full;
  full.half_stencil = false;
  full.stats        = &full_st;
  EXPECT_EQ(twobody::count_pairs(grid, pred, full), brute);
  if (st.distance_calls > 1000) { EXPECT_GT(double(full_st.distance_calls) / double(st.distance_calls), 1.9); }

  // Histogram of distances up to the cutoff: bins equal the brute force's.
  twobody::uniform_bins<float> bins(0.f, r, 7);
  auto const hb = twobody::cpu::histogram(twobody::self_pairs(h.view()), twobody::euclidean{}, bins);
  if constexpr (D == 3) {
    EXPECT_EQ(twobody::histogram(twobody::self_pairs(d.view()), twobody::euclidean{}, bins).counts, hb.counts) << "one-call GPU histogram";
  }
  twobody::grid_stats hst;
  twobody::grid_options hopt;
  hopt.stats    = &hst;
  auto const hg = twobody::histogram(grid, twobody::euclidean{}, bins, hopt);
  EXPECT_EQ(hg.counts, hb.counts);
  // Every visited pair is binned or counted outside (outside values are kept in registers).
  EXPECT_EQ(hg.pairs, hst.distance_calls);
  EXPECT_EQ(hg.outside, hst.distance_calls - (hb.pairs - hb.outside));

  // Cross mode: queries partly outside the indexed set's box.
  tbt::host_points<float, D> hq(n / 2 + 3, 200 + D, range + range / 2);
  tbt::device_points<float, D> q(hq);
  auto const brute_cross = twobody::cpu::count_pairs(twobody::cross_pairs(hq.view(), h.view()), pred);
  EXPECT_EQ(twobody::count_pairs(q.view(), grid, pred), brute_cross);
  EXPECT_EQ(twobody::count_pairs(hq.view(), grid, pred), brute_cross) << "host-resident queries";
}

}  // namespace tbt_grid
