// What the GPU tests of row joins and sums share (test_gpu_row_join.cu, test_gpu_row_join_pools.cu).
#pragma once

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
