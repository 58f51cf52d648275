// Cluster-shared histograms (output::cluster_privatized, sm_90+) against the CPU backend: every
// cluster size 1..16, copies, self/cross/ordered, bins from fewer than the cluster's blocks to
// past its shared memory (several passes), weights, a periodic box, 2-D bins, forced flushes,
// and the one-call form's choice.
#include "common.cuh"

using namespace twobody;

namespace {

bool have_clusters()
{
  return tbt::gpu_available() && device_info::get().cc_major >= 9;
}

#define REQUIRE_CLUSTERS()                                                             \
  do {                                                                                 \
    TBT_REQUIRE_GPU();                                                                 \
    if (!have_clusters()) { GTEST_SKIP() << "thread-block clusters need sm_90 or newer"; } \
  } while (0)

// Integer points in [0, 64)^3: squared distances are integers in [0, 11907], every edge below
// sits half-way between two integers (or is dyadic), so the bins are exact everywhere.
template <class T>
uniform_bins<T> bins_of(int n)
{
  // n bins over squared distances [-0.5, 11999.5) (width 12000 / n: edges k * w - 0.5 are off
  // the integers for the n used here), or more bins than values for n past 12000.
  return {T(-0.5), T(-0.5) + T(12000), n};
}

template <class T>
std::vector<unsigned long long> reference(pair_mode m, tbt::host_points<T, 3> const& a, tbt::host_points<T, 3> const& b,
                                          int nbins)
{
  auto const da = a.template as<double>();
  auto const db = b.template as<double>();
  std::vector<unsigned long long> r(nbins + 1);
  cpu::histogram(tbt::make_pairs(m, da.view(), db.view()), squared_euclidean{}, bins_of<double>(nbins), r.data());
  return r;
}

template <class T>
std::vector<unsigned long long> to_host(thrust::device_vector<T> const& d)
{
  thrust::host_vector<T> h = d;
  return std::vector<unsigned long long>(h.begin(), h.end());
}

struct case_sizes {
  std::int64_t na, nb;
};

}  // namespace

// Every cluster size with 1 and 3 copies per share, three modes, bin counts below the cluster
// size (blocks that own no slot), about one per value, and past one block's shared memory.
TEST(GpuClusterHistogram, EveryClusterSizeMatchesCpuBackend)
{
  REQUIRE_CLUSTERS();
  using Input = input::shuffle_tile<128, 2>;
  std::vector<case_sizes> const sizes{{0, 0}, {1, 1}, {33, 31}, {700, 333}, {2500, 2500}};
  for (pair_mode m : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
    for (case_sizes s : sizes) {
      if (m != pair_mode::cross && s.na != s.nb) { s.nb = s.na; }
      tbt::host_points<float, 3> ha(s.na, 11 + unsigned(s.na)), hb(s.nb, 17 + unsigned(s.nb));
      tbt::device_points<float, 3> a(ha), b(hb);
      auto const pairs = tbt::make_pairs(m, a.view(), b.view());
      for (int nbins : {3, 3000, 12000, 70000}) {
        auto const want = reference(m, ha, hb, nbins);
        for (int cluster = 1; cluster <= 16; ++cluster) {
          for (int copies : {1, 3}) {
            if (tbt::quick() && cluster % 4 != 1 && cluster != 16) { continue; }
            auto counts = tbt::poisoned<unsigned long long>(nbins + 1);
            histogram<Input>(pairs, squared_euclidean{}, bins_of<float>(nbins), thrust::raw_pointer_cast(counts.data()),
                             output::cluster_privatized{cluster, copies});
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            EXPECT_EQ(to_host(counts), want) << tbt::mode_name(m) << " na=" << s.na << " nb=" << s.nb << " bins=" << nbins
                                             << " cluster=" << cluster << " copies=" << copies;
          }
        }
      }
    }
  }
}

// Up to the largest histogram one cluster holds in one pass (16 x 227 KB), and past it in
// several passes; the tiled inputs with a tile in shared memory too.
TEST(GpuClusterHistogram, LargestHistogramsAndEveryInput)
{
  REQUIRE_CLUSTERS();
  tbt::host_points<float, 3> ha(3001, 5), hb(1999, 6);
  tbt::device_points<float, 3> a(ha), b(hb);
  for (pair_mode m : {pair_mode::self, pair_mode::cross}) {
    auto const pairs = tbt::make_pairs(m, a.view(), b.view());
    for (int nbins : {900000, 1500000}) {
      // Scales 75 and 125 (exact): a value x lands at 75 x + 37.5 or 125 x + 62.5, half-way
      // between edges; 1.5 M bins (6 MB) need two passes even with 16 blocks.
      auto const want = reference(m, ha, hb, nbins);
      auto run = [&](auto input, int cluster, int copies) {
        using Input = decltype(input);
        auto counts = tbt::poisoned<unsigned long long>(nbins + 1);
        histogram<Input>(pairs, squared_euclidean{}, bins_of<float>(nbins), thrust::raw_pointer_cast(counts.data()),
                         output::cluster_privatized{cluster, copies});
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        EXPECT_EQ(to_host(counts), want) << tbt::mode_name(m) << " bins=" << nbins << " cluster=" << cluster;
      };
      run(input::shuffle_tile<256, 4>{}, 16, 1);
      run(input::shuffle_tile<256, 4>{}, 8, 1);
      run(input::shared_tile<256, 4>{}, 16, 1);
      run(input::readonly_tile<64, 2>{}, 4, 2);
      run(input::shuffle_tile<256, 4>{}, 0, 0);  // the model's layout for this input
    }
  }
}

