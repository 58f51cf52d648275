// k nearest neighbours on the GPU (rows on the tensor cores, float points on the CUDA cores)
// against the CPU backend: every index and value must be equal, on integer data where most
// neighbours tie (ties go to the smaller index), on real-valued data with near-duplicates (many
// partners within the tensor cores' margin), with every segment count, k up to n - 1, NaN rows,
// device rows with a leading dimension and the device-output form.
#include "common.cuh"
#include "rows_data.cuh"

#include <twobody/twobody.cuh>

#include <gtest/gtest.h>
#include <thrust/device_vector.h>

#include <cmath>
#include <cstdlib>
#include <random>

using namespace twobody;

namespace {

/// The GPU's lists with `segments` segments of B per tile of A (0: the library's choice).
template <class T, bool W, class Metric>
neighbors_result gpu_rows(pair_set<rows<T, W>> const& pairs, Metric, int k, int segments)
{
  std::size_t const total = static_cast<std::size_t>(pairs.a.size) * k;
  thrust::device_vector<std::int32_t> idx(total, 12345);  // poisoned
  thrust::device_vector<float> val(total, -12345.f);
  detail::nearest_rows_gpu<T, W, Metric>(pairs, k, thrust::raw_pointer_cast(idx.data()), thrust::raw_pointer_cast(val.data()), 0,
                                         nullptr, segments);
  neighbors_result r;
  r.size = pairs.a.size;
  r.k    = k;
  r.indices.resize(total);
  r.values.resize(total);
  thrust::copy(idx.begin(), idx.end(), r.indices.begin());
  thrust::copy(val.begin(), val.end(), r.values.begin());
  return r;
}

template <class T, bool W, class Metric>
void expect_gpu_equals_cpu(pair_set<rows<T, W>> const& pairs, Metric metric, int k, std::string const& what,
                           std::initializer_list<int> segments = {0})
{
  auto const cpu = nearest_neighbors(exec::cpu, pairs, metric, k);
  std::string const where = what + " mode " + to_string(pairs.mode) + " n " + std::to_string(pairs.a.size) + " dims " +
                            std::to_string(pairs.a.dims) + " k " + std::to_string(k);
  for (int s : segments) {
    tbt::expect_same_neighbors(s == 0 ? nearest_neighbors(exec::gpu, pairs, metric, k) : gpu_rows(pairs, metric, k, s), cpu,
                where + " segments " + std::to_string(s));
  }
}

template <class T, bool W>
void every_metric(pair_set<rows<T, W>> const& pairs, int k)
{
  expect_gpu_equals_cpu(pairs, squared_euclidean{}, k, "squared_euclidean");
  expect_gpu_equals_cpu(pairs, euclidean{}, k, "euclidean");
  expect_gpu_equals_cpu(pairs, dot_product{}, k, "dot_product");
  expect_gpu_equals_cpu(pairs, cosine_similarity{}, k, "cosine_similarity");
  expect_gpu_equals_cpu(pairs, cosine_distance{}, k, "cosine_distance");
}

}  // namespace

template <class T>
class GpuNearest : public ::testing::Test {};
using RowTypes = ::testing::Types<float, __half, __nv_bfloat16, double>;
TYPED_TEST_SUITE(GpuNearest, RowTypes);

TYPED_TEST(GpuNearest, TiesEqualTheCpuOnEveryMetric)
{
  TBT_REQUIRE_GPU();
  using T = TypeParam;
  for (int dims : {1, 37, 128, 300}) {
    tbt::host_rows<T> const a(300, dims, 100 + dims), b(333, dims, 200 + dims);
    for (int k : {1, 10, 100}) {
      every_metric(ordered_pairs(a.view()), k);
      every_metric(cross_pairs(a.view(), b.view()), k);
    }
  }
}

