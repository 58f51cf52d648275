// Tests of the MPI layer (twobody/host/mpi.cuh), run by ctest as 2 and 3 ranks (mpirun). Every
// test is collective: each rank runs it. Histograms, counts, joins and band joins spread over the
// ranks equal the whole run on one process (integer coordinates, dyadic weights: exact in any
// order) for self, cross and ordered pairs and awkward block sizes. Errors on one rank and the GPU
// backend: test_mpi_failures_and_gpu.cu (the same binary; this file has its main).
#include "mpi_checks.cuh"

TEST(MpiCpu, HistogramsOverTheRanksEqualTheWholeRun)
{
  mpi_place const at;
  tbt::host_points<float, 3> ha(1201, 11, 40), hb(433, 12, 40);
  distance_bins<float> const bins(50.f, 23);
  for (size_type bs : {0, 37, 500, 5000}) {  // default, awkward, few block pairs, one block (idle ranks)
    SCOPED_TRACE("block_points " + std::to_string(bs));
    mpi::options opt;
    opt.backend            = mpi::backend::cpu;
    opt.scale.block_points = bs;
    for (pair_mode mode : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
      SCOPED_TRACE(tbt::mode_name(mode));
      auto const pairs = tbt::make_pairs(mode, ha.view(), hb.view());
      std::vector<unsigned long long> want(bins.size() + 1);
      cpu::histogram(pairs, squared_euclidean{}, bins, want.data());
      host::scale_stats st;
      auto const got = mpi::histogram(pairs, squared_euclidean{}, bins, opt, &st);
      expect_same(got, histogram_result<unsigned long long>::from_slots(want, pairs.count()));
      EXPECT_EQ(sum_over_ranks(st.pairs), pairs.count());  // the shares cover the run once
    }
  }
  // Weighted sets (dyadic weights: exact double sums).
  mpi::options opt;
  opt.backend            = mpi::backend::cpu;
  opt.scale.block_points = 101;
  auto const wpairs      = self_pairs(ha.weighted_view());
  std::vector<double> want(bins.size() + 1);
  cpu::histogram(wpairs, squared_euclidean{}, bins, want.data());
  auto const got = mpi::histogram(wpairs, squared_euclidean{}, bins, opt);
  EXPECT_EQ(got.counts, std::vector<double>(want.begin(), want.end() - 1));
  EXPECT_EQ(got.outside, want.back());
}

TEST(MpiCpu, CountsProgressAndEmptySets)
{
  mpi_place const at;
  tbt::host_points<float, 2> h(2000, 21, 64);
  mpi::options opt;
  opt.backend = mpi::backend::cpu;
  host::scale_progress last;
  std::size_t calls = 0;
  opt.scale.progress = [&](host::scale_progress const& p) {
    ++calls;
    last = p;
  };
  host::scale_stats st;
  auto const n = mpi::count_pairs(self_pairs(h.view()), within_radius(9.f), opt, &st);
  EXPECT_EQ(n, cpu::count_pairs(self_pairs(h.view()), within_radius(9.f)));
  // Default blocks give the plan block_pairs_per_worker block pairs per rank or more (shares
  // are dealt out by work, so a rank may hold fewer, larger ones); the shares add up to the
  // plan, and each rank's progress ends at its own share.
  EXPECT_GE(sum_over_ranks(st.block_pairs), host::block_pairs_per_worker * static_cast<std::size_t>(at.size));
  EXPECT_EQ(calls, st.block_pairs);
  EXPECT_EQ(last.block_pairs_done, last.block_pairs_total);
  EXPECT_EQ(last.pairs_done, st.pairs);
  auto const plan = host::block_plan::make(pair_mode::self, h.n, h.n, st.block_points);
  EXPECT_EQ(sum_over_ranks(st.block_pairs), plan.size());
  EXPECT_EQ(sum_over_ranks(st.pairs), self_pairs(h.view()).count());

  auto const w = mpi::count_pairs(cross_pairs(h.weighted_view(), h.weighted_view()), within_radius(9.f), opt);
  EXPECT_EQ(w, cpu::count_pairs(cross_pairs(h.weighted_view(), h.weighted_view()), within_radius(9.f)));

  points<float, 2> empty;
  opt.scale.progress = nullptr;
  EXPECT_EQ(mpi::count_pairs(self_pairs(empty), within_radius(1.f), opt), 0u);
  auto const e = mpi::histogram(cross_pairs(h.view(), empty), euclidean{}, uniform_bins<float>(0.f, 10.f, 4), opt);
  EXPECT_EQ(e.pairs, 0u);
  EXPECT_EQ(e.counts, std::vector<unsigned long long>(4, 0));
}

