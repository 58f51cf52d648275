// High-dimensional rows on the GPU beyond the typed tests (test_gpu_rows_<type>.cu): staging by
// the tensor memory accelerator or cp.async, held-back recomputations, device rows with a leading
// dimension and weights, NaN rows, empty sets, many bins, long rows, and double rows whose
// differences lie below float's precision, each against the CPU backend's exact evaluation.
#include "gpu_rows_checks.cuh"

// 16-bit rows of at least 128 padded coordinates take wgmma on sm_90a with their stages loaded by
// the tensor memory accelerator through the staged rows' tensor map (rows/row_tensor_map.cuh),
// refilled by the last warp done with them, and the next tile pair's first chunk loaded ahead;
// TWOBODY_NO_TMA=1 stages them with cp.async and a barrier per chunk instead. Both must equal the
// CPU, on partial tiles, self and cross pairs, rows of 2, 4, 5, 9 and 15 chunks (batches of 3
// chunks and last batches of 2 and 1), and sets of 24 tiles, whose 300 tile pairs make a block
// take several (the stages' phases run on, and the first chunk of most tile pairs was loaded
// during the one before).
template <class T>
void counts_with_and_without_tma()
{
  struct shape {
    std::int64_t na, nb;
    int dims;
  };
  for (shape const sh : {shape{700, 333, 128}, shape{700, 333, 256}, shape{700, 333, 300}, shape{700, 333, 520}, shape{700, 333, 960},
                         shape{3000, 130, 576}, shape{3000, 130, 128}, shape{3000, 130, 256}}) {
    int const dims = sh.dims;
    tbt::host_rows<T> const a(sh.na, dims, 500 + dims), b(sh.nb, dims, 600 + dims);
    float const t = tbt::most_common_value(K::squared_euclidean, a);
    for (auto const& pairs : {self_pairs(a.view()), cross_pairs(a.view(), b.view())}) {
      std::string const what = "dims " + std::to_string(dims) + ", " + std::to_string(sh.na) + " rows, " + to_string(pairs.mode);
      auto const pred = closer_than(squared_euclidean{}, t);
      auto const cpu  = count_pairs(exec::cpu, pairs, pred);
      auto const bins = uniform_bins<float>(0.f, 2.f * t, 50);
      auto const hc   = histogram(exec::cpu, pairs, squared_euclidean{}, bins);
      EXPECT_GT(cpu, 0u);
      for (bool const tma : {true, false}) {
        ASSERT_EQ(tma ? unsetenv("TWOBODY_NO_TMA") : setenv("TWOBODY_NO_TMA", "1", 1), 0);
        auto const gpu = count_pairs(exec::gpu, pairs, pred);
        auto const hg  = histogram(exec::gpu, pairs, squared_euclidean{}, bins);
        char const* const staging = tma ? "tensor memory accelerator, " : "cp.async, ";
        EXPECT_EQ(gpu, cpu) << staging << what;
        EXPECT_EQ(hg.counts, hc.counts) << staging << what;
        EXPECT_EQ(hg.outside, hc.outside) << staging << what;
      }
      ASSERT_EQ(unsetenv("TWOBODY_NO_TMA"), 0);
    }
  }
}

TEST(GpuRowsMemory, HalfAndBfloat16StagingByTmaOrCpAsyncEqualTheCpu)
{
  TBT_REQUIRE_GPU();
  counts_with_and_without_tma<__half>();
  counts_with_and_without_tma<__nv_bfloat16>();
}

