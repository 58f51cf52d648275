// Kernel sums of rows within the margin of the CPU, row joins through small pools, host results
// and streaming, device rows, NaN rows and the device sum form. Part of test_gpu_row_join
// (test_gpu_row_join.cu has the typed joins on ties and on real-valued rows).
#include "gpu_row_join_checks.cuh"

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
