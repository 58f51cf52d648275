// One API with or without a GPU: the execution policies (execution.cuh) give the same result
// types and values on both backends, and the CPU backend reports progress. Host parts run
// everywhere, GPU parts skip. The hostile-argument checks (exec::gpu without a GPU, null arrays,
// 2^32-point sets, out-of-range user slots, host pointers): test_execution_checks.cu (the same
// binary).
#include "execution_checks.cuh"

TEST(Execution, SameResultTypesOnEveryBackend)
{
  tbt::host_points<float, 3> h(300, 11, 16);
  auto const pairs = self_pairs(h.view());
  distance_bins<float> const bins(28.f, 16);
  static_assert(std::is_same_v<decltype(histogram(exec::cpu, pairs, squared_euclidean{}, bins)),
                               decltype(histogram(pairs, squared_euclidean{}, bins))>);
  static_assert(std::is_same_v<decltype(count_pairs(exec::cpu, pairs, within_radius(4.f))), unsigned long long>);
  static_assert(std::is_same_v<decltype(sum_per_point(exec::cpu, ordered_pairs(h.view()), gaussian_kernel(2.f))),
                               std::vector<float>>);
  static_assert(std::is_same_v<decltype(pairs_within(exec::cpu, pairs, 2.f)), join_result<index_pair>>);

  // The reference: the backend's own functions.
  std::vector<unsigned long long> want(bins.size() + 1);
  cpu::histogram(pairs, squared_euclidean{}, bins, want.data());
  auto const want_count = cpu::count_pairs(pairs, within_radius(4.f));
  auto const want_join  = cpu::join(pairs, within_eps_fn<float>{4.f});
  ASSERT_GT(want_count, 100u);
  ASSERT_GT(want_join.size(), 10u);

  for (execution_policy const& ex : usable_policies()) {
    SCOPED_TRACE(ex.where == backend::cpu ? "cpu" : "gpu");
    auto const got = histogram(ex, pairs, squared_euclidean{}, bins);
    EXPECT_EQ(got.counts, std::vector<unsigned long long>(want.begin(), want.end() - 1));
    EXPECT_EQ(got.outside, want.back());
    EXPECT_EQ(got.pairs, pairs.count());
    EXPECT_EQ(count_pairs(ex, pairs, within_radius(4.f)), want_count);
    EXPECT_EQ(count_pairs(ex, pairs, within_radius(4.f), within_cutoff<float>{4.f}), want_count);
    auto const g2 = histogram(ex, pairs, squared_euclidean{}, distance_bins<float>(4.f, 4), within_cutoff<float>{4.f});
    EXPECT_EQ(g2.counts[0] + g2.counts[1] + g2.counts[2] + g2.counts[3], want_count);
    EXPECT_EQ(reduce_pairs(ex, pairs, within_radius(4.f), cuda::std::plus<unsigned long long>{}, 0ull), want_count);

    auto j = pairs_within(ex, pairs, 2.f);
    ASSERT_EQ(j.size(), want_join.size());
    std::vector<std::tuple<std::uint32_t, std::uint32_t>> wk;
    for (auto const& r : want_join) { wk.emplace_back(r.i, r.j); }
    EXPECT_EQ(sorted_keys(j), wk);
    EXPECT_EQ(sorted_keys(join(ex, pairs, within_eps_fn<float>{4.f})), wk);
    EXPECT_EQ(sorted_keys(pairs_within(ex, pairs, 2.f, within_cutoff<float>{2.f})), wk);
    std::size_t delivered = 0;
    join_each(ex, pairs, within_eps_fn<float>{4.f}, [&](index_pair const*, std::size_t n) { delivered += n; });
    EXPECT_EQ(delivered, want_join.size());

    auto const band = band_join(ex, cross_pairs(h.view(), h.view()), 0, -1.f, 1.f);
    EXPECT_EQ(band.size(), cpu::join(cross_pairs(h.view(), h.view()), band_fn<float>{0, -1.f, 1.f}).size());

    auto const sums = sum_per_point(ex, ordered_pairs(h.view()), within_radius(4.f));
    std::vector<float> want_sums(h.n);
    cpu::sum_per_point(ordered_pairs(h.view()), within_radius(4.f), want_sums.data());
    EXPECT_EQ(sums, want_sums);  // integer counts, exact in float
  }
}

