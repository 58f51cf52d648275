// Joins and per-point sums of high-dimensional rows on the GPU (tensor cores) against the CPU
// backend's exact evaluation: a join must give the same pairs (data built to put many pairs
// exactly on the threshold, and one ulp either side), each record's value within the proven
// margin of the exact one; per-point sums within the error the margin allows each term.
#include "common.cuh"
#include "rows_data.cuh"

#include <twobody/twobody.cuh>

#include <gtest/gtest.h>
#include <thrust/device_vector.h>

#include <cmath>
#include <random>

using namespace twobody;
using K = detail::row_metric_kind;

namespace {

/// Exact squared norms of the rows of a host set.
template <class T>
std::vector<double> norms_of(tbt::host_rows<T> const& a)
{
  std::vector<double> n(static_cast<std::size_t>(a.n));
  for (std::int64_t i = 0; i < a.n; ++i) {
    for (int k = 0; k < a.dims; ++k) { n[static_cast<std::size_t>(i)] += a.at(i, k) * a.at(i, k); }
  }
  return n;
}

/// GPU join and CPU join of the same predicate: the same pairs, values within the margin.
template <class T, class Pred>
void expect_same_join(pair_set<rows<T>> const& pairs, tbt::host_rows<T> const& a, tbt::host_rows<T> const& b, Pred pred,
                      std::string const& what, join_options const& opt = {})
{
  auto const na = norms_of(a), nb = pairs.mode == pair_mode::cross ? norms_of(b) : na;
  constexpr K m = detail::row_predicate<Pred>::metric;
  auto const cpu = join(exec::cpu, pairs, pred).to_host();
  auto const gpu = join(exec::gpu, pairs, pred, opt).to_host();
  tbt::expect_same_records(gpu, cpu, what + " " + to_string(pairs.mode) + " dims " + std::to_string(a.dims),
                           [&](std::uint32_t i, std::uint32_t j, float v) { return tbt::margin_bound<T>(m, a.dims, na[i], nb[j], v); });
}

template <class T>
void joins_on_every_metric(pair_set<rows<T>> const& pairs, tbt::host_rows<T> const& a, tbt::host_rows<T> const& b)
{
  for (int shift = -1; shift <= 1; ++shift) {
    auto at = [&](K m) {
      float const v = tbt::most_common_value(m, a);
      return shift == 0 ? v : std::nextafter(v, shift < 0 ? -INFINITY : INFINITY);
    };
    std::string const s = " shift " + std::to_string(shift);
    expect_same_join(pairs, a, b, closer_than(squared_euclidean{}, at(K::squared_euclidean)), "squared_euclidean" + s);
    expect_same_join(pairs, a, b, detail::at_most(euclidean{}, at(K::euclidean)), "euclidean <=" + s);
    expect_same_join(pairs, a, b, at_least(dot_product{}, at(K::dot_product)), "dot_product" + s);
    expect_same_join(pairs, a, b, at_least(cosine_similarity{}, at(K::cosine_similarity)), "cosine_similarity" + s);
    expect_same_join(pairs, a, b, closer_than(cosine_distance{}, at(K::cosine_distance)), "cosine_distance" + s);
  }
}

/// GPU and CPU per-point sums of gaussian_kernel(h) and function_of(euclidean, 1 / (1 + v)):
/// each GPU term is f of a value within the margin of the exact one, so the sums may differ by
/// sum_j |f'| margin_j, plus float rounding within a tile's partial sums.
template <class T>
void expect_close_sums(pair_set<rows<T>> const& pairs, tbt::host_rows<T> const& a, tbt::host_rows<T> const& b, float h,
                       std::string const& what)
{
  auto const na = norms_of(a), nb = pairs.mode == pair_mode::cross ? norms_of(b) : na;
  auto const& other = pairs.mode == pair_mode::cross ? b : a;
  std::vector<double> tol_g(static_cast<std::size_t>(a.n)), tol_i(tol_g.size());
  double const k = 1.0 / (2.0 * h * h);
  tbt::for_each_pair(pairs.mode, a.n, other.n, [&](std::int64_t i, std::int64_t j) {
    double const d2 = tbt::reference_value(K::squared_euclidean, a, i, other, j);
    double const d  = tbt::reference_value(K::euclidean, a, i, other, j);
    double const g  = std::exp(-d2 * k);
    double const m2 = tbt::margin_bound<T>(K::squared_euclidean, a.dims, na[i], nb[j], d2);
    double const m1 = tbt::margin_bound<T>(K::euclidean, a.dims, na[i], nb[j], d);
    tol_g[static_cast<std::size_t>(i)] += g * std::expm1(k * m2) + g * (1e-5 + 2e-7 * d2 * k);
    tol_i[static_cast<std::size_t>(i)] += m1 / ((1.0 + std::max(0.0, d - m1)) * (1.0 + std::max(0.0, d - m1))) + 1e-5 / (1.0 + d);
  });
  auto const cg = sum_per_point(exec::cpu, pairs, gaussian_kernel(h));
  auto const gg = sum_per_point(exec::gpu, pairs, gaussian_kernel(h));
  auto const ci = sum_per_point(exec::cpu, pairs, function_of(euclidean{}, tbt::inverse_quadratic{}));
  auto const gi = sum_per_point(exec::gpu, pairs, function_of(euclidean{}, tbt::inverse_quadratic{}));
  ASSERT_EQ(gg.size(), cg.size());
  ASSERT_EQ(gi.size(), ci.size());
  std::size_t bad_g = 0, bad_i = 0;
  for (std::size_t i = 0; i < cg.size(); ++i) {
    if (!(std::fabs(gg[i] - cg[i]) <= tol_g[i]) && bad_g++ == 0) {
      ADD_FAILURE() << what << " gaussian point " << i << ": gpu " << gg[i] << " cpu " << cg[i] << " tolerance " << tol_g[i];
    }
    if (!(std::fabs(gi[i] - ci[i]) <= tol_i[i]) && bad_i++ == 0) {
      ADD_FAILURE() << what << " inverse quadratic point " << i << ": gpu " << gi[i] << " cpu " << ci[i] << " tolerance " << tol_i[i];
    }
  }
  EXPECT_EQ(bad_g + bad_i, 0u) << what;
}

/// Gaussian rows in which every other row is a small perturbation of the one before.
template <class T>
tbt::host_rows<T> gaussian_rows(std::int64_t n, int dims, unsigned seed)
{
  tbt::host_rows<T> r(n, dims, seed);
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd;
  for (std::int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < dims; ++k) {
      float const base = i % 2 == 1 ? static_cast<float>(r.at(i - 1, k)) : nd(rng);
      r.data[static_cast<std::size_t>(i * dims + k)] = tbt::to_elem<T>(i % 2 == 1 ? base + 1e-3f * nd(rng) : base);
    }
  }
  return r;
}

}  // namespace

