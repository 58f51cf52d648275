// MPI tests of a failure on one rank and of the GPU backend over the ranks. Part of test_mpi
// (test_mpi.cu has the CPU-backend statistics and main).
#include "mpi_checks.cuh"

TEST(MpiCpu, AFailureOnOneRankReachesEveryRankNamed)
{
  mpi_place const at;
  if (at.size < 2) { GTEST_SKIP() << "needs 2 or more ranks (mpirun -np 2)"; }
  tbt::host_points<float, 3> h(800, 41, 40);
  distance_bins<float> const bins(50.f, 16);
  int const last = at.size - 1;
  std::string const last_prefix = "rank " + std::to_string(last) + ": ";

  // The last rank's progress callback throws (cancels its share); every rank gets its error.
  mpi::options opt;
  opt.backend            = mpi::backend::cpu;
  opt.scale.block_points = 50;
  opt.scale.progress     = [&](host::scale_progress const& p) {
    if (at.rank == last && p.block_pairs_done == 3) { throw std::runtime_error("stopped by the user"); }
  };
  expect_rank_error([&] { (void)mpi::histogram(self_pairs(h.view()), squared_euclidean{}, bins, opt); }, last_prefix,
                    "stopped by the user");
  expect_rank_error([&] { (void)mpi::join(self_pairs(h.view()), within_eps_fn<float>{4.f}, opt); }, last_prefix,
                    "stopped by the user");

  // Several failing ranks: the lowest one is named.
  opt.scale.progress = [&](host::scale_progress const&) { throw std::runtime_error("rank-local failure"); };
  expect_rank_error([&] { (void)mpi::count_pairs(self_pairs(h.view()), within_radius(3.f), opt); }, "rank 0: ",
                    "rank-local failure");
  opt.scale.progress = nullptr;

  // Ranks that pass different sets: a clear error on every rank, not a wrong answer or a hang.
  auto p = h.view();
  if (at.rank == last) { p.size -= 1; }
  try {
    (void)mpi::histogram(self_pairs(p), squared_euclidean{}, bins, opt);
    ADD_FAILURE() << "expected an error";
  } catch (twobody::error const& e) {
    EXPECT_NE(std::string(e.what()).find("every rank must pass the same pair set"), std::string::npos) << e.what();
  }
  // A root that is not a rank.
  mpi::options bad_root = opt;
  bad_root.root         = at.size;
  EXPECT_THROW((void)mpi::join(self_pairs(h.view()), within_eps_fn<float>{4.f}, bad_root), twobody::error);

  // The communicator is still usable: a clean run gives the right answer.
  std::vector<unsigned long long> want(bins.size() + 1);
  cpu::histogram(self_pairs(h.view()), squared_euclidean{}, bins, want.data());
  EXPECT_EQ(mpi::histogram(self_pairs(h.view()), squared_euclidean{}, bins, opt).counts,
            std::vector<unsigned long long>(want.begin(), want.end() - 1));
}

TEST(MpiGpu, WithoutAGpuEveryRankGetsAClearError)
{
  if (tbt::gpu_available()) { GTEST_SKIP() << "this machine has a GPU: the no-GPU error path is not reachable"; }
  tbt::host_points<float, 3> h(100, 51, 10);
  mpi::options opt;  // GPU backend
  expect_rank_error([&] { (void)mpi::count_pairs(self_pairs(h.view()), within_radius(3.f), opt); }, "rank 0: ",
                    "cudaGetDeviceCount");
}

TEST(MpiGpu, GpuBackendEqualsTheCpuBackend)
{
  TBT_REQUIRE_GPU();
  mpi_place const at;
  tbt::host_points<float, 3> ha(30011, 61, 100), hb(9001, 62, 100);
  distance_bins<float> const bins(400.f, 64);
  mpi::options gpu;  // one GPU per rank (ranks share it where the node has fewer)
  gpu.scale.block_points = 4000;
  mpi::options cpu_opt   = gpu;
  cpu_opt.backend        = mpi::backend::cpu;
  for (pair_mode mode : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
    SCOPED_TRACE(tbt::mode_name(mode));
    auto const pairs = tbt::make_pairs(mode, ha.view(), hb.view());
    expect_same(mpi::histogram(pairs, squared_euclidean{}, bins, gpu),
                mpi::histogram(pairs, squared_euclidean{}, bins, cpu_opt));
    EXPECT_EQ(mpi::count_pairs(pairs, within_radius(7.f), gpu), mpi::count_pairs(pairs, within_radius(7.f), cpu_opt));
    auto const g = mpi::join(pairs, within_eps_fn<float>{9.f}, gpu);
    auto const c = mpi::join(pairs, within_eps_fn<float>{9.f}, cpu_opt);
    if (at.rank == 0) { EXPECT_EQ(keys(g), keys(c)); }
  }
  // The default block size (each rank's budget, agreed on the smallest) and the weighted path.
  mpi::options dflt;
  host::scale_stats st;
  auto const w = mpi::histogram(self_pairs(ha.weighted_view()), squared_euclidean{}, bins, dflt, &st);
  std::vector<double> want(bins.size() + 1);
  cpu::histogram(self_pairs(ha.weighted_view()), squared_euclidean{}, bins, want.data());
  EXPECT_EQ(w.counts, std::vector<double>(want.begin(), want.end() - 1));
  if (at.size > 1) {  // several workers: the block size is cut to give each its share of block pairs
    EXPECT_GE(sum_over_ranks(st.block_pairs), host::block_pairs_per_worker * static_cast<std::size_t>(at.size));
  } else {  // one rank (run without mpirun): the set fits its budget in one block
    EXPECT_EQ(st.block_pairs, 1u);
  }
}
