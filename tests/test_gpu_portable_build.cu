// A build for compute_75 PTX only (tests/CMakeLists.txt gives this binary that architecture,
// what a build without a GPU makes by default): on a newer GPU the driver compiles its kernels
// when first used. The code that needs sm_80 (tensor-core rows) and sm_90 (thread-block
// clusters) is not in it, whatever the GPU: the one-call histogram plans without clusters, the
// explicit cluster form and the tensor-core rows say how to rebuild, and everything else gives
// the CPU backend's answers, the large column tiles of double points included.
#include "common.cuh"

#include <twobody/twobody.cuh>

#include <string>

using namespace twobody;

namespace {

template <class Fn>
std::string error_of(Fn&& fn)
{
  try {
    fn();
  } catch (twobody::error const& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(GpuPortableBuild, KernelsComeFromCompute75)
{
  TBT_REQUIRE_GPU();
  auto const k = detail::pair_kernel<input::shared_tile<256, 4>, detail::reduction_agent<unsigned long long, cuda::std::plus<unsigned long long>, unsigned, 256>,
                                     points<float, 3>, within_radius_fn<float>>::attrs();
  EXPECT_EQ(k.ptx_version, 75);
}

TEST(GpuPortableBuild, HistogramsMatchTheCpuBackendWithoutClusters)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<double, 3> h(5000, 7);
  tbt::device_points<double, 3> d(h);
  for (int bins : {64, 4096, 100000}) {
    distance_bins<double> const b(60.0, bins);
    auto const gpu  = histogram(exec::gpu, self_pairs(d.view()), squared_euclidean{}, b);
    auto const cpu  = histogram(exec::cpu, self_pairs(h.view()), squared_euclidean{}, b);
    EXPECT_EQ(gpu.counts, cpu.counts) << bins << " bins";
    EXPECT_EQ(gpu.outside, cpu.outside) << bins << " bins";
    auto const plan = plan_histogram(self_pairs(d.view()), squared_euclidean{}, b);
    EXPECT_NE(plan.output, output::cluster_privatized::kind) << bins << " bins: " << plan.reason;
  }
  // The largest tile of double points, in dynamic shared memory.
  auto counts = tbt::poisoned<unsigned long long>(4097);
  histogram<input::shared_tile<512, 4>>(self_pairs(d.view()), squared_euclidean{}, distance_bins<double>(60.0, 4096),
                                        thrust::raw_pointer_cast(counts.data()), output::warp_privatized{2});
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  thrust::host_vector<unsigned long long> const got = counts;
  auto const cpu = histogram(exec::cpu, self_pairs(h.view()), squared_euclidean{}, distance_bins<double>(60.0, 4096));
  for (int k = 0; k < 4096; ++k) { ASSERT_EQ(got[k], cpu.counts[k]) << "bin " << k; }
  EXPECT_EQ(got[4096], cpu.outside);
}

TEST(GpuPortableBuild, NewerGpuFeaturesSayHowToRebuild)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> h(1000, 9);
  tbt::device_points<float, 3> d(h);
  auto counts = tbt::poisoned<unsigned long long>(65);
  std::string const clusters = error_of([&] {
    histogram<input::shuffle_tile<256, 4>>(self_pairs(d.view()), squared_euclidean{}, distance_bins<float>(60.f, 64),
                                           thrust::raw_pointer_cast(counts.data()), output::cluster_privatized{2, 1});
  });
  EXPECT_NE(clusters.find("compute_75"), std::string::npos) << clusters;
  EXPECT_NE(clusters.find("CMAKE_CUDA_ARCHITECTURES"), std::string::npos) << clusters;

  std::vector<float> x(64 * 100);
  for (std::size_t i = 0; i < x.size(); ++i) { x[i] = static_cast<float>(i % 7); }
  std::string const rows = error_of([&] {
    (void)count_pairs(exec::gpu, self_pairs(make_rows(100, 64, x.data())), at_least(cosine_similarity{}, 0.9f));
  });
  EXPECT_NE(rows.find("compute_75"), std::string::npos) << rows;
  // The CUDA cores' rows run on any build.
  EXPECT_EQ(count_pairs<input::simt_rows>(exec::gpu, self_pairs(make_rows(100, 64, x.data())), at_least(cosine_similarity{}, 0.9f)),
            count_pairs(exec::cpu, self_pairs(make_rows(100, 64, x.data())), at_least(cosine_similarity{}, 0.9f)));
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // nothing left the context broken
}