template <class T>
class GpuRowJoin : public ::testing::Test {};
using RowTypes = ::testing::Types<float, __half, __nv_bfloat16, double>;
TYPED_TEST_SUITE(GpuRowJoin, RowTypes);

TYPED_TEST(GpuRowJoin, JoinsOnTiesEqualTheCpu)
{
  TBT_REQUIRE_GPU();
  using T = TypeParam;
  for (int dims : {1, 37, 128, 300}) {
    tbt::host_rows<T> const a(300, dims, 100 + dims), b(333, dims, 200 + dims);
    joins_on_every_metric(self_pairs(a.view()), a, a);
    joins_on_every_metric(cross_pairs(a.view(), b.view()), a, b);
    joins_on_every_metric(ordered_pairs(a.view()), a, a);
  }
}

TYPED_TEST(GpuRowJoin, JoinsOfRealValuedRowsEqualTheCpu)
{
  TBT_REQUIRE_GPU();
  using T = TypeParam;
  for (int dims : {96, 960}) {
    auto const a = gaussian_rows<T>(257, dims, dims);
    auto const pairs = self_pairs(a.view());
    auto const h = histogram(exec::cpu, pairs, euclidean{}, uniform_bins<float>(0.f, 100.f, 1000));
    int best = 0;
    for (int k = 1; k < 1000; ++k) { best = h.counts[k] > h.counts[best] ? k : best; }
    expect_same_join(pairs, a, a, closer_than(euclidean{}, 0.1f * static_cast<float>(best) + 0.05f), "gaussian, dense threshold");
    expect_same_join(pairs, a, a, closer_than(euclidean{}, 1e-3f * std::sqrt(float(dims))), "gaussian, near duplicates");
    expect_same_join(pairs, a, a, at_least(cosine_similarity{}, 0.f), "gaussian, cosine");
  }
}

