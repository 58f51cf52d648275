// Joins of high-dimensional rows on the GPU (tensor cores) against the CPU backend's exact
// evaluation: a join must give the same pairs (data built to put many pairs exactly on the
// threshold, and one ulp either side), each record's value within the proven margin of the exact
// one (gpu_row_join_checks.cuh). Kernel sums, pools and device rows: test_gpu_row_join_pools.cu.
#include "gpu_row_join_checks.cuh"

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