TYPED_TEST(GpuNearest, EverySegmentCountAndKUpToNMinusOne)
{
  TBT_REQUIRE_GPU();
  using T = TypeParam;
  tbt::host_rows<T> const a(700, 64, 7, 1);
  // k <= 48 keeps candidates (nearest_candidates_visitor: 32 slots to k = 16, 64 to 48), larger
  // k exact lists.
  for (int k : {16, 17, 48, 49, 256, 699}) {
    expect_gpu_equals_cpu(ordered_pairs(a.view()), euclidean{}, k, "euclidean", {0, 1, 2, 6});
    expect_gpu_equals_cpu(ordered_pairs(a.view()), cosine_similarity{}, k, "cosine_similarity", {1, 3});
  }
  // Many tiles of A and of B, every list updated many times.
  tbt::host_rows<T> const big(tbt::quick() ? 1500 : 4100, 32, 8, 3);
  expect_gpu_equals_cpu(ordered_pairs(big.view()), squared_euclidean{}, 100, "squared_euclidean", {0, 1});
  expect_gpu_equals_cpu(ordered_pairs(big.view()), dot_product{}, 10, "dot_product", {0, 1});
}

// 16-bit rows of 2 and 4 chunks staged by the tensor memory accelerator (and by cp.async): each
// tile pair's products load the next one's first chunk ahead, within a unit's column tiles and
// from one unit to the next, so every segment count must still see each partner once.
TEST(GpuNearestMemory, StagesLoadedAheadAcrossTilesAndUnits)
{
  TBT_REQUIRE_GPU();
  for (int dims : {128, 256}) {
    tbt::host_rows<__half> const a(tbt::quick() ? 1100 : 2100, dims, 30 + dims, 2), b(900, dims, 40 + dims, 2);
    for (bool const tma : {true, false}) {
      ASSERT_EQ(tma ? unsetenv("TWOBODY_NO_TMA") : setenv("TWOBODY_NO_TMA", "1", 1), 0);
      std::string const staging = tma ? "tensor memory accelerator, " : "cp.async, ";
      for (int k : {10, 100}) {
        expect_gpu_equals_cpu(ordered_pairs(a.view()), euclidean{}, k, staging + "euclidean", {0, 1, 3});
        expect_gpu_equals_cpu(cross_pairs(a.view(), b.view()), dot_product{}, k, staging + "dot_product", {0, 2});
      }
    }
    ASSERT_EQ(unsetenv("TWOBODY_NO_TMA"), 0);
  }
}

TEST(GpuNearestReal, GaussianRowsWithNearDuplicates)
{
  TBT_REQUIRE_GPU();
  // Every other row a tiny perturbation of the one before: its nearest neighbour lies far
  // below the tensor cores' margin, and the rest of its list among many real-valued values.
  for (int dims : {96, 960}) {
    std::int64_t const n = 513;
    std::mt19937 rng(dims);
    std::normal_distribution<float> nd;
    std::vector<float> xf(static_cast<std::size_t>(n * dims));
    for (std::int64_t i = 0; i < n; ++i) {
      for (int k = 0; k < dims; ++k) {
        std::size_t const at = static_cast<std::size_t>(i * dims + k);
        xf[at]               = i % 2 == 1 ? xf[at - dims] + 1e-3f * nd(rng) : nd(rng);
      }
    }
    std::vector<__half> xh(xf.size());
    for (std::size_t q = 0; q < xf.size(); ++q) { xh[q] = __float2half_rn(xf[q]); }
    auto const rf = make_rows(n, dims, xf.data());
    auto const rh = make_rows(n, dims, xh.data());
    for (int k : {1, 10, 33, 64}) {
      expect_gpu_equals_cpu(ordered_pairs(rf), euclidean{}, k, "float euclidean");
      expect_gpu_equals_cpu(ordered_pairs(rh), euclidean{}, k, "half euclidean");
      expect_gpu_equals_cpu(ordered_pairs(rf), cosine_similarity{}, k, "float cosine");
      expect_gpu_equals_cpu(cross_pairs(rh, make_rows(n / 2, dims, xh.data() + dims)), dot_product{}, k, "half dot");
    }
  }
}