TYPED_TEST(GpuRowJoin, KernelSumsAreWithinTheMarginOfTheCpu)
{
  TBT_REQUIRE_GPU();
  using T = TypeParam;
  for (int dims : {1, 37, 128, 300}) {
    tbt::host_rows<T> const a(300, dims, 300 + dims), b(333, dims, 400 + dims);
    float const h = 0.5f * std::sqrt(static_cast<float>(dims));  // terms from about 1 down to e^-32
    expect_close_sums(ordered_pairs(a.view()), a, a, h, "ordered");
    expect_close_sums(cross_pairs(a.view(), b.view()), a, b, h, "cross");
  }
  auto const g = gaussian_rows<T>(400, 960, 9);
  expect_close_sums(ordered_pairs(g.view()), g, g, 1.0f, "gaussian rows");
}

TEST(GpuRowJoinRounds, SmallPoolsHostResultsAndStreamingGiveEveryPairOnce)
{
  TBT_REQUIRE_GPU();
  // 1000 integer rows and a threshold at the most common squared distance: hundreds of
  // thousands of records, and a pool of 40,000 (fixed) runs out again and again.
  tbt::host_rows<__half> const a(1000, 24, 77);
  auto const pairs = self_pairs(a.view());
  float const t    = tbt::most_common_value(K::squared_euclidean, a);
  auto const pred  = closer_than(squared_euclidean{}, t);
  auto const want  = join(exec::cpu, pairs, pred).to_host();
  ASSERT_GT(want.size(), 10000u);
  auto exact = [](std::uint32_t, std::uint32_t, float) { return 0.0; };  // integer rows: the products are exact

  join_options small;
  small.pool_records = 40000;
  small.grow_pool    = false;
  auto const dev = join(exec::gpu, pairs, pred, small);
  EXPECT_GT(dev.stats().rounds, 1);
  EXPECT_GT(dev.stats().units_rolled_back, 0u);
  tbt::expect_same_records(dev.to_host(), want, "small pool, device result", exact);

  join_options host = small;
  host.location     = result_location::host;
  tbt::expect_same_records(join(exec::gpu, pairs, pred, host).to_host(), want, "small pool, host result", exact);

  std::vector<index_pair_value<float>> streamed;
  auto const st = join_each(exec::gpu, pairs, pred,
                            [&](index_pair_value<float> const* r, std::size_t n) { streamed.insert(streamed.end(), r, r + n); }, small);
  EXPECT_EQ(st.results, want.size());
  tbt::expect_same_records(streamed, want, "join_each", exact);

  // Warp-owned pages (the recomputed pairs are pushed by their whole warp) and thread-owned ones.
  using warp_pages   = output::direct_output_buffer<128, output::page_owner::warp>;
  using thread_pages = output::direct_output_buffer<32, output::page_owner::thread>;
  auto const by_warp = join<warp_pages>(exec::gpu, pairs, pred, small);
  EXPECT_GT(by_warp.stats().rounds, 1);
  tbt::expect_same_records(by_warp.to_host(), want, "small pool, warp pages", exact);
  tbt::expect_same_records(join<thread_pages>(exec::gpu, pairs, pred, small).to_host(), want, "small pool, thread pages", exact);
  auto const g = gaussian_rows<__half>(1000, 200, 3);
  auto const gp = self_pairs(g.view());
  auto const near = closer_than(euclidean{}, 0.03f);  // the near-duplicates, recomputed (and pushed) by whole warps
  auto const gw = join(exec::cpu, gp, near).to_host();
  ASSERT_GT(gw.size(), 300u);
  auto const na = norms_of(g);
  auto margin = [&](std::uint32_t i, std::uint32_t j, float v) { return tbt::margin_bound<__half>(K::euclidean, g.dims, na[i], na[j], v); };
  tbt::expect_same_records(join<warp_pages>(exec::gpu, gp, near).to_host(), gw, "near duplicates, warp pages", margin);
  tbt::expect_same_records(join<thread_pages>(exec::gpu, gp, near).to_host(), gw, "near duplicates, thread pages", margin);

  auto const estimated = join(exec::gpu, pairs, pred);  // the sampled estimate sizes the pool
  EXPECT_EQ(estimated.stats().rounds, 1);
  EXPECT_GT(estimated.stats().estimated_results, 0u);
  tbt::expect_same_records(estimated.to_host(), want, "estimated pool", exact);
}

