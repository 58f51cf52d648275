// k nearest neighbours on the CPU backend (runs everywhere): rows and float points against an
// independent full sort, on integer data with many equal values (ties go to the smaller
// index), NaN rows, the key encoding, the segment choice and the bad-input rules.
#include "common.cuh"
#include "rows_data.cuh"

#include <twobody/twobody.cuh>

#include <gtest/gtest.h>

#include <limits>

using namespace twobody;
using K = detail::row_metric_kind;

namespace {

template <class T>
void rows_against_reference(pair_mode mode, tbt::host_rows<T> const& a, tbt::host_rows<T> const& b, int k)
{
  auto const pairs = mode == pair_mode::cross ? cross_pairs(a.view(), b.view()) : ordered_pairs(a.view());
  tbt::expect_same_neighbors(nearest_neighbors(exec::cpu, pairs, squared_euclidean{}, k), tbt::reference_nearest(mode, K::squared_euclidean, a, b, k),
              "squared_euclidean");
  tbt::expect_same_neighbors(nearest_neighbors(exec::cpu, pairs, euclidean{}, k), tbt::reference_nearest(mode, K::euclidean, a, b, k), "euclidean");
  tbt::expect_same_neighbors(nearest_neighbors(exec::cpu, pairs, dot_product{}, k), tbt::reference_nearest(mode, K::dot_product, a, b, k),
              "dot_product");
  tbt::expect_same_neighbors(nearest_neighbors(exec::cpu, pairs, cosine_similarity{}, k), tbt::reference_nearest(mode, K::cosine_similarity, a, b, k),
              "cosine_similarity");
  tbt::expect_same_neighbors(nearest_neighbors(exec::cpu, pairs, cosine_distance{}, k), tbt::reference_nearest(mode, K::cosine_distance, a, b, k),
              "cosine_distance");
}

}  // namespace

TEST(Nearest, KeysOrderLikeScoresThenIndices)
{
  float const scores[] = {-INFINITY, -3.5f, -1e-30f, 0.0f, 1e-30f, 2.0f, 2.5f, INFINITY};
  for (std::size_t x = 0; x + 1 < std::size(scores); ++x) {
    EXPECT_LT(detail::make_neighbor_key(scores[x], 7), detail::make_neighbor_key(scores[x + 1], 0)) << scores[x];
    EXPECT_EQ(detail::neighbor_score(detail::make_neighbor_key(scores[x], 7)), scores[x]);
  }
  EXPECT_EQ(detail::make_neighbor_key(-0.0f, 3), detail::make_neighbor_key(0.0f, 3));  // one zero
  EXPECT_LT(detail::make_neighbor_key(1.0f, 3), detail::make_neighbor_key(1.0f, 4));   // ties: smaller index first
  EXPECT_LT(detail::make_neighbor_key(INFINITY, 0xfffffffeu), detail::empty_neighbor);
  EXPECT_EQ(detail::neighbor_index(detail::empty_neighbor), -1);
  EXPECT_EQ(detail::neighbor_value(detail::empty_neighbor, false), INFINITY);
  EXPECT_EQ(detail::neighbor_value(detail::empty_neighbor, true), -INFINITY);
  EXPECT_EQ(detail::neighbor_value(detail::make_neighbor_key(-0.75f, 1), true), 0.75f);
}

TEST(Nearest, RowsEqualAFullSortOnTies)
{
  // Coordinates in {-1, 0, 1}: few distinct values, so most neighbours tie with others.
  for (int dims : {1, 5, 40}) {
    tbt::host_rows<float> const a(61, dims, 10 + dims, 1), b(47, dims, 20 + dims, 1);
    for (int k : {1, 4, 46}) {
      rows_against_reference(pair_mode::ordered, a, a, k);
      rows_against_reference(pair_mode::cross, a, b, k);
    }
  }
  tbt::host_rows<__half> const h(50, 33, 5, 2);
  rows_against_reference(pair_mode::ordered, h, h, 49);
  tbt::host_rows<__nv_bfloat16> const bf(50, 17, 6, 2);
  rows_against_reference(pair_mode::cross, bf, bf, 13);
}

TEST(Nearest, NaNRowsAreNeverNeighbours)
{
  tbt::host_rows<float> a(20, 6, 3, 2);
  a.data[3 * 6 + 2] = NAN;  // row 3
  auto const nn = nearest_neighbors(exec::cpu, ordered_pairs(a.view()), euclidean{}, 19);
  for (std::int64_t i = 0; i < 20; ++i) {
    for (int r = 0; r < 19; ++r) {
      if (i == 3) {  // every value of row 3 is NaN: no neighbours at all
        EXPECT_EQ(nn.index(i, r), -1);
        EXPECT_EQ(nn.value(i, r), INFINITY);
      } else {
        EXPECT_NE(nn.index(i, r), 3);
        EXPECT_EQ(nn.index(i, r) == -1, r == 18) << i << " " << r;  // 18 partners with values
      }
    }
  }
  tbt::expect_same_neighbors(nn, tbt::reference_nearest(pair_mode::ordered, K::euclidean, a, a, 19), "NaN row");
}