// The 32-bit shared counters are flushed on a schedule every block of a cluster shares; a
// period of 1, 2 and 7 units forces many flushes (barriers that must match in every block,
// also in blocks with one unit more than others, and in blocks without units).
TEST(GpuClusterHistogram, ForcedFlushesKeepEveryCount)
{
  REQUIRE_CLUSTERS();
  using Input  = input::shuffle_tile<64, 1>;
  using Points = points<float, 3>;
  tbt::host_points<float, 3> ha(5000, 21), hb(3001, 22);
  tbt::device_points<float, 3> a(ha), b(hb);
  for (pair_mode m : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
    auto const pairs = tbt::make_pairs(m, a.view(), b.view());
    for (int nbins : {5, 20000}) {
      auto const want = reference(m, ha, hb, nbins);
      for (int cluster : {2, 5, 16}) {
        for (unsigned long long period : {1ull, 2ull, 7ull}) {
          if (tbt::quick() && (cluster == 2 || period == 2)) { continue; }  // under the sanitizers
          auto counts = tbt::poisoned<unsigned long long>(nbins + 1);
          ASSERT_EQ(cudaMemset(thrust::raw_pointer_cast(counts.data()), 0, sizeof(unsigned long long) * (nbins + 1)),
                    cudaSuccess);
          using kernel = detail::cluster_kernel<Input, Points, squared_euclidean, uniform_bins<float>, unsigned long long>;
          auto const layout = detail::plan_cluster(nbins + 1, cluster, 2, 4, kernel::dynamic_smem_limit());
          detail::launch_cluster<Input>(pairs, squared_euclidean{}, bins_of<float>(nbins),
                                        thrust::raw_pointer_cast(counts.data()), layout, 0, period);
          ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
          EXPECT_EQ(to_host(counts), want) << tbt::mode_name(m) << " bins=" << nbins << " cluster=" << cluster
                                           << " flush every " << period;
        }
      }
    }
  }
}

// Weights in double counters (red.shared::cluster.add.f64), a periodic box and (r_p, pi) bins.
TEST(GpuClusterHistogram, WeightedPeriodicAndTwoDimensional)
{
  REQUIRE_CLUSTERS();
  using Input = input::shuffle_tile<256, 4>;
  tbt::host_points<float, 3> ha(tbt::quick() ? 400 : 1500, 7), hb(tbt::quick() ? 300 : 700, 8);
  auto const hda = ha.as<double>();
  auto const hdb = hb.as<double>();
  tbt::device_points<float, 3> a(ha), b(hb);
  for (pair_mode m : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
    for (int cluster : {2, 7, 16}) {
      if (tbt::quick() && cluster == 2) { continue; }  // under the sanitizers
      {  // dyadic weights: exact products and sums
        std::vector<double> want(12001);
        cpu::histogram(tbt::make_pairs(m, hda.weighted_view(), hdb.weighted_view()), squared_euclidean{},
                       bins_of<double>(12000), want.data());
        auto counts = tbt::poisoned<double>(12001);
        histogram<Input>(tbt::make_pairs(m, a.weighted_view(), b.weighted_view()), squared_euclidean{}, bins_of<float>(12000),
                         thrust::raw_pointer_cast(counts.data()), output::cluster_privatized{cluster, 1});
        thrust::host_vector<double> got = counts;
        EXPECT_EQ(std::vector<double>(got.begin(), got.end()), want) << "weighted " << tbt::mode_name(m) << " " << cluster;
      }
      {  // minimum image in a box of side 64: squared distances are integers up to 3 * 32^2
        auto const pf = make_periodic_squared_euclidean(64.f, 64.f, 64.f);
        auto const pd = make_periodic_squared_euclidean(64.0, 64.0, 64.0);
        uniform_bins<double> const bd(-0.5, 3071.5, 38400);  // scale 12.5: values at 12.5 x + 6.25, off the edges
        std::vector<unsigned long long> want(bd.size() + 1);
        cpu::histogram(tbt::make_pairs(m, hda.view(), hdb.view()), pd, bd, want.data());
        auto counts = tbt::poisoned<unsigned long long>(want.size());
        histogram<Input>(tbt::make_pairs(m, a.view(), b.view()), pf, uniform_bins<float>(-0.5f, 3071.5f, 38400),
                         thrust::raw_pointer_cast(counts.data()), output::cluster_privatized{cluster, 2});
        EXPECT_EQ(to_host(counts), want) << "periodic " << tbt::mode_name(m) << " " << cluster;
      }
      {  // (r_p, pi): r_p = sqrt(integer) off the edges (2k + 1) / 4, pi integers off the edges k + 1/2
        auto const b2f = make_bins_2d(uniform_bins<float>(0.25f, 64.25f, 128), uniform_bins<float>(0.5f, 64.5f, 64));
        auto const b2d = make_bins_2d(uniform_bins<double>(0.25, 64.25, 128), uniform_bins<double>(0.5, 64.5, 64));
        std::vector<unsigned long long> want(b2d.size() + 1);
        cpu::histogram(tbt::make_pairs(m, hda.view(), hdb.view()), rp_pi_separation{}, b2d, want.data());
        auto counts = tbt::poisoned<unsigned long long>(want.size());
        histogram<Input>(tbt::make_pairs(m, a.view(), b.view()), rp_pi_separation{}, b2f,
                         thrust::raw_pointer_cast(counts.data()), output::cluster_privatized{cluster, 1});
        EXPECT_EQ(to_host(counts), want) << "rp-pi " << tbt::mode_name(m) << " " << cluster;
      }
    }
  }
}