// Counts and histograms hold their uncertain pairs back in a queue of the block and recompute
// them together (mma_traversal::queue_pending): once it holds 256, when a tile pair's would not
// fit beside them, and at the end; a tile pair with more than the queue's 512 is recomputed at
// once. Clusters of rows that differ by one unit in one coordinate put such pairs, at squared
// distances 0 and 2 around thresholds near 2, into chosen tile pairs among pairs far from
// every threshold: 780 in tile pair (0, 0), 64 in every other pair of tiles 1 to 23, and 400 more
// in tile pair (2, 3).
template <class T>
void held_back_recomputations()
{
  for (int dims : {64, 256, 1000}) {
    std::int64_t const n = dims < 1000 ? 3000 : 1500;
    tbt::host_rows<T> a(n, dims, 700 + dims, 20);
    std::mt19937 rng(dims);
    std::uniform_int_distribution<int> coordinate(-20, 20);
    auto cluster = [&](std::vector<std::int64_t> const& members) {
      std::vector<float> base(static_cast<std::size_t>(dims));
      for (auto& x : base) { x = static_cast<float>(coordinate(rng)); }
      for (std::size_t m = 0; m < members.size(); ++m) {
        for (int k = 0; k < dims; ++k) {
          float const x = base[static_cast<std::size_t>(k)] + (k == static_cast<int>(m % dims) ? 1.f : 0.f);
          a.data[static_cast<std::size_t>(members[m] * a.ld + k)] = tbt::to_elem<T>(x);
        }
      }
    };
    std::vector<std::int64_t> first, spread, pair;
    for (std::int64_t r = 0; r < 40; ++r) { first.push_back(r); }
    for (std::int64_t t = 1; t * 128 < n; ++t) {
      for (std::int64_t r = 0; r < 8; ++r) { spread.push_back(t * 128 + r); }
    }
    for (std::int64_t t : {2, 3}) {
      for (std::int64_t r = 8; r < 28; ++r) { pair.push_back(t * 128 + r); }
    }
    cluster(first);
    cluster(spread);
    cluster(pair);
    std::string const what = std::string("held back, dims ") + std::to_string(dims);
    for (float t : {1.f, 2.f, std::nextafter(2.f, INFINITY), 4.5f}) {
      auto const pred = closer_than(squared_euclidean{}, t);
      expect_same_count(self_pairs(a.view()), pred, (what + ", t = " + std::to_string(t)).c_str());
      double const cpu_w = count_pairs(exec::cpu, self_pairs(a.weighted()), pred);
      EXPECT_EQ(count_pairs(exec::gpu, self_pairs(a.weighted()), pred), cpu_w) << what << ", weighted";  // dyadic weights: exact
    }
    EXPECT_GE(count_pairs(exec::cpu, self_pairs(a.view()), closer_than(squared_euclidean{}, 4.5f)), 780u) << what;
    uniform_bins<float> const bins(0.f, 8.f, 8);  // edges at the clusters' distances
    auto const hc = histogram(exec::cpu, self_pairs(a.view()), squared_euclidean{}, bins);
    auto const hg = histogram(exec::gpu, self_pairs(a.view()), squared_euclidean{}, bins);
    EXPECT_EQ(hg.counts, hc.counts) << what;
    EXPECT_EQ(hg.outside, hc.outside) << what;
  }
}

TEST(GpuRowsMemory, HeldBackRecomputationsEqualTheCpu)
{
  TBT_REQUIRE_GPU();
  held_back_recomputations<__half>();
  held_back_recomputations<__nv_bfloat16>();
  held_back_recomputations<float>();
}

TEST(GpuRowsMemory, DeviceRowsWithLeadingDimensionAndWeights)
{
  TBT_REQUIRE_GPU();
  tbt::host_rows<__half> const a(500, 50, 3, 2, 64);
  thrust::device_vector<__half> d(a.data.begin(), a.data.end());
  thrust::device_vector<float> w(a.w.begin(), a.w.end());
  auto const dev  = make_rows(a.n, a.dims, thrust::raw_pointer_cast(d.data()), a.ld);
  auto const devw = make_weighted_rows(a.n, a.dims, thrust::raw_pointer_cast(d.data()), thrust::raw_pointer_cast(w.data()), a.ld);
  float const t   = tbt::most_common_value(K::squared_euclidean, a);
  auto const pred = closer_than(squared_euclidean{}, t);
  EXPECT_EQ(count_pairs(exec::gpu, self_pairs(dev), pred), count_pairs(exec::cpu, self_pairs(a.view()), pred));
  double const cpu_w = count_pairs(exec::cpu, self_pairs(a.weighted()), pred);
  EXPECT_GT(cpu_w, 0.0);
  EXPECT_EQ(count_pairs(exec::gpu, self_pairs(devw), pred), cpu_w);  // dyadic weights: exact sums
  EXPECT_EQ(count_pairs(exec::gpu, self_pairs(a.weighted()), pred), cpu_w);  // host rows, staged
  try {
    count_pairs(exec::cpu, self_pairs(dev), pred);
    ADD_FAILURE() << "the CPU backend must refuse device rows";
  } catch (twobody::error const& e) {
    EXPECT_NE(std::string(e.what()).find("row set A is in device memory"), std::string::npos) << e.what();
  }
  auto const hw = histogram(exec::gpu, self_pairs(devw), euclidean{}, uniform_bins<float>(0.f, 16.f, 16));
  auto const cw = histogram(exec::cpu, self_pairs(a.weighted()), euclidean{}, uniform_bins<float>(0.f, 16.f, 16));
  EXPECT_EQ(hw.counts, cw.counts);
  EXPECT_EQ(hw.outside, cw.outside);
}

