// What the GPU tests of the grid joins share (test_gpu_grid_join.cu, test_gpu_grid_join_rounds.cu).
#pragma once

#include "common.cuh"

#include <twobody/grid_join.cuh>

#include <algorithm>
#include <tuple>
#include <vector>

namespace {

using twobody::index_pair;

template <class R>
std::vector<std::tuple<std::uint32_t, std::uint32_t>> keys(std::vector<R> const& v)
{
  std::vector<std::tuple<std::uint32_t, std::uint32_t>> k;
  k.reserve(v.size());
  for (auto const& r : v) { k.emplace_back(r.i, r.j); }
  std::sort(k.begin(), k.end());
  return k;
}

template <int D>
void check_dimension(std::int64_t n, int range, float cutoff)
{
  SCOPED_TRACE("D = " + std::to_string(D) + ", range " + std::to_string(range) + ", cutoff " + std::to_string(cutoff));
  using namespace twobody;
  tbt::host_points<float, D> h(n, 500 + D, range);
  tbt::device_points<float, D> d(h);
  grid_index<float, D> grid(d.view(), cutoff);
  for (float eps : {cutoff, cutoff * 0.5f}) {  // one index, several eps <= its cutoff
    SCOPED_TRACE("eps " + std::to_string(eps));
    within_eps_fn<float> const pred{eps * eps};
    auto const ref = keys(cpu::join(self_pairs(h.view()), pred));
    auto got       = pairs_within(grid, eps).to_host();
    for (auto const& r : got) { ASSERT_LT(r.i, r.j); }
    EXPECT_EQ(keys(got), ref);
    // The brute-force GPU join has its own tests (test_gpu_join): here in 3-D only, so that the
    // other dimensions compile the grid join's kernels alone.
    if constexpr (D == 3) { EXPECT_EQ(keys(pairs_within(self_pairs(d.view()), eps).to_host()), ref) << "brute-force GPU join"; }
    for (int k : {1, 4, 32}) {
      grid_options o;
      o.threads_per_query = k;
      o.order_by_workload = k != 4;
      o.half_stencil      = k != 32;
      EXPECT_EQ(keys(pairs_within(grid, eps, {}, o).to_host()), ref) << "threads_per_query " << k;
    }
  }
  // Cross: queries partly outside the indexed box, host-resident and on the device.
  tbt::host_points<float, D> hq(n / 2 + 5, 600 + D, range + range / 2);
  tbt::device_points<float, D> q(hq);
  within_eps_fn<float> const pred{cutoff * cutoff};
  auto const ref_cross = keys(cpu::join(cross_pairs(hq.view(), h.view()), pred));
  EXPECT_EQ(keys(pairs_within(q.view(), grid, cutoff).to_host()), ref_cross);
  EXPECT_EQ(keys(pairs_within(hq.view(), grid, cutoff).to_host()), ref_cross) << "host-resident queries";
}

}  // namespace