// The one-call form plans clusters only where the model predicts them faster: on the H100 the
// remote updates make them slower than passes over windows (see policy::h100_cluster), so it
// keeps them off; TWOBODY_POLICY=cluster=N forces them, and the counts stay the CPU backend's.
TEST(GpuClusterHistogram, OneCallPlansClustersOnlyWhereFaster)
{
  REQUIRE_CLUSTERS();
  tbt::host_points<float, 3> ha(20000, 31);
  tbt::device_points<float, 3> a(ha);
  auto const pairs = self_pairs(a.view());
  int const nbins  = 150000;  // scale 12.5: values at 12.5 x + 6.25, off the edges
  auto const want  = reference(pair_mode::self, ha, ha, nbins);
  policy_plan const plan = plan_histogram(pairs, squared_euclidean{}, bins_of<float>(nbins));
  EXPECT_EQ(plan.output, output::warp_privatized::kind) << plan;
  EXPECT_TRUE(plan.passes > 1 || plan.spill) << plan;
  auto r = histogram(pairs, squared_euclidean{}, bins_of<float>(nbins));
  r.counts.push_back(r.outside);
  EXPECT_EQ(r.counts, want);
  for (char const* force : {"cluster=4", "cluster=16,copies=2"}) {
    setenv("TWOBODY_POLICY", force, 1);
    policy_plan const forced = plan_histogram(pairs, squared_euclidean{}, bins_of<float>(nbins));
    auto rf                  = histogram(pairs, squared_euclidean{}, bins_of<float>(nbins));
    unsetenv("TWOBODY_POLICY");
    EXPECT_EQ(forced.output, output::cluster_privatized::kind) << forced;
    EXPECT_TRUE(forced.forced);
    rf.counts.push_back(rf.outside);
    EXPECT_EQ(rf.counts, want) << force;
  }
}

// Past about 400 k bins the one-call form plans one global atomic per pair (measured faster than
// passes over windows), or one pass that spills the bins outside its shared window to global
// atomics, and its counts stay the CPU backend's.
TEST(GpuClusterHistogram, OneCallTakesGlobalAtomicsForHugeHistograms)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> ha(20000, 41), hb(3000, 42);
  tbt::device_points<float, 3> a(ha), b(hb);
  int const nbins = 1500000;  // scale 125: values at 125 x + 62.5, off the edges
  for (pair_mode m : {pair_mode::self, pair_mode::cross}) {
    auto const pairs = tbt::make_pairs(m, a.view(), b.view());
    policy_plan const plan = plan_histogram(pairs, squared_euclidean{}, bins_of<float>(nbins));
    EXPECT_TRUE(plan.output == output::global_atomics::kind || plan.spill) << plan;
    auto counts = tbt::poisoned<unsigned long long>(nbins + 1);
    histogram(pairs, squared_euclidean{}, bins_of<float>(nbins), thrust::raw_pointer_cast(counts.data()));
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(to_host(counts), reference(m, ha, hb, nbins)) << tbt::mode_name(m);
  }
}

TEST(GpuClusterHistogram, BadArgumentsThrow)
{
  REQUIRE_CLUSTERS();
  tbt::host_points<float, 3> ha(100, 3);
  tbt::device_points<float, 3> a(ha);
  auto counts = tbt::poisoned<unsigned long long>(101);
  auto* d     = thrust::raw_pointer_cast(counts.data());
  using In    = input::shuffle_tile<128, 2>;
  EXPECT_THROW(histogram<In>(self_pairs(a.view()), squared_euclidean{}, bins_of<float>(100), d, output::cluster_privatized{17, 1}),
               twobody::error);
  EXPECT_THROW(histogram<In>(self_pairs(a.view()), squared_euclidean{}, bins_of<float>(100), d, output::cluster_privatized{4, 33}),
               twobody::error);
  EXPECT_THROW(histogram<In>(self_pairs(a.view()), squared_euclidean{}, bins_of<float>(100), d, output::cluster_privatized{-1, 1}),
               twobody::error);
}
