// Device tests of the fast paths: distance_bins (approximate sqrt folded into the bin),
// within_radius's fused sign-bit count (also with NaN and inf), and per-point sums.
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

TEST(GpuFastPaths, ApproxSqrtIsWithinTwoUlps)
{
  TBT_REQUIRE_GPU();
  // Squared distances of a 100^3 box and beyond: random floats over 2^-20 .. 2^20, plus all integers up to 2^16.
  std::vector<float> x;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> e(-20.f, 20.f);
  for (int i = 0; i < (1 << 20); ++i) { x.push_back(std::exp2(e(rng))); }
  for (int i = 0; i <= (1 << 16); ++i) { x.push_back(static_cast<float>(i)); }
  thrust::device_vector<float> dx = x;
  auto da = tbt::poisoned<float>(x.size());
  auto di = tbt::poisoned<float>(x.size());
  int const n = static_cast<int>(x.size());
  approx_sqrt_kernel<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(dx.data()), thrust::raw_pointer_cast(da.data()),
                                                thrust::raw_pointer_cast(di.data()), n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  thrust::host_vector<float> a = da, r = di;
  long long worst = 0;
  for (int i = 0; i < n; ++i) { worst = std::max(worst, ulp_distance(a[i], r[i])); }
  std::printf("approx sqrt: max %lld ulp from the IEEE square root over %d inputs\n", worst, n);
  EXPECT_LE(worst, 2) << "distance_bins documents a few ulps";
  EXPECT_EQ(a[x.size() - (1 << 16) - 1], 0.f) << "sqrt(0) must be 0 (bin 0), not NaN";
}

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

TEST(GpuFastPaths, DistanceBinsMatchDoubleReferenceAwayFromEdges)
{
  TBT_REQUIRE_GPU();
  std::int64_t const n = tbt::quick() ? 700 : 3000;
  for (pair_mode m : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
    // Width 1: every perfect-square squared distance sits exactly on an edge (tolerated);
    // width 0.7 and r_max below the largest distance (outside slot used).
    check_distance_bins<default_input>(m, n, n / 2 + 3, 111, 111.f);
    check_distance_bins<input::shared_tile<256, 8>>(m, n, n / 3 + 1, 100, 70.f);
    check_distance_bins<input::shuffle_tile<128, 2>>(m, n / 2, n / 3, 16, 64.f);
    check_distance_bins<input::readonly_tile<256, 4>>(m, n / 2, n / 3, 4096, 111.f);
  }
}

TEST(GpuFastPaths, WithinRadiusNeverCountsNanOrInfinitePoints)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> h(2500, 31);
  float const nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (std::int64_t i = 0; i < h.n; i += 97) { h.c[i % 3][i] = (i % 2) ? nan : -nan; }
  for (std::int64_t i = 5; i < h.n; i += 89) { h.c[(i + 1) % 3][i] = (i % 2) ? inf : -inf; }
  tbt::device_points<float, 3> d(h);
  for (float r : {0.f, 1.f, 9.f, 1e30f}) {
    for (pair_mode m : {pair_mode::self, pair_mode::ordered}) {
      auto const want = cpu::count_pairs(tbt::make_pairs(m, h.view(), h.view()), within_radius(r));
      EXPECT_EQ(count_pairs(tbt::make_pairs(m, d.view(), d.view()), within_radius(r)), want) << "r=" << r;
      EXPECT_EQ((count_pairs<input::naive<128>>(tbt::make_pairs(m, d.view(), d.view()), within_radius(r))), want);
    }
  }
}

TEST(GpuFastPaths, WithinRadiusDoubleMatchesCpu)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<double, 3> h(tbt::quick() ? 900 : 5000, 32);
  tbt::device_points<double, 3> d(h);
  for (double r : {0.0, 3.0, 8.0, 20.5}) {
    EXPECT_EQ(count_pairs(self_pairs(d.view()), within_radius(r)), cpu::count_pairs(self_pairs(h.view()), within_radius(r)));
  }
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