TEST(GpuRowsMemory, NaNRowsEmptySetsAndManyBins)
{
  TBT_REQUIRE_GPU();
  tbt::host_rows<float> a(200, 33, 4);
  a.data[17 * 33 + 5] = NAN;
  a.data[150 * 33 + 0] = INFINITY;
  // Euclidean thresholds decided on squared values, the degenerate ones included (t <= 0: none).
  for (float t : {1e30f, 3.f, INFINITY, 0.f, -1.f}) {
    expect_same_count(self_pairs(a.view()), closer_than(euclidean{}, t), ("NaN and inf rows, t = " + std::to_string(t)).c_str());
  }
  auto const h = histogram(exec::gpu, self_pairs(a.view()), euclidean{}, uniform_bins<float>(0.f, 100.f, 8));
  auto const c = histogram(exec::cpu, self_pairs(a.view()), euclidean{}, uniform_bins<float>(0.f, 100.f, 8));
  EXPECT_EQ(h.counts, c.counts);
  EXPECT_EQ(h.outside, c.outside);
  EXPECT_GE(h.outside, 199u + 198u);

  auto const empty = make_rows<float>(0, 33, nullptr);
  EXPECT_EQ(count_pairs(exec::gpu, self_pairs(empty), closer_than(euclidean{}, 3.f)), 0u);
  EXPECT_EQ(count_pairs(exec::gpu, cross_pairs(a.view(), empty), closer_than(euclidean{}, 3.f)), 0u);
  tbt::host_rows<float> const one(1, 33, 4);
  EXPECT_EQ(count_pairs(exec::gpu, self_pairs(one.view()), closer_than(euclidean{}, 3.f)), 0u);

  // More bins than shared memory holds: the global-atomics agent.
  tbt::host_rows<float> const b(300, 40, 9, 30);
  uniform_bins<float> const many(0.f, 200000.f, 200000);
  auto const hg = histogram(exec::gpu, self_pairs(b.view()), squared_euclidean{}, many);
  auto const hc = histogram(exec::cpu, self_pairs(b.view()), squared_euclidean{}, many);
  EXPECT_EQ(hg.counts, hc.counts);
  EXPECT_EQ(hg.outside, hc.outside);
}

TEST(GpuRowsMemory, LongRowsUpTo4096Dimensions)
{
  TBT_REQUIRE_GPU();
  for (int dims : {1000, 4096}) {
    tbt::host_rows<__half> const h(200, dims, 5);
    tbt::host_rows<float> const f(200, dims, 6);
    expect_same_count(self_pairs(h.view()), closer_than(squared_euclidean{}, tbt::most_common_value(K::squared_euclidean, h)), "half");
    expect_same_count(self_pairs(f.view()), closer_than(squared_euclidean{}, tbt::most_common_value(K::squared_euclidean, f)), "float");
    expect_same_count(self_pairs(f.view()), at_least(cosine_similarity{}, tbt::most_common_value(K::cosine_similarity, f)), "cosine");
  }
}

