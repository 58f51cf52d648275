// What the GPU tests of the fast paths share (test_gpu_fast_paths.cu, test_gpu_fast_paths_scratch.cu).
#pragma once

#include "common.cuh"

#include <cmath>
#include <limits>

using namespace twobody;

namespace {

__global__ void approx_sqrt_kernel(float const* x, float* approx, float* ieee, int n)
{
  int const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    approx[i] = detail::approx_sqrt(x[i]);
    ieee[i]   = __fsqrt_rn(x[i]);
  }
}

long long ulp_distance(float a, float b)
{
  std::int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  return std::llabs(static_cast<long long>(ia) - ib);
}

/// Reference SDH in double from squared distances, with the pairs whose distance lies
/// within `tol` of a bin edge counted separately: the GPU may put those in either bin.
struct edge_tolerant_reference {
  std::vector<unsigned long long> sure, near_edge;  // per slot (last: outside)
};

template <int D>
edge_tolerant_reference reference_sdh(pair_set<points<double, D>> const& pairs, double r_max, int n, double tol)
{
  edge_tolerant_reference ref{std::vector<unsigned long long>(n + 1), std::vector<unsigned long long>(n + 1)};
  double const w = r_max / n;
  auto const& b  = pairs.mode == pair_mode::cross ? pairs.b : pairs.a;
  for (std::int64_t i = 0; i < pairs.a.size; ++i) {
    std::int64_t const j0 = pairs.mode == pair_mode::self ? i + 1 : 0;
    for (std::int64_t j = j0; j < b.size; ++j) {
      if (pairs.mode == pair_mode::ordered && j == i) { continue; }
      double const r = std::sqrt(squared_euclidean{}(pairs.a[i], b[j]));
      double const t = r / w;
      int const k    = t < n ? static_cast<int>(t) : n;
      double const to_edge = std::min(std::abs(t - std::floor(t)), std::abs(std::ceil(t) - t)) * w;
      if (to_edge <= tol * std::max(r, 1.0)) {
        // Either neighbour (or this bin) may get it.
        ++ref.near_edge[k];
        if (k > 0) { ++ref.near_edge[k - 1]; }
        if (k < n) { ++ref.near_edge[k + 1]; }
      } else {
        ++ref.sure[k];
      }
    }
  }
  return ref;
}

}  // namespace
template <class Input>
void check_distance_bins(pair_mode m, std::int64_t na, std::int64_t nb, int nbins, float r_max)
{
  tbt::host_points<float, 3> ha(na, 21), hb(nb, 22);
  auto hda = ha.as<double>();
  auto hdb = hb.as<double>();
  tbt::device_points<float, 3> a(ha), b(hb);
  auto const ref = reference_sdh(tbt::make_pairs(m, hda.view(), hdb.view()), r_max, nbins, 1e-5);
  auto counts    = tbt::poisoned<unsigned long long>(nbins + 1);
  auto const pairs = tbt::make_pairs(m, a.view(), b.view());
  histogram<Input>(pairs, squared_euclidean{}, distance_bins<float>(r_max, nbins), thrust::raw_pointer_cast(counts.data()),
                   output::warp_privatized{32});
  thrust::host_vector<unsigned long long> got = counts;
  unsigned long long total = 0;
  for (int k = 0; k <= nbins; ++k) {
    total += got[k];
    EXPECT_GE(got[k], ref.sure[k]) << "bin " << k << " " << tbt::mode_name(m);
    EXPECT_LE(got[k], ref.sure[k] + ref.near_edge[k]) << "bin " << k << " " << tbt::mode_name(m);
  }
  EXPECT_EQ(total, pairs.count());
}
// Ordered per-point sums of symmetric functors visit each unordered pair once (for both points);
// others visit both orders.
static_assert(is_symmetric_v<within_radius_fn<float>> && is_symmetric_v<gaussian_kernel_fn<double>> &&
              is_symmetric_v<within<euclidean, float>> && is_symmetric_v<function_of_fn<periodic_euclidean<float, 3>, float (*)(float)>>);