TEST(GpuRowJoinMemory, DeviceRowsNaNRowsAndTheDeviceSumForm)
{
  TBT_REQUIRE_GPU();
  std::int64_t const ld = 70;
  tbt::host_rows<__nv_bfloat16> a(4100, 64, 5, 2, ld), b(333, 64, 6, 2, ld);
  a.data[static_cast<std::size_t>(17 * ld + 3)] = tbt::to_elem<__nv_bfloat16>(NAN);
  b.data[static_cast<std::size_t>(5 * ld + 60)] = tbt::to_elem<__nv_bfloat16>(NAN);
  thrust::device_vector<__nv_bfloat16> da(a.data.begin(), a.data.end()), db(b.data.begin(), b.data.end());
  auto const ga = make_rows(a.n, a.dims, thrust::raw_pointer_cast(da.data()), ld);
  auto const gb = make_rows(b.n, b.dims, thrust::raw_pointer_cast(db.data()), ld);

  // Joins: no record with a NaN row.
  float const t = tbt::most_common_value(K::euclidean, b);
  auto const gpu = join(exec::gpu, cross_pairs(ga, gb), detail::at_most(euclidean{}, t)).to_host();
  auto const cpu = join(exec::cpu, cross_pairs(a.view(), b.view()), detail::at_most(euclidean{}, t)).to_host();
  for (auto const& r : gpu) {
    EXPECT_NE(r.i, 17u);
    EXPECT_NE(r.j, 5u);
  }
  tbt::expect_same_records(gpu, cpu, "device rows", [](std::uint32_t, std::uint32_t, float) { return 0.0; });

  // Sums into poisoned device memory, float: row 5 of B is every point's partner in ordered
  // mode, so every sum is NaN, as on the CPU.
  thrust::device_vector<float> out(static_cast<std::size_t>(b.n), -12345.0f);
  sum_per_point(ordered_pairs(gb), gaussian_kernel(4.0f), thrust::raw_pointer_cast(out.data()));
  std::vector<float> got(out.begin(), out.end());
  auto const want = sum_per_point(exec::cpu, ordered_pairs(b.view()), gaussian_kernel(4.0f));
  for (std::size_t i = 0; i < got.size(); ++i) { EXPECT_TRUE(std::isnan(got[i])) << i; }
  for (double w : want) { EXPECT_TRUE(std::isnan(w)); }

  auto const cross = sum_per_point(exec::gpu, cross_pairs(ga, gb), gaussian_kernel(4.0f));
  for (double s : cross) { EXPECT_TRUE(std::isnan(s)); }
  auto const own = sum_per_point(exec::gpu, cross_pairs(gb, ga), gaussian_kernel(4.0f));
  auto const own_cpu = sum_per_point(exec::cpu, cross_pairs(b.view(), a.view()), gaussian_kernel(4.0f));
  for (std::size_t i = 0; i < own.size(); ++i) {
    EXPECT_EQ(std::isnan(own[i]), true) << i;  // row 17 of A is a partner of every point of B
    EXPECT_EQ(std::isnan(own_cpu[i]), true) << i;
  }

  // Without NaN: a set of 4100 rows (33 tiles, many atomics per point), float output.
  tbt::host_rows<__half> const c(4100, 40, 8);
  thrust::device_vector<float> sums(static_cast<std::size_t>(c.n), NAN);
  sum_per_point(ordered_pairs(c.view()), gaussian_kernel(3.0f), thrust::raw_pointer_cast(sums.data()));
  std::vector<float> s(sums.begin(), sums.end());
  auto const sc = sum_per_point(exec::cpu, ordered_pairs(c.view()), gaussian_kernel(3.0f));
  for (std::size_t i = 0; i < s.size(); ++i) {
    // Integer rows: exact products; the terms' own float rounding and the float sums remain.
    EXPECT_NEAR(s[i], sc[i], 2e-5 * sc[i] + 1e-30) << i;
  }
}