TEST(Nearest, FloatPointsWithAnyMetric)
{
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> c(-3, 3);
  std::vector<float> x(80), y(80), z(80);
  for (int i = 0; i < 80; ++i) {
    x[i] = static_cast<float>(c(rng));
    y[i] = static_cast<float>(c(rng));
    z[i] = static_cast<float>(c(rng));
  }
  auto const p   = make_points(80, x.data(), y.data(), z.data());
  auto const q   = make_points(30, x.data() + 50, y.data() + 50, z.data() + 50);
  int const k    = 9;
  auto const got = nearest_neighbors(exec::cpu, cross_pairs(p, q), squared_euclidean{}, k);
  for (int i = 0; i < 80; ++i) {
    std::vector<std::pair<float, int>> all;
    for (int j = 0; j < 30; ++j) {
      float const dx = x[i] - x[50 + j], dy = y[i] - y[50 + j], dz = z[i] - z[50 + j];
      all.emplace_back(dx * dx + dy * dy + dz * dz, j);
    }
    std::sort(all.begin(), all.end());
    for (int r = 0; r < k; ++r) {
      EXPECT_EQ(got.index(i, r), all[r].second) << i << " " << r;
      EXPECT_EQ(got.value(i, r), all[r].first);
    }
  }
  // Similarities rank the largest first.
  auto const sim = nearest_neighbors(exec::cpu, ordered_pairs(p), dot_product{}, 3);
  for (int i = 0; i < 80; ++i) {
    EXPECT_GE(sim.value(i, 0), sim.value(i, 1));
    EXPECT_GE(sim.value(i, 1), sim.value(i, 2));
    EXPECT_NE(sim.index(i, 0), i);
  }
}

TEST(Nearest, SegmentsFillTheGridWithinTheMemoryBudget)
{
  EXPECT_EQ(detail::nearest_segments(1000, 1000, 132, 128000, 10), 1);  // 1000 tiles of A: 8 rounds of 7.6
  EXPECT_EQ(detail::nearest_segments(512, 512, 132, 65536, 10), 1);     // 4 rounds of 3.9: one segment
  EXPECT_EQ(detail::nearest_segments(10, 1000, 132, 1280, 10), 12);     // 120 units on 132 blocks: within 15%
  EXPECT_EQ(detail::nearest_segments(32, 32, 132, 4096, 10), 4);        // 128 units on 132 blocks
  EXPECT_EQ(detail::nearest_segments(10, 5, 132, 1280, 10), 5);         // at most B's tiles
  // 2^20 rows of k = 256: one segment's lists are 2 GiB already, so no more segments.
  EXPECT_EQ(detail::nearest_segments(8192, 8192, 132, size_type(1) << 20, 256), 1);
  int const s = detail::nearest_segments(64, 8192, 132, 8192, 1024);
  EXPECT_LE(8192.0 * s * 1024 * 8, double(1 << 30));
  EXPECT_GE(s, 1);
}

TEST(Nearest, BadInputGetsClearErrors)
{
  tbt::host_rows<float> const a(10, 4, 1);
  auto msg = [](auto&& f) {
    try {
      f();
    } catch (error const& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg([&] { nearest_neighbors(exec::cpu, ordered_pairs(a.view()), euclidean{}, 0); }).find("at least 1"), std::string::npos);
  EXPECT_NE(msg([&] { nearest_neighbors(exec::cpu, ordered_pairs(a.view()), euclidean{}, 10); }).find("only 9 partners"),
            std::string::npos);
  EXPECT_NE(msg([&] { nearest_neighbors(exec::cpu, self_pairs(a.view()), euclidean{}, 3); }).find("ordered_pairs"), std::string::npos);
  rows<float> const empty = make_rows<float>(0, 4, nullptr);
  EXPECT_NE(msg([&] { nearest_neighbors(exec::cpu, cross_pairs(a.view(), empty), euclidean{}, 1); }).find("only 0 partners"),
            std::string::npos);
  rows<float> const no_dims = make_rows<float>(10, 0, a.data.data(), 4);
  EXPECT_NE(msg([&] { nearest_neighbors(exec::cpu, ordered_pairs(no_dims), euclidean{}, 1); }).find("dims >= 1"), std::string::npos);
  // An empty A has no neighbours to find: an empty result.
  auto const none = nearest_neighbors(exec::cpu, cross_pairs(empty, a.view()), euclidean{}, 3);
  EXPECT_EQ(none.size, 0);
  EXPECT_TRUE(none.indices.empty());
  // Device output pointers must be device memory.
  std::vector<std::int32_t> hi(30);
  std::vector<float> hv(30);
  if (!tbt::gpu_available()) { return; }
  EXPECT_NE(msg([&] { nearest_neighbors(ordered_pairs(a.view()), euclidean{}, 3, hi.data(), hv.data()); }).find("d_indices"),
            std::string::npos);
}