TEST(GpuFastPaths, PerPointSumsMatchCpu)
{
  TBT_REQUIRE_GPU();
  std::int64_t const n = tbt::quick() ? 600 : 4100;
  for (pair_mode m : {pair_mode::cross, pair_mode::ordered}) {
    check_per_point<default_input, float>(m, n, n / 2 + 7);
    check_per_point<input::shared_tile<128, 1>, double>(m, n / 2 + 1, n);
    check_per_point<input::shared_tile<256, 1, 4, 2>, float>(m, n / 2 + 3, n / 3 + 5);  // column groups
    check_per_point<input::shared_tile<128, 2, 1, 2>, double>(m, n / 3 + 1, n / 2);
    // Diagonal tiles of symmetric sums with several own chunks per warp (64 x 2 and 32 x 4 in
    // four column groups): each pair counts once, for q > p.
    check_per_point<input::shared_tile<256, 2, 4, 4>, float>(m, n / 2 + 5, n / 3);
    check_per_point<input::shared_tile<128, 4, 8, 4>, double>(m, n / 3 + 2, n / 2);
    check_per_point<input::readonly_tile<64, 2>, float>(m, n / 3, n / 4);
    check_per_point<input::shuffle_tile<256, 4>, float>(m, n, 33);
    check_per_point<input::naive<128>, double>(m, n / 3, n / 5);
  }
  // One-call host result; zero partners leave zeros (poison overwritten).
  tbt::host_points<float, 3> h(300, 43);
  auto v = sum_per_point(cross_pairs(h.view(), points<float, 3>{}), gaussian_kernel(1.f));
  EXPECT_EQ(v, std::vector<float>(300, 0.f));
  EXPECT_THROW(sum_per_point(self_pairs(h.view()), gaussian_kernel(1.f)), twobody::error);
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

TEST(GpuFastPaths, PerPointHostFormLeavesItsScratchZero)
{
  TBT_REQUIRE_GPU();
  // 2 points; a tile's worth; past the cooperative limit; the scratch's capacity for float
  // (16384 sums) and for double (8192); one past each (the device result and copy back).
  for (std::int64_t n : {2, 300, 4097, 16384, 16385}) { check_per_point_host_calls<float>(n); }
  for (std::int64_t n : {8192, 8193}) { check_per_point_host_calls<double>(n); }
  // One point has no partner: all zeros, and nothing is launched.
  tbt::host_points<float, 3> one(1, 46);
  EXPECT_EQ(sum_per_point(ordered_pairs(one.view()), within_radius(5.f)), std::vector<float>(1, 0.f));
}

TEST(GpuFastPaths, ZeroedScratchIsZeroedAgainAfterAnUnsettledUse)
{
  TBT_REQUIRE_GPU();
  constexpr std::size_t bytes = detail::zeroed_scratch::capacity;
  EXPECT_EQ(detail::zeroed_scratch::of_thread(bytes + 1), nullptr);
  detail::zeroed_scratch* s = detail::zeroed_scratch::of_thread(bytes);
  ASSERT_NE(s, nullptr);
  // A use that fails between launch and result leaves garbage and is never settled.
  ASSERT_EQ(cudaMemset(s->as<unsigned char>(), 0x5a, bytes + sizeof(unsigned)), cudaSuccess);
  s = detail::zeroed_scratch::of_thread(bytes);
  std::vector<unsigned char> got(bytes + sizeof(unsigned), 1);
  ASSERT_EQ(cudaMemcpy(got.data(), s->as<unsigned char>(), got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(got, std::vector<unsigned char>(got.size(), 0));
  s->settle();
}

// The host-synchronous histogram counts into the same kind of scratch (its last block copies the
// counts to mapped host memory and clears them): calls in a row with bin counts up to the
// scratch's capacity (8191 bins and the outside slot of 8-byte counters) and one past it,
// weighted and not. Integer squared distances, half-integer bin edges: exact.
TEST(GpuFastPaths, HistogramHostFormLeavesItsScratchZero)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> h(tbt::quick() ? 1500 : 5000, 47);
  tbt::device_points<float, 3> d(h);
  auto const hd = h.as<double>();
  for (int width : {1, 3}) {
    for (int nb : {64, 8191, 8192, 64, 700}) {
      uniform_bins<float> const bins(-0.5f, -0.5f + float(nb * width), nb);
      uniform_bins<double> const dbins(-0.5, -0.5 + double(nb * width), nb);
      std::vector<unsigned long long> want(nb + 1);
      cpu::histogram(self_pairs(hd.view()), squared_euclidean{}, dbins, want.data());
      auto got = histogram(exec::gpu, self_pairs(d.view()), squared_euclidean{}, bins);
      got.counts.push_back(got.outside);
      EXPECT_EQ(got.counts, want) << "bins " << nb << " width " << width;
      std::vector<double> wwant(nb + 1);
      cpu::histogram(ordered_pairs(hd.weighted_view()), squared_euclidean{}, dbins, wwant.data());
      auto wgot = histogram(exec::gpu, ordered_pairs(d.weighted_view()), squared_euclidean{}, bins);
      wgot.counts.push_back(wgot.outside);
      EXPECT_EQ(wgot.counts, wwant) << "weighted, bins " << nb << " width " << width;
    }
  }
}

// Host-synchronous counts and reductions fold their blocks' partials by ticket in the same
// per-thread zeroed scratch as the histogram and per-point forms (no grid barrier): calls of
// every kind in a row, sizes from one tile pair to many blocks, host and device points, each
// exact against the CPU (integer coordinates), and the scratch all zero after each call.
TEST(GpuFastPaths, CountAndReductionHostFormsLeaveTheScratchZero)
{
  TBT_REQUIRE_GPU();
  auto scratch_is_zero = [] {
    constexpr std::size_t bytes = detail::zeroed_scratch::capacity + sizeof(unsigned);
    detail::zeroed_scratch* s   = detail::zeroed_scratch::of_thread(detail::zeroed_scratch::capacity);
    std::vector<unsigned char> got(bytes, 1);
    EXPECT_EQ(cudaMemcpy(got.data(), s->as<unsigned char>(), bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    s->settle();  // only read
    return got == std::vector<unsigned char>(bytes, 0);
  };
  uniform_bins<float> const bins(-0.5f, 99.5f, 50);
  uniform_bins<double> const dbins(-0.5, 99.5, 50);
  for (std::int64_t n : {2, 100, 4096, tbt::quick() ? 9000 : 40000}) {
    tbt::host_points<float, 3> h(n, 48);
    tbt::device_points<float, 3> d(h);
    auto const hd = h.as<double>();
    for (float r : {5.f, 11.f}) {
      auto const want = cpu::count_pairs(self_pairs(hd.view()), within_radius(double(r)));
      EXPECT_EQ(count_pairs(exec::gpu, self_pairs(d.view()), within_radius(r)), want) << n;
      EXPECT_TRUE(scratch_is_zero()) << "count, n " << n;
      EXPECT_EQ(count_pairs(exec::gpu, self_pairs(h.view()), within_radius(r)), want) << "host points " << n;
      auto const wwant = cpu::count_pairs(ordered_pairs(hd.weighted_view()), within_radius(double(r)));
      EXPECT_EQ(count_pairs(exec::gpu, ordered_pairs(d.weighted_view()), within_radius(r)), wwant) << n;
      EXPECT_TRUE(scratch_is_zero()) << "weighted count, n " << n;
      // Sums of integer squared distances in double: exact in any order.
      double const sum = reduce_pairs(exec::gpu, self_pairs(d.view()), squared_euclidean{}, cuda::std::plus<double>{}, 0.0);
      EXPECT_EQ(sum, reduce_pairs(exec::cpu, self_pairs(hd.view()), squared_euclidean{}, cuda::std::plus<double>{}, 0.0)) << n;
      EXPECT_TRUE(scratch_is_zero()) << "sum, n " << n;
      auto got = histogram(exec::gpu, self_pairs(d.view()), squared_euclidean{}, bins);
      got.counts.push_back(got.outside);
      std::vector<unsigned long long> hwant(51);
      cpu::histogram(self_pairs(hd.view()), squared_euclidean{}, dbins, hwant.data());
      EXPECT_EQ(got.counts, hwant) << n;
      EXPECT_TRUE(scratch_is_zero()) << "histogram, n " << n;
    }
  }
}