TEST(Progress, CpuBackendReportsToTheEndOnTheCallingThread)
{
  tbt::host_points<float, 3> const a(2500, 31), b(700, 32);
  auto const self  = self_pairs(a.view());
  auto const cross = cross_pairs(a.view(), b.view());
  std::vector<progress_report> seen;
  bool other_thread            = false;
  auto const caller            = std::this_thread::get_id();
  progress_callback const note = [&](progress_report const& p) {
    other_thread = other_thread || std::this_thread::get_id() != caller;
    seen.push_back(p);
  };
  auto const with = exec::cpu.with_progress(&note);
  EXPECT_EQ(with.on(cudaStream_t{}).progress, &note);
  auto check = [&](std::uint64_t total, char const* what) {
    SCOPED_TRACE(what);
    ASSERT_FALSE(seen.empty());
    for (std::size_t k = 1; k < seen.size(); ++k) { EXPECT_LE(seen[k - 1].done, seen[k].done); }
    EXPECT_EQ(seen.back().done, total);
    EXPECT_EQ(seen.back().total, total);
    EXPECT_FALSE(other_thread);
    seen.clear();
  };
  EXPECT_EQ(count_pairs(with, self, within_radius(9.f)), count_pairs(exec::cpu, self, within_radius(9.f)));
  check(self.count(), "count_pairs");
  auto const bins = uniform_bins<float>(0.f, 120.f, 12);
  EXPECT_EQ(histogram(with, cross, euclidean{}, bins).counts, histogram(exec::cpu, cross, euclidean{}, bins).counts);
  check(cross.count(), "histogram");
  EXPECT_EQ(sum_per_point(with, ordered_pairs(b.view()), gaussian_kernel(4.f)),
            sum_per_point(exec::cpu, ordered_pairs(b.view()), gaussian_kernel(4.f)));
  check(ordered_pairs(b.view()).count(), "sum_per_point");
  EXPECT_EQ(pairs_within(with, self, 3.f).size(), pairs_within(exec::cpu, self, 3.f).size());
  check(self.count(), "pairs_within");

  std::vector<size_type> const offsets{0, 1000, 1000, 2500};  // an empty frame too
  std::vector<float> const boxes(9, 64.f);
  auto const frames = make_frames(a.view(), offsets.data(), 3).with_boxes(boxes.data());
  auto const f      = make_periodic_euclidean(64.f, 64.f, 64.f);
  auto const near = uniform_bins<float>(0.f, 30.f, 10);  // within half the box
  EXPECT_EQ(histogram_frames(with, self_frame_pairs(frames), f, near).counts,
            histogram_frames(exec::cpu, self_frame_pairs(frames), f, near).counts);
  check(3, "histogram_frames (frames)");
}

TEST(Progress, AnExceptionFromTheCallbackStopsTheCall)
{
  tbt::host_points<float, 3> const a(40000, 33);
  auto const self = self_pairs(a.view());
  progress_callback const stop = [](progress_report const& p) { throw stop_request{p.done}; };
  auto const t0 = std::chrono::steady_clock::now();
  try {
    (void)count_pairs(exec::cpu.with_progress(&stop), self, within_radius(9.f));
    FAIL() << "the callback's exception did not propagate";
  } catch (stop_request const& s) {
    double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Stopped at the first report, about 100 ms in (or at the end, if the whole call was faster).
    EXPECT_TRUE(s.done < self.count() || seconds < 0.5) << s.done << " of " << self.count() << " in " << seconds << " s";
  }
  // Nothing is left behind: the same thread's next call runs, without reports, to the end.
  EXPECT_EQ(count_pairs(exec::cpu, self_pairs(points<float, 3>{}), within_radius(9.f)), 0u);
  EXPECT_EQ(detail::current_progress(), nullptr);
}