static_assert(!is_symmetric_v<within<rp_pi_separation, float>> && !is_symmetric_v<float (*)(float, float)>);

/// A functor with f(a, b) != f(b, a): integer values for integer coordinates (exact sums).
struct one_sided_term {
  template <class T, int D>
  __host__ __device__ T operator()(point<T, D> const& a, point<T, D> const& b) const
  {
    return (a.x[0] - b.x[0]) + T(2) * a.x[1];
  }
};

template <class Input, class T>
void check_per_point(pair_mode m, std::int64_t na, std::int64_t nb)
{
  tbt::host_points<T, 3> ha(na, 41), hb(nb, 42);
  tbt::device_points<T, 3> a(ha), b(hb);
  auto const hp = tbt::make_pairs(m, ha.view(), hb.view());
  auto const dp = tbt::make_pairs(m, a.view(), b.view());
  // Neighbour counts per point: exact (integers far below 2^24).
  {
    std::vector<T> want(na);
    cpu::sum_per_point(hp, within_radius(T(6)), want.data());
    auto got = tbt::poisoned<T>(na);
    sum_per_point<Input>(dp, within_radius(T(6)), thrust::raw_pointer_cast(got.data()));
    thrust::host_vector<T> g = got;
    EXPECT_EQ(std::vector<T>(g.begin(), g.end()), want) << tbt::mode_name(m) << " na=" << na << " nb=" << nb;
  }
  // A functor that is not symmetric: both orders of every pair (exact integer sums).
  {
    std::vector<T> want(na);
    cpu::sum_per_point(hp, one_sided_term{}, want.data());
    auto got = tbt::poisoned<T>(na);
    sum_per_point<Input>(dp, one_sided_term{}, thrust::raw_pointer_cast(got.data()));
    thrust::host_vector<T> g = got;
    EXPECT_EQ(std::vector<T>(g.begin(), g.end()), want) << "one-sided " << tbt::mode_name(m) << " na=" << na;
  }
  // Gaussian kernel sums: positive terms, relative tolerance of float summation (different order).
  {
    auto const k = gaussian_kernel(T(4));
    std::vector<double> want(na);
    cpu::sum_per_point(tbt::make_pairs(m, ha.template as<double>().view(), hb.template as<double>().view()),
                       gaussian_kernel(4.0), want.data());
    auto got = tbt::poisoned<T>(na);
    sum_per_point<Input>(dp, k, thrust::raw_pointer_cast(got.data()));
    thrust::host_vector<T> g = got;
    double const tol = sizeof(T) == 4 ? 1e-4 : 1e-12;  // float: n * eps bound of sequential sums of up to ~4000 terms
    for (std::int64_t i = 0; i < na; ++i) {
      ASSERT_NEAR(g[i], want[i], tol * std::max(1.0, want[i])) << "point " << i << " " << tbt::mode_name(m);
    }
  }
}
// The host-synchronous per-point form sums into per-thread scratch that must be zero again after
// every call (its last block moves the sums to mapped host memory and clears them): calls in a
// row, with different sizes and functors, each equal the CPU's exact neighbour counts.
template <class T>
void check_per_point_host_calls(std::int64_t n)
{
  tbt::host_points<T, 3> h(n, 44), hq(n / 3 + 1, 45);
  tbt::device_points<T, 3> d(h);
  for (T r : {T(5), T(9), T(5)}) {
    std::vector<T> want(n);
    cpu::sum_per_point(ordered_pairs(h.view()), within_radius(r), want.data());
    EXPECT_EQ(sum_per_point(ordered_pairs(d.view()), within_radius(r)), want) << "ordered n=" << n << " r=" << r;
    // Host points (staged) and a cross set: another size through the same scratch.
    std::vector<T> want_cross(hq.view().size);
    cpu::sum_per_point(cross_pairs(hq.view(), h.view()), within_radius(r), want_cross.data());
    EXPECT_EQ(sum_per_point(cross_pairs(hq.view(), d.view()), within_radius(r)), want_cross) << "cross n=" << n << " r=" << r;
  }
}
