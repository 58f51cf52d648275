// The cells of the one-call histogram at every set size, in anisotropic boxes and two dimensions,
// with stray points and a long reach, captured into a CUDA graph and replayed. Part of
// test_gpu_cell_list (test_gpu_cell_list.cu has the cell grid's plan and the main comparison).
#include "gpu_cell_list_checks.cuh"

// The cell kernel itself at every size it serves, below the sizes the planner gives it too (units
// of 32 points: partial, whole, one more), with 3 cells per axis (every cell a neighbour of every
// other: no pair unvisited) and with 4096 cells (16 per axis: the block scan's wide form);
// launched directly into a poisoned device output.
TEST(GpuCellList, KernelAtEverySize)
{
  TBT_REQUIRE_GPU();
  for (float r : {12.3f, 30.7f, 4.7f}) {
    distance_bins<float> const bins(r, 100);
    ASSERT_GT(edge_margin(bins, 3 * 50 * 50), 1e-5);
    for (int n : {2, 3, 31, 32, 33, 63, 64, 65, 1000}) {
      integer_set<3> const s = integer_points<3>(n, {100.f, 100.f, 100.f}, 7 * n);
      device_set<3> const dev(s);
      auto const pairs = self_pairs(dev.view());
      ASSERT_TRUE(detail::cell_list_serves(pairs, box_of(s), bins));
      thrust::device_vector<unsigned long long> d(bins.size() + 1, 0xdeadbeefull);
      EXPECT_FALSE(detail::launch_cell_list(pairs, box_of(s), bins, thrust::raw_pointer_cast(d.data()), cudaStream_t{}));
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<unsigned long long> const got(d.begin(), d.end());
      EXPECT_EQ(got, reference(s, bins)) << "n = " << n << ", r_max = " << r;
    }
  }
}

TEST(GpuCellList, AnisotropicBoxesAndTwoDimensions)
{
  TBT_REQUIRE_GPU();
  distance_bins<float> const bins3(9.7f, 83);
  ASSERT_GT(edge_margin(bins3, 50 * 50 + 30 * 30 + 20 * 20), 1e-5);
  integer_set<3> const s3 = integer_points<3>(3000, {100.f, 60.f, 40.f}, 5);
  auto const ref3 = reference(s3, bins3);
  check_set(s3, bins3, true, &ref3);

  distance_bins<float> const bins2(7.7f, 64);
  ASSERT_GT(edge_margin(bins2, 40 * 40 + 25 * 25), 1e-5);
  integer_set<2> const s2 = integer_points<2>(2500, {80.f, 50.f}, 6);
  auto const ref2 = reference(s2, bins2);
  check_set(s2, bins2, true, &ref2);
}

// Points outside [0, L] or with a NaN coordinate prove nothing about cells: the kernel then
// visits every pair, with the tile kernels' values (a NaN pair is outside).
TEST(GpuCellList, StrayPointsVisitEveryPair)
{
  TBT_REQUIRE_GPU();
  distance_bins<float> const bins(12.3f, 100);
  integer_set<3> s = integer_points<3>(2500, {100.f, 100.f, 100.f}, 9);
  s.c[0][7]   = -1.f;
  s.c[1][400] = 101.f;
  check_set(s, bins, true, nullptr);
  s.c[2][2499] = std::numeric_limits<float>::quiet_NaN();
  check_set(s, bins, true, nullptr);
}

// Where the cells would visit more than a quarter of the pairs, the tiles run.
TEST(GpuCellList, LongReachKeepsTheTiles)
{
  TBT_REQUIRE_GPU();
  distance_bins<float> const bins(30.7f, 100);
  integer_set<3> const s = integer_points<3>(1000, {100.f, 100.f, 100.f}, 3);
  check_set(s, bins, false, nullptr);
}

// The asynchronous form is one graph node (cooperative: it zeroes its own poisoned output) and
// replays: 100 replays add up to 100 results.
TEST(GpuCellList, CapturedAndReplayed)
{
  TBT_REQUIRE_GPU();
  if (!device_info::get().cooperative_launch) { GTEST_SKIP() << "no cooperative launches on this GPU"; }
  distance_bins<float> const bins(12.3f, 100);
  integer_set<3> const s = integer_points<3>(4000, {100.f, 100.f, 100.f}, 21);
  auto const ref         = reference(s, bins);
  device_set<3> const dev(s);
  auto const pairs = self_pairs(dev.view());
  auto const f     = box_of(s);
  int const slots  = bins.size() + 1;
  thrust::device_vector<unsigned long long> d(slots, 0xdeadbeefull);
  thrust::device_vector<unsigned long long> acc(slots, 0);
  cudaStream_t st{};
  ASSERT_EQ(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
  histogram(pairs, f, bins, thrust::raw_pointer_cast(d.data()), st);  // plans outside the capture
  cudaGraph_t graph{};
  ASSERT_EQ(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal), cudaSuccess);
  histogram(pairs, f, bins, thrust::raw_pointer_cast(d.data()), st);
  ASSERT_EQ(cudaStreamEndCapture(st, &graph), cudaSuccess);
  std::size_t nodes = 0;
  ASSERT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
  EXPECT_EQ(nodes, 1u);
  cudaGraphExec_t exec_graph{};
  ASSERT_EQ(cudaGraphInstantiate(&exec_graph, graph, 0), cudaSuccess);
  int const replays = 100;
  for (int r = 0; r < replays; ++r) {
    ASSERT_EQ(cudaGraphLaunch(exec_graph, st), cudaSuccess);
    thrust::transform(thrust::cuda::par.on(st), acc.begin(), acc.end(), d.begin(), acc.begin(),
                      thrust::plus<unsigned long long>{});
  }
  ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
  std::vector<unsigned long long> const got(acc.begin(), acc.end());
  for (int k = 0; k < slots; ++k) { EXPECT_EQ(got[k], replays * ref[k]) << k; }
  (void)cudaGraphExecDestroy(exec_graph);
  (void)cudaGraphDestroy(graph);
  (void)cudaStreamDestroy(st);
}