TEST(GpuNearestMemory, DeviceRowsNaNRowsAndTheDeviceOutputForm)
{
  TBT_REQUIRE_GPU();
  tbt::host_rows<__half> a(260, 40, 3, 2, 48);  // ld 48: the gap holds NaN and must not be read
  a.data[static_cast<std::size_t>(17 * 48 + 5)] = __float2half(NAN);  // row 17: every value NaN
  thrust::device_vector<__half> d(a.data.begin(), a.data.end());
  auto const dev = make_rows(260, 40, thrust::raw_pointer_cast(d.data()), 48);
  int const k    = 259;
  auto const cpu = nearest_neighbors(exec::cpu, ordered_pairs(a.view()), squared_euclidean{}, k);
  EXPECT_EQ(cpu.index(17, 0), -1);
  EXPECT_EQ(cpu.index(0, k - 1), -1);  // 258 partners have values
  thrust::device_vector<std::int32_t> idx(260 * k, 777);
  thrust::device_vector<float> val(260 * k, 777.f);
  nearest_neighbors(ordered_pairs(dev), squared_euclidean{}, k, thrust::raw_pointer_cast(idx.data()), thrust::raw_pointer_cast(val.data()));
  neighbors_result gpu;
  gpu.size = 260;
  gpu.k    = k;
  gpu.indices.resize(idx.size());
  gpu.values.resize(val.size());
  thrust::copy(idx.begin(), idx.end(), gpu.indices.begin());
  thrust::copy(val.begin(), val.end(), gpu.values.begin());
  tbt::expect_same_neighbors(gpu, cpu, "device rows, device output");
  // Candidate lists (k <= 48): row 17's partners, and every row's partner 17, have no finite
  // approximation, so they stay candidates until recomputed; row 17's fill its slots again and again.
  for (int kc : {10, 40}) {
    tbt::expect_same_neighbors(nearest_neighbors(exec::gpu, ordered_pairs(dev), squared_euclidean{}, kc),
                               nearest_neighbors(exec::cpu, ordered_pairs(a.view()), squared_euclidean{}, kc),
                               "device rows with a NaN row, k " + std::to_string(kc));
  }
  // An empty A: nothing to find, nothing launched.
  auto const none = nearest_neighbors(exec::gpu, cross_pairs(make_rows<__half>(0, 40, nullptr), dev), euclidean{}, 5);
  EXPECT_EQ(none.size, 0);
  EXPECT_TRUE(none.indices.empty());
}

TEST(GpuNearestPoints, FloatPointsEqualTheCpu)
{
  TBT_REQUIRE_GPU();
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> c(-4, 4);
  std::int64_t const n = 1000;
  std::vector<float> x(n), y(n), z(n);
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(c(rng));
    y[i] = static_cast<float>(c(rng));
    z[i] = static_cast<float>(c(rng));
  }
  x[11] = NAN;
  auto const p = make_points(n, x.data(), y.data(), z.data());
  auto const q = make_points(300, x.data() + 400, y.data() + 400, z.data() + 400);
  for (int k : {1, 7, 64, 299}) {
    tbt::expect_same_neighbors(nearest_neighbors(exec::gpu, ordered_pairs(p), squared_euclidean{}, k),
                nearest_neighbors(exec::cpu, ordered_pairs(p), squared_euclidean{}, k), "points ordered");
    tbt::expect_same_neighbors(nearest_neighbors(exec::gpu, cross_pairs(p, q), euclidean{}, k),
                nearest_neighbors(exec::cpu, cross_pairs(p, q), euclidean{}, k), "points cross");
    tbt::expect_same_neighbors(nearest_neighbors(exec::gpu, cross_pairs(q, p), dot_product{}, k),
                nearest_neighbors(exec::cpu, cross_pairs(q, p), dot_product{}, k), "points dot product");
  }
  // Device-resident points and a forced segment count.
  thrust::device_vector<float> dx(x), dy(y), dz(z);
  auto const dp = make_points(n, thrust::raw_pointer_cast(dx.data()), thrust::raw_pointer_cast(dy.data()),
                              thrust::raw_pointer_cast(dz.data()));
  thrust::device_vector<std::int32_t> idx(n * 20, 5);
  thrust::device_vector<float> val(n * 20, 5.f);
  detail::nearest_points_gpu(ordered_pairs(dp), squared_euclidean{}, 20, thrust::raw_pointer_cast(idx.data()),
                             thrust::raw_pointer_cast(val.data()), 0, 3);
  auto const cpu = nearest_neighbors(exec::cpu, ordered_pairs(p), squared_euclidean{}, 20);
  std::vector<std::int32_t> hi(idx.size());
  thrust::copy(idx.begin(), idx.end(), hi.begin());
  EXPECT_EQ(hi, cpu.indices);
}
