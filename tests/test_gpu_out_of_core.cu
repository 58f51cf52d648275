// Device tests of the out-of-core block layer: histograms and counts over host-resident
// points split into many blocks (small budgets and block sizes) equal the in-core one-call
// results exactly (integer coordinates, dyadic weights), for self, cross and ordered pairs;
// progress reports, cancellation from the callback, and bad options. Several workers, joins and
// odd block sizes: test_gpu_out_of_core_workers.cu (the same binary).
#include "gpu_out_of_core_checks.cuh"

TEST(GpuOutOfCore, HistogramsOverManyBlocksEqualTheInCoreResult)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> ha(20011, 71, 64), hb(7013, 72, 64);
  distance_bins<float> const bins(60.f, 37);
  for (size_type bs : {1000, 4096, 20011}) {
    SCOPED_TRACE("block_points " + std::to_string(bs));
    host::scale_options opt;
    opt.block_points = bs;
    host::scale_stats st;
    expect_same(host::histogram(self_pairs(ha.view()), squared_euclidean{}, bins, opt, &st),
                histogram(self_pairs(ha.view()), squared_euclidean{}, bins));
    std::size_t const blocks = static_cast<std::size_t>((20011 + bs - 1) / bs);
    EXPECT_EQ(st.block_pairs, blocks * (blocks + 1) / 2);
    EXPECT_GE(st.blocks_copied, blocks);
    expect_same(host::histogram(cross_pairs(ha.view(), hb.view()), squared_euclidean{}, bins, opt),
                histogram(cross_pairs(ha.view(), hb.view()), squared_euclidean{}, bins));
    expect_same(host::histogram(ordered_pairs(hb.view()), squared_euclidean{}, bins, opt),
                histogram(ordered_pairs(hb.view()), squared_euclidean{}, bins));
  }
  // Weighted (dyadic weights: the double sums are exact in any order).
  host::scale_options opt;
  opt.block_points = 3000;
  auto const w = host::histogram(self_pairs(ha.weighted_view()), squared_euclidean{}, bins, opt);
  auto const w_ref = histogram(self_pairs(ha.weighted_view()), squared_euclidean{}, bins);
  EXPECT_EQ(w.counts, w_ref.counts);
}

TEST(GpuOutOfCore, BudgetSetsTheBlockSizeAndCountsAgree)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> h(40000, 81, 100);
  host::scale_options opt;
  opt.device_memory_budget = 4 * 2500 * 12;  // 4 resident blocks of 2500 points: 16 blocks
  host::scale_stats st;
  opt.time_kernels = true;
  auto const n = host::count_pairs(self_pairs(h.view()), within_radius(6.f), opt, &st);
  EXPECT_GT(st.kernel_seconds, 0.0);
  EXPECT_LE(st.kernel_seconds, st.seconds * 1.05);
  opt.time_kernels = false;
  EXPECT_EQ(st.block_points, 2500);
  EXPECT_EQ(st.block_pairs, 16u * 17u / 2u);
  EXPECT_EQ(n, count_pairs(self_pairs(h.view()), within_radius(6.f)));
  tbt::host_points<float, 3> q(9000, 82, 100);
  EXPECT_EQ(host::count_pairs(cross_pairs(q.view(), h.view()), within_radius(6.f), opt),
            count_pairs(cross_pairs(q.view(), h.view()), within_radius(6.f)));
  EXPECT_EQ(host::count_pairs(self_pairs(h.weighted_view()), within_radius(6.f), opt),
            count_pairs(self_pairs(h.weighted_view()), within_radius(6.f)));
}

TEST(GpuOutOfCore, ProgressCancellationEmptySetsAndBadOptions)
{
  TBT_REQUIRE_GPU();
  using namespace twobody;
  tbt::host_points<float, 3> h(10000, 91, 64);
  distance_bins<float> const bins(60.f, 10);
  host::scale_options opt;
  opt.block_points = 1000;
  std::size_t calls = 0;
  host::scale_progress last;
  opt.progress = [&](host::scale_progress const& p) {
    ++calls;
    EXPECT_EQ(p.block_pairs_done, calls);
    last = p;
  };
  (void)host::histogram(self_pairs(h.view()), squared_euclidean{}, bins, opt);
  EXPECT_EQ(calls, 55u);
  EXPECT_EQ(last.block_pairs_total, 55u);
  EXPECT_EQ(last.pairs_done, 10000ull * 9999ull / 2ull);
  EXPECT_GT(last.pairs_per_s, 0.0);

  // A callback that throws cancels the run; nothing half-merged comes back, and the next run works.
  opt.progress = [](host::scale_progress const& p) {
    if (p.block_pairs_done == 7) { throw std::runtime_error("cancelled by the caller"); }
  };
  EXPECT_THROW(host::histogram(self_pairs(h.view()), squared_euclidean{}, bins, opt), std::runtime_error);
  opt.progress = nullptr;
  expect_same(host::histogram(self_pairs(h.view()), squared_euclidean{}, bins, opt),
              histogram(self_pairs(h.view()), squared_euclidean{}, bins));

  points<float, 3> empty;
  EXPECT_EQ(host::count_pairs(self_pairs(empty), within_radius(1.f), opt), 0u);
  EXPECT_EQ(host::histogram(cross_pairs(h.view(), empty), squared_euclidean{}, bins, opt).pairs, 0u);

  host::scale_options bad;
  bad.resident_blocks = 2;
  EXPECT_THROW(host::count_pairs(self_pairs(h.view()), within_radius(1.f), bad), twobody::error);
  host::scale_options tiny;
  tiny.device_memory_budget = 40;  // not one point per block
  EXPECT_THROW(host::count_pairs(self_pairs(h.view()), within_radius(1.f), tiny), twobody::error);
}