// Double rows are rounded to float for the CUDA cores' FP32 products (simt_row_products.cuh, the
// default core of double rows): pairs that float cannot tell apart, and rows with elements
// outside [2^-50, 2^50) (whose pairs are all recomputed), must still give the double evaluation's
// answers. Gaussian rows, each followed by two copies moved by about 1e-9 (far below float's
// resolution of the values, so the float-rounded rows often coincide), a few rows with an element
// of 1e-200, 1e-30 or 1e20, and thresholds on the exact values of chosen pairs.
TEST(GpuRowsDouble, DifferencesBelowFloatPrecisionAndElementsOutsideItsRangeEqualTheCpu)
{
  TBT_REQUIRE_GPU();
  for (int dims : {5, 64, 200}) {
    std::int64_t const n = 300;
    std::vector<double> x(static_cast<std::size_t>(n * dims));
    std::mt19937_64 rng(1000 + dims);
    std::normal_distribution<double> nd;
    for (std::int64_t i = 0; i < n; ++i) {
      for (int k = 0; k < dims; ++k) {
        std::size_t const at = static_cast<std::size_t>(i * dims + k);
        x[at] = i % 3 == 0 ? nd(rng) : x[static_cast<std::size_t>((i - i % 3) * dims + k)] + 1e-9 * nd(rng);
      }
    }
    x[static_cast<std::size_t>(7 * dims)]     = 1e-200;
    x[static_cast<std::size_t>(11 * dims + 1)] = 1e-30;
    x[static_cast<std::size_t>(13 * dims + 2)] = 1e20;
    x[static_cast<std::size_t>(14 * dims + 3)] = 1e-200;  // like row 13, a near copy of row 12: with a tiny element
    auto const r = make_rows(n, dims, x.data());
    auto value = [&](K m, std::int64_t i, std::int64_t j) {
      double const s = detail::exact_sum_host(x.data() + i * dims, x.data() + j * dims, dims, detail::sums_products(m));
      double const ni = detail::exact_sum_host(x.data() + i * dims, x.data() + i * dims, dims, true);
      double const nj = detail::exact_sum_host(x.data() + j * dims, x.data() + j * dims, dims, true);
      return detail::metric_from_sum(m, s, ni, nj);
    };
    std::string const what = "double rows, dims " + std::to_string(dims);
    for (float t0 : {value(K::squared_euclidean, 0, 1), value(K::squared_euclidean, 3, 5), value(K::squared_euclidean, 0, 3)}) {
      for (float t : {std::nextafter(t0, -INFINITY), t0, std::nextafter(t0, INFINITY)}) {
        expect_same_count(self_pairs(r), closer_than(squared_euclidean{}, t), (what + ", squared").c_str());
        expect_same_count(self_pairs(r), closer_than(euclidean{}, std::sqrt(t)), (what + ", euclidean").c_str());
      }
    }
    float const c0 = value(K::cosine_similarity, 0, 2);
    expect_same_count(self_pairs(r), at_least(cosine_similarity{}, c0), (what + ", cosine").c_str());
    expect_same_count(ordered_pairs(r), at_least(dot_product{}, value(K::dot_product, 0, 3)), (what + ", dot").c_str());
    EXPECT_GT(count_pairs(exec::cpu, self_pairs(r), closer_than(squared_euclidean{}, value(K::squared_euclidean, 0, 1))), 0u);
    for (auto const& bins : {uniform_bins<float>(0.f, 4.f * value(K::euclidean, 0, 1), 40), uniform_bins<float>(0.f, 30.f, 300)}) {
      auto const hc = histogram(exec::cpu, self_pairs(r), euclidean{}, bins);
      auto const hg = histogram(exec::gpu, self_pairs(r), euclidean{}, bins);
      EXPECT_EQ(hg.counts, hc.counts) << what;
      EXPECT_EQ(hg.outside, hc.outside) << what;
    }
    // Joins and nearest neighbours of the same rows: the same pairs (join values decided without
    // recomputing carry the approximation, within the margin) and the same neighbours.
    float const eps = value(K::euclidean, 3, 5);
    auto const jc   = join(exec::cpu, self_pairs(r), closer_than(euclidean{}, eps)).to_host();
    auto const jg   = join(exec::gpu, self_pairs(r), closer_than(euclidean{}, eps)).to_host();
    EXPECT_GT(jc.size(), 0u) << what;
    tbt::expect_same_records(jg, jc, what + ", join", [&](std::uint32_t i, std::uint32_t j, float v) {
      double const ni = detail::exact_sum_host(x.data() + std::size_t{i} * dims, x.data() + std::size_t{i} * dims, dims, true);
      double const nj = detail::exact_sum_host(x.data() + std::size_t{j} * dims, x.data() + std::size_t{j} * dims, dims, true);
      return tbt::margin_bound<double>(K::euclidean, dims, ni, nj, v);
    });
    for (int k : {4, 40}) {
      tbt::expect_same_neighbors(nearest_neighbors(exec::gpu, ordered_pairs(r), euclidean{}, k),
                                 nearest_neighbors(exec::cpu, ordered_pairs(r), euclidean{}, k), what + ", knn k " + std::to_string(k));
    }
  }
}
