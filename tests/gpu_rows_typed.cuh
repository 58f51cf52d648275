// The typed tests of high-dimensional rows on the GPU (the tensor cores, input::mma_tile, and the
// CUDA cores, input::simt_rows) against the CPU backend's exact evaluation: every count and
// histogram must be equal, including data built to put many pairs exactly on the threshold or on
// bin edges, and real-valued data near a threshold. One test binary per row type instantiates
// them (test_gpu_rows_<type>.cu), so that no translation unit compiles all four.
#pragma once
#include "gpu_rows_checks.cuh"

template <class T>
class GpuRows : public ::testing::Test {};
TYPED_TEST_SUITE_P(GpuRows);

TYPED_TEST_P(GpuRows, CountsOnTiesEqualTheCpu)
{
  TBT_REQUIRE_GPU();
  using T = TypeParam;
  for (int dims : {1, 7, 37, 128, 300}) {
    tbt::host_rows<T> const a(300, dims, 100 + dims), b(333, dims, 200 + dims);
    counts_on_every_metric(self_pairs(a.view()), a);
    counts_on_every_metric(cross_pairs(a.view(), b.view()), a);
    counts_on_every_metric(ordered_pairs(a.view()), a);
  }
}

// More tile pairs than blocks (20 and 22 tiles of 128 rows: 210 to 440 tile pairs on the
// persistent grid), so that blocks take several in turn and load each next one's first chunks
// while classifying the one before (mma_traversal::run, core::begin); D = 130 takes wgmma on
// sm_90a for 16-bit rows, D = 7 mma.sync.
TYPED_TEST_P(GpuRows, ManyTilePairsPerBlockEqualTheCpu)
{
  TBT_REQUIRE_GPU();
  using T = TypeParam;
  for (int dims : {7, 130}) {
    tbt::host_rows<T> const a(2500, dims, 300 + dims), b(2700, dims, 400 + dims);
    counts_on_every_metric(self_pairs(a.view()), a);
    counts_on_every_metric(cross_pairs(a.view(), b.view()), a);
    if (dims == 7) { counts_on_every_metric(ordered_pairs(a.view()), a); }
  }
}

TYPED_TEST_P(GpuRows, HistogramsWithEveryPairOnAnEdgeEqualTheCpu)
{
  TBT_REQUIRE_GPU();
  using T = TypeParam;
  tbt::host_rows<T> const a(400, 64, 7), b(130, 64, 8);
  uniform_bins<float> const sq(0.f, 400.f, 400);  // width 1: every integer squared distance is an edge
  uniform_bins<float> const dist(0.f, 20.f, 97);
  uniform_bins<float> const cosd(0.f, 2.f, 64);  // edges at multiples of 1/32
  for (auto const& pairs : {self_pairs(a.view()), cross_pairs(a.view(), b.view())}) {
    auto expect_same = [&](auto metric, uniform_bins<float> const& bins, char const* what) {
      auto const c = histogram(exec::cpu, pairs, metric, bins);
      auto const g = histogram(exec::gpu, pairs, metric, bins);
      EXPECT_EQ(g.counts, c.counts) << what << " " << to_string(pairs.mode);
      EXPECT_EQ(g.outside, c.outside) << what;
      EXPECT_EQ(g.pairs, c.pairs);
      auto const s = histogram<input::simt_rows>(exec::gpu, pairs, metric, bins);
      EXPECT_EQ(s.counts, c.counts) << "simt_rows, " << what << " " << to_string(pairs.mode);
      EXPECT_EQ(s.outside, c.outside) << "simt_rows, " << what;
    };
    expect_same(squared_euclidean{}, sq, "squared_euclidean");
    expect_same(euclidean{}, dist, "euclidean");
    expect_same(cosine_distance{}, cosd, "cosine_distance");
    expect_same(dot_product{}, uniform_bins<float>(-40.f, 40.f, 80), "dot_product");
  }
}

TYPED_TEST_P(GpuRows, RealValuedRowsNearTheThresholdEqualTheCpu)
{
  TBT_REQUIRE_GPU();
  using T = TypeParam;
  // Gaussian rows, and their pairs' median distance as the threshold: real values with no
  // structure, about half the pairs on each side and many within the margin.
  for (int dims : {96, 960}) {
    std::int64_t const n = 257;
    std::vector<T> x(static_cast<std::size_t>(n * dims));
    std::mt19937 rng(dims);
    std::normal_distribution<float> nd;
    // Every other row is a small perturbation of the one before: distances near 0 as well.
    for (std::int64_t i = 0; i < n; ++i) {
      for (int k = 0; k < dims; ++k) {
        float const base = i % 2 == 1 ? detail::as_double(x[(i - 1) * dims + k]) : nd(rng);
        x[static_cast<std::size_t>(i * dims + k)] = tbt::to_elem<T>(i % 2 == 1 ? base + 1e-3f * nd(rng) : base);
      }
    }
    auto const r = make_rows(n, dims, x.data());
    auto const cpu_h = histogram(exec::cpu, self_pairs(r), euclidean{}, uniform_bins<float>(0.f, 100.f, 1000));
    // The threshold: a value where the histogram shows many pairs.
    int best = 0;
    for (int k = 1; k < 1000; ++k) { best = cpu_h.counts[k] > cpu_h.counts[best] ? k : best; }
    float const t = 0.1f * static_cast<float>(best) + 0.05f;
    expect_same_count(self_pairs(r), closer_than(euclidean{}, t), "euclidean, gaussian rows");
    expect_same_count(self_pairs(r), closer_than(euclidean{}, 1e-3f * std::sqrt(float(dims))), "euclidean, close pairs");
    expect_same_count(self_pairs(r), at_least(cosine_similarity{}, 0.f), "cosine, gaussian rows");
    auto const gpu_h = histogram(exec::gpu, self_pairs(r), euclidean{}, uniform_bins<float>(0.f, 100.f, 1000));
    EXPECT_EQ(gpu_h.counts, cpu_h.counts);
    auto const simt_h = histogram<input::simt_rows>(exec::gpu, self_pairs(r), euclidean{}, uniform_bins<float>(0.f, 100.f, 1000));
    EXPECT_EQ(simt_h.counts, cpu_h.counts) << "simt_rows";
  }
}

REGISTER_TYPED_TEST_SUITE_P(GpuRows, CountsOnTiesEqualTheCpu, ManyTilePairsPerBlockEqualTheCpu,
                            HistogramsWithEveryPairOnAnEdgeEqualTheCpu, RealValuedRowsNearTheThresholdEqualTheCpu);
