// What the GPU tests of the cells share (test_gpu_cell_list.cu, test_gpu_cell_list_cases.cu).
#pragma once

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