TEST(MpiCpu, JoinsAreGatheredOnTheRootWithSetIndices)
{
  mpi_place const at;
  tbt::host_points<float, 3> ha(900, 31, 30), hb(700, 32, 30);
  within_eps_fn<float> const pred{9.f};
  for (int root : {0, at.size - 1}) {
    SCOPED_TRACE("root " + std::to_string(root));
    mpi::options opt;
    opt.backend            = mpi::backend::cpu;
    opt.root               = root;
    opt.scale.block_points = 97;
    for (pair_mode mode : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
      SCOPED_TRACE(tbt::mode_name(mode));
      auto const pairs = tbt::make_pairs(mode, ha.view(), hb.view());
      auto const got   = mpi::join(pairs, pred, opt);
      if (at.rank != root) {
        EXPECT_TRUE(got.empty());
        continue;
      }
      auto const want = cpu::join(pairs, pred);
      ASSERT_FALSE(want.empty());
      EXPECT_EQ(keys(got), keys(want));
      if (mode == pair_mode::self) {
        for (auto const& r : got) { ASSERT_LT(r.i, r.j); }
      }
    }
  }
  // Records with values keep them.
  mpi::options opt;
  opt.backend            = mpi::backend::cpu;
  opt.scale.block_points = 128;
  emit_pairs_within<squared_euclidean, float> const x{{}, 9.f};
  auto got = mpi::join(self_pairs(ha.view()), x, opt);
  if (at.rank == 0) {
    auto want = cpu::join(self_pairs(ha.view()), x);
    sort_by_index(got);
    sort_by_index(want);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
      EXPECT_EQ(got[k].i, want[k].i);
      EXPECT_EQ(got[k].j, want[k].j);
      EXPECT_EQ(got[k].value, want[k].value);
    }
  }
}

TEST(MpiCpu, BandJoinsDealKeyBucketsOverTheRanks)
{
  mpi_place const at;
  // integer keys in column 0 (long runs of equal keys), a payload in column 1
  std::vector<int> ka(2000), pa(2000), kb(1500), pb(1500);
  for (int i = 0; i < 2000; ++i) { ka[i] = (i * 7919) % 301 - 150; pa[i] = i % 5; }
  for (int j = 0; j < 1500; ++j) { kb[j] = (j * 104729) % 257 - 128; pb[j] = j % 3; }
  auto const A = make_points(2000, ka.data(), pa.data());
  auto const B = make_points(1500, kb.data(), pb.data());
  mpi::options opt;
  opt.backend = mpi::backend::cpu;
  host::band_join_options small;
  small.bucket_rows = 100;  // about 20 buckets: every rank gets several
  for (auto const& [lo, hi] : std::vector<std::pair<int, int>>{{0, 0}, {-3, 5}}) {
    auto const cross = mpi::band_join(cross_pairs(A, B), 0, lo, hi, opt, small);
    auto const self  = mpi::band_join(self_pairs(A), 0, lo, hi, payload_differs{}, opt, small);
    if (at.rank != 0) {
      EXPECT_TRUE(cross.empty());
      EXPECT_TRUE(self.empty());
      continue;
    }
    EXPECT_EQ(keys(cross), keys(cpu::join(cross_pairs(A, B), band_fn<int>{0, lo, hi})));
    auto const want_self = cpu::join(self_pairs(A), all_of(band_fn<int>{0, lo, hi}, payload_differs{}));
    ASSERT_FALSE(want_self.empty());
    EXPECT_EQ(keys(self), keys(want_self));
  }
}

namespace {

/// Ranks other than 0 print only their failures (prefixed with the rank), so the log reads as
/// one report: rank 0's.
class failures_only : public ::testing::EmptyTestEventListener {
 public:
  explicit failures_only(int rank) : rank_(rank) {}
  void OnTestPartResult(::testing::TestPartResult const& r) override
  {
    if (r.failed()) {
      std::printf("[rank %d] %s:%d: Failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?", r.line_number(),
                  r.summary());
    }
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  mpi_place const at;
  if (at.rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new failures_only(at.rank));
  }
  int const rc = RUN_ALL_TESTS();
  int worst    = rc;  // any rank's failure fails the run on every rank
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
