// Batched frames and small sets on the GPU: frame histograms and counts against the
// independent reference and the CPU backend (device and host arrays, device offsets and boxes,
// chunks of host frames, poisoned device outputs), small one-call sets on the small tiles, a small
// call as one kernel, the asynchronous forms captured in a CUDA graph and replayed 1000 times, and
// asynchronous calls back to back between plain kernels that write their points and read their outputs.
#include "common.cuh"
#include "frames_data.cuh"

#include <twobody/frames.cuh>

#include <thrust/device_vector.h>

using namespace twobody;

namespace {

using pts   = points<float, 3>;
using pbox  = periodic_squared_euclidean<float, 3>;
using within_sq = within<pbox, float>;

uniform_bins<float> const bins(0.5f, 80.5f, 40);

/// A trajectory's arrays on the device.
struct device_trajectory {
  thrust::device_vector<float> x, y, z, boxes;
  thrust::device_vector<size_type> offsets;
  size_type frames;
  explicit device_trajectory(tbt::trajectory const& t)
    : x(t.x), y(t.y), z(t.z), boxes(t.boxes), offsets(t.offsets), frames(t.frames())
  {
  }
  frame_set<pts> set() const
  {
    pts p = make_points(static_cast<size_type>(x.size()), thrust::raw_pointer_cast(x.data()), thrust::raw_pointer_cast(y.data()),
                        thrust::raw_pointer_cast(z.data()));
    return make_frames(p, thrust::raw_pointer_cast(offsets.data()), frames).with_boxes(thrust::raw_pointer_cast(boxes.data()));
  }
};

std::vector<int> random_sizes(int frames, int max_size, unsigned seed)
{
  std::mt19937 rng(seed);
  std::vector<int> s(static_cast<std::size_t>(frames));
  for (auto& n : s) { n = static_cast<int>(rng() % static_cast<unsigned>(max_size + 1)); }
  if (frames > 3) { s[1] = 0, s[2] = 1; }
  return s;
}

void expect_same(std::vector<histogram_result<unsigned long long>> const& got,
                 std::vector<std::vector<unsigned long long>> const& ref)
{
  ASSERT_EQ(got.size(), ref.size());
  for (std::size_t f = 0; f < ref.size(); ++f) {
    std::vector<unsigned long long> g = got[f].counts;
    g.push_back(got[f].outside);
    ASSERT_EQ(g, ref[f]) << "frame " << f;
  }
}

}  // namespace

TEST(GpuFrames, HistogramsPerFrameAndSummedMatchTheReference)
{
  TBT_REQUIRE_GPU();
  for (int max_size : {40, 300, 1500}) {
    tbt::trajectory const t = tbt::make_trajectory(random_sizes(tbt::quick() ? 50 : 400, max_size, 5 + max_size), 1 + max_size);
    auto const ref          = tbt::reference_histograms(t, nullptr, 0.5, 80.5, 40);
    device_trajectory const d(t);
    // Device arrays, device offsets and boxes.
    expect_same(histogram_per_frame(exec::gpu, self_frame_pairs(d.set()), pbox{}, bins), ref);
    // Host arrays.
    expect_same(histogram_per_frame(exec::gpu, self_frame_pairs(t.frame_set()), pbox{}, bins), ref);
    auto const sum = histogram_frames(exec::gpu, self_frame_pairs(d.set()), pbox{}, bins);
    for (int k = 0; k < bins.size(); ++k) {
      unsigned long long s = 0;
      for (auto const& r : ref) { s += r[k]; }
      ASSERT_EQ(sum.counts[k], s) << max_size << " bin " << k;
    }
  }
}

TEST(GpuFrames, HostFramesGoInChunksWithProgress)
{
  TBT_REQUIRE_GPU();
  tbt::trajectory const t = tbt::make_trajectory(random_sizes(60, 400, 9), 9);
  auto const ref          = tbt::reference_histograms(t, nullptr, 0.5, 80.5, 40);
  frames_options opt;
  opt.chunk_points = 700;  // a few frames per chunk, some chunks of one frame larger than this
  std::vector<size_type> done;
  opt.progress = [&](size_type d, size_type all) {
    EXPECT_EQ(all, t.frames());
    done.push_back(d);
  };
  expect_same(histogram_per_frame(exec::gpu, self_frame_pairs(t.frame_set()), pbox{}, bins, opt), ref);
  ASSERT_GT(done.size(), 5u);
  EXPECT_EQ(done.back(), t.frames());
  EXPECT_TRUE(std::is_sorted(done.begin(), done.end()));
  auto const counts = count_per_frame(exec::gpu, self_frame_pairs(t.frame_set()), within_sq{pbox{}, 30.5f}, opt);
  EXPECT_EQ(counts, count_per_frame(exec::cpu, self_frame_pairs(t.frame_set()), within_sq{pbox{}, 30.5f}));
  // Cross species from host arrays in runs (both sides staged per run), and the summed forms.
  tbt::trajectory a, b;
  tbt::split_species(t, a, b);
  auto const cross   = cross_frame_pairs(a.frame_set(), b.frame_set());
  auto const per_ref = tbt::reference_histograms(a, &b, 0.5, 80.5, 40);
  std::vector<unsigned long long> summed(per_ref[0].size(), 0);
  for (auto const& h : per_ref) {
    for (std::size_t k = 0; k < h.size(); ++k) { summed[k] += h[k]; }
  }
  auto const got = histogram_frames(exec::gpu, cross, pbox{}, bins, opt);
  std::vector<unsigned long long> g = got.counts;
  g.push_back(got.outside);
  EXPECT_EQ(g, summed);
  EXPECT_EQ(count_frames(exec::gpu, cross, within_sq{pbox{}, 30.5f}, opt), count_frames(exec::cpu, cross, within_sq{pbox{}, 30.5f}));
}

TEST(GpuFrames, CrossSpeciesAndCountsMatchTheCpuBackend)
{
  TBT_REQUIRE_GPU();
  tbt::trajectory const t = tbt::make_trajectory(random_sizes(tbt::quick() ? 40 : 300, 900, 3), 3);
  tbt::trajectory a, b;
  tbt::split_species(t, a, b);
  device_trajectory const da(a), db(b);
  auto const pairs = cross_frame_pairs(da.set(), db.set());
  expect_same(histogram_per_frame(exec::gpu, pairs, pbox{}, bins), tbt::reference_histograms(a, &b, 0.5, 80.5, 40));
  device_trajectory const d(t);
  auto const gpu = count_per_frame(exec::gpu, self_frame_pairs(d.set()), within_sq{pbox{}, 30.5f});
  auto const cpu = count_per_frame(exec::cpu, self_frame_pairs(t.frame_set()), within_sq{pbox{}, 30.5f});
  EXPECT_EQ(gpu, cpu);
  unsigned long long total = 0;
  for (auto c : cpu) { total += c; }
  EXPECT_GT(total, 1000u);
  EXPECT_EQ(count_frames(exec::gpu, self_frame_pairs(d.set()), within_sq{pbox{}, 30.5f}), total);
  EXPECT_EQ(count_frames(exec::gpu, cross_frame_pairs(da.set(), db.set()), within_sq{pbox{}, 30.5f}),
            count_frames(exec::cpu, cross_frame_pairs(a.frame_set(), b.frame_set()), within_sq{pbox{}, 30.5f}));
}

TEST(GpuFrames, DeviceOutputsAreOverwritten)
{
  TBT_REQUIRE_GPU();
  tbt::trajectory const t = tbt::make_trajectory(random_sizes(30, 500, 4), 4);
  device_trajectory const d(t);
  auto const ref = tbt::reference_histograms(t, nullptr, 0.5, 80.5, 40);
  std::size_t const slots = static_cast<std::size_t>(bins.size()) + 1;
  thrust::device_vector<unsigned long long> h(slots * ref.size(), 0xdeadbeefull);  // poisoned
  histogram_per_frame(self_frame_pairs(d.set()), pbox{}, bins, thrust::raw_pointer_cast(h.data()));
  std::vector<unsigned long long> got(h.size());
  thrust::copy(h.begin(), h.end(), got.begin());
  for (std::size_t f = 0; f < ref.size(); ++f) {
    EXPECT_EQ(std::vector<unsigned long long>(got.begin() + f * slots, got.begin() + (f + 1) * slots), ref[f]) << f;
  }
  thrust::device_vector<unsigned long long> c(ref.size(), 0xdeadbeefull);
  count_per_frame(self_frame_pairs(d.set()), within_sq{pbox{}, 30.5f}, thrust::raw_pointer_cast(c.data()));
  auto const cpu = count_per_frame(exec::cpu, self_frame_pairs(t.frame_set()), within_sq{pbox{}, 30.5f});
  std::vector<unsigned long long> cg(c.size());
  thrust::copy(c.begin(), c.end(), cg.begin());
  EXPECT_EQ(cg, cpu);
}

TEST(GpuFrames, BadInputIsRefused)
{
  TBT_REQUIRE_GPU();
  tbt::trajectory t = tbt::make_trajectory({10, 20, 30}, 3);
  std::vector<float> small = t.boxes;
  small[7]                 = 16.f;
  EXPECT_THROW(histogram_frames(exec::gpu, self_frame_pairs(t.frame_set().with_boxes(small.data())), pbox{}, bins),
               twobody::error);
  thrust::device_vector<unsigned long long> out(41);
  std::vector<unsigned long long> host_out(41);
  EXPECT_THROW(histogram_frames(self_frame_pairs(t.frame_set()), pbox{}, bins, host_out.data()), twobody::error);
}

// Small one-call sets take the small tile: every size around its 128 points, against the CPU backend.
TEST(GpuSmallSets, OneCallHistogramsAndCountsAtSmallSizes)
{
  TBT_REQUIRE_GPU();
  pbox const f{{24, 24, 24}};
  uniform_bins<float> const b(0.5f, 120.5f, 60);
  for (int n : {1, 2, 3, 64, 127, 128, 129, 255, 256, 257, 1000, 4097}) {
    tbt::trajectory const t = tbt::make_trajectory({n}, 100 + n);
    // make_trajectory draws a random box; use coordinates below 18 in every axis's box of 24.
    auto const hp = self_pairs(t.view());
    thrust::device_vector<float> x(t.x), y(t.y), z(t.z);
    auto const dp = self_pairs(make_points(static_cast<size_type>(n), thrust::raw_pointer_cast(x.data()),
                                           thrust::raw_pointer_cast(y.data()), thrust::raw_pointer_cast(z.data())));
    auto const g = histogram(exec::gpu, dp, f, b);
    auto const c = histogram(exec::cpu, hp, f, b);
    EXPECT_EQ(g.counts, c.counts) << n;
    EXPECT_EQ(g.outside, c.outside) << n;
    EXPECT_EQ(count_pairs(exec::gpu, dp, within_sq{f, 30.5f}), count_pairs(exec::cpu, hp, within_sq{f, 30.5f})) << n;
    auto const cross = cross_pairs(dp.a, dp.a);
    EXPECT_EQ(count_pairs(exec::gpu, cross, within_radius(4.f)), count_pairs(exec::cpu, cross_pairs(hp.a, hp.a), within_radius(4.f))) << n;
  }
}

__global__ void accumulate(unsigned long long* acc, unsigned long long const* v, int n)
{
  for (int i = threadIdx.x; i < n; i += blockDim.x) { acc[i] += v[i]; }
}

// The asynchronous forms with device outputs (and, for the count, caller-provided temporary
// storage) captured in one CUDA graph and replayed 1000 times; after each replay a kernel adds
// the results up, so every replay must have produced the whole result.
TEST(GpuGraphs, CapturedHistogramAndCountReplay1000Times)
{
  TBT_REQUIRE_GPU();
  int const n             = 3000;
  tbt::trajectory const t = tbt::make_trajectory({n}, 77);
  pbox const f{{t.boxes[0], t.boxes[1], t.boxes[2]}};
  thrust::device_vector<float> x(t.x), y(t.y), z(t.z);
  auto const dp = self_pairs(make_points(static_cast<size_type>(n), thrust::raw_pointer_cast(x.data()),
                                         thrust::raw_pointer_cast(y.data()), thrust::raw_pointer_cast(z.data())));
  int const slots = bins.size() + 1;
  thrust::device_vector<unsigned long long> h(slots + 1, 0xdeadbeefull), acc(slots + 1, 0);
  std::size_t temp_bytes = 0;
  count_pairs(nullptr, temp_bytes, dp, within_sq{f, 30.5f}, thrust::raw_pointer_cast(h.data()) + slots);
  thrust::device_vector<unsigned char> temp(temp_bytes);
  cudaStream_t s{};
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cudaGraph_t graph{};
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  histogram(dp, f, bins, thrust::raw_pointer_cast(h.data()), s);
  count_pairs(thrust::raw_pointer_cast(temp.data()), temp_bytes, dp, within_sq{f, 30.5f}, thrust::raw_pointer_cast(h.data()) + slots, s);
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
  cudaGraphExec_t exec_graph{};
  ASSERT_EQ(cudaGraphInstantiate(&exec_graph, graph, 0), cudaSuccess);
  int const replays = 1000;
  for (int r = 0; r < replays; ++r) {
    ASSERT_EQ(cudaGraphLaunch(exec_graph, s), cudaSuccess);
    accumulate<<<1, 128, 0, s>>>(thrust::raw_pointer_cast(acc.data()), thrust::raw_pointer_cast(h.data()), slots + 1);
  }
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  auto const ref = tbt::reference_histograms(t, nullptr, 0.5, 80.5, 40)[0];
  auto const cnt = tbt::reference_histograms(t, nullptr, -0.5, 30.5, 1)[0][0];
  std::vector<unsigned long long> got(acc.size());
  thrust::copy(acc.begin(), acc.end(), got.begin());
  for (int k = 0; k < slots; ++k) { EXPECT_EQ(got[k], replays * ref[k]) << k; }
  EXPECT_EQ(got[slots], replays * cnt);
  EXPECT_GT(cnt, 0u);
  (void)cudaGraphExecDestroy(exec_graph);
  (void)cudaGraphDestroy(graph);
  (void)cudaStreamDestroy(s);
}

// A small call is one GPU operation: the histogram's kernel zeroes its own (poisoned) output
// and the count's kernel adds its blocks' counts into its result (cooperative launches), so
// each captures as one graph node. Results against the reference at sizes that take each small tile.
TEST(GpuSmallSets, SmallCallsAreOneKernel)
{
  TBT_REQUIRE_GPU();
  if (!device_info::get().cooperative_launch) { GTEST_SKIP() << "no cooperative launches on this GPU"; }
  cudaStream_t s{};
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  auto nodes_of = [&](auto&& call) {
    cudaGraph_t graph{};
    EXPECT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    call();
    EXPECT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
    std::size_t nodes = 0;
    EXPECT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
    cudaGraphExec_t exec_graph{};
    EXPECT_EQ(cudaGraphInstantiate(&exec_graph, graph, 0), cudaSuccess);
    EXPECT_EQ(cudaGraphLaunch(exec_graph, s), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    (void)cudaGraphExecDestroy(exec_graph);
    (void)cudaGraphDestroy(graph);
    return nodes;
  };
  for (int n : {200, 1000, 4000, 12000}) {
    tbt::trajectory const t = tbt::make_trajectory({n}, 300 + n);
    pbox const f{{t.boxes[0], t.boxes[1], t.boxes[2]}};
    thrust::device_vector<float> x(t.x), y(t.y), z(t.z);
    auto const dp = self_pairs(make_points(static_cast<size_type>(n), thrust::raw_pointer_cast(x.data()),
                                           thrust::raw_pointer_cast(y.data()), thrust::raw_pointer_cast(z.data())));
    int const slots = bins.size() + 1;
    thrust::device_vector<unsigned long long> h(slots, 0xdeadbeefull), c(1, 0xdeadbeefull);
    histogram(dp, f, bins, thrust::raw_pointer_cast(h.data()), s);  // plans outside the capture
    EXPECT_EQ(nodes_of([&] { histogram(dp, f, bins, thrust::raw_pointer_cast(h.data()), s); }), 1u) << n;
    std::size_t temp_bytes = 0;
    count_pairs(nullptr, temp_bytes, dp, within_sq{f, 30.5f}, thrust::raw_pointer_cast(c.data()));
    thrust::device_vector<unsigned char> temp(temp_bytes);
    EXPECT_EQ(nodes_of([&] {
                count_pairs(thrust::raw_pointer_cast(temp.data()), temp_bytes, dp, within_sq{f, 30.5f},
                            thrust::raw_pointer_cast(c.data()), s);
              }),
              1u)
      << n;
    auto const ref = tbt::reference_histograms(t, nullptr, 0.5, 80.5, 40)[0];
    std::vector<unsigned long long> got(h.size());
    thrust::copy(h.begin(), h.end(), got.begin());
    EXPECT_EQ(got, ref) << n;
    auto const count_ref = tbt::reference_histograms(t, nullptr, -0.5, 30.5, 1)[0][0];
    EXPECT_EQ(c[0], count_ref) << n;
    // The one-call count into device memory needs no scratch: it too is one node, no allocation.
    c[0] = 0xdeadbeefull;
    EXPECT_EQ(nodes_of([&] { count_pairs(dp, within_sq{f, 30.5f}, thrust::raw_pointer_cast(c.data()), s); }), 1u) << n;
    EXPECT_EQ(c[0], count_ref) << n;
    // A floating reduction folded in the kernel: the sum of all minimum-image squared distances
    // (integer coordinates: every term and the double sum are exact integers).
    thrust::device_vector<double> sum(1, -1.0);
    reduce_pairs(dp, f, cuda::std::plus<double>{}, 0.0, thrust::raw_pointer_cast(sum.data()), s);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(static_cast<double>(sum[0]), reduce_pairs(exec::cpu, self_pairs(t.view()), f, cuda::std::plus<double>{}, 0.0)) << n;
    if (n > 4000) { continue; }
    // Per-point sums of small sets zero their output inside the kernel too (one node; a memset
    // and the kernel past detail::cooperative_per_point_points), poisoned output overwritten,
    // each point's sum of minimum-image squared distances exact (integers).
    auto const op = ordered_pairs(dp.a);
    thrust::device_vector<double> per(static_cast<std::size_t>(n), -7.0);
    sum_per_point(op, f, thrust::raw_pointer_cast(per.data()), s);  // plans outside the capture
    thrust::fill(per.begin(), per.end(), -7.0);
    EXPECT_EQ(nodes_of([&] { sum_per_point(op, f, thrust::raw_pointer_cast(per.data()), s); }),
              n <= detail::cooperative_per_point_points ? 1u : 2u)
      << n;
    std::vector<double> want(static_cast<std::size_t>(n), 0.0);
    auto const hp = t.view();
    for (size_type i = 0; i < n; ++i) {
      for (size_type j = 0; j < n; ++j) {
        if (j != i) { want[static_cast<std::size_t>(i)] += static_cast<double>(f(hp[i], hp[j])); }
      }
    }
    std::vector<double> got_per(per.size());
    thrust::copy(per.begin(), per.end(), got_per.begin());
    EXPECT_EQ(got_per, want) << n;
  }
  (void)cudaStreamDestroy(s);
}

namespace {

/// A plain kernel between the library's calls.
template <class T>
__global__ void copy_values(T const* from, T* to, int n)
{
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += static_cast<int>(gridDim.x * blockDim.x)) {
    to[i] = from[i];
  }
}

}  // namespace

// Asynchronous calls back to back with plain kernels between them and no synchronization, as a
// loop over trajectory frames runs them: each call must see the points a kernel wrote just before
// it, overwrite an output only after the kernel that read it, and a reader right after it must see
// the finished output (in-kernel zeroing, grid barriers and last-block folds included). A launch
// that overlapped its predecessor (programmatic dependent launch, tried in issue 24) must keep this.
TEST(GpuSmallSets, BackToBackCallsWaitForTheKernelsBeforeThem)
{
  TBT_REQUIRE_GPU();
  int const n = 4000, frames = 6;
  tbt::trajectory const t = tbt::make_trajectory(std::vector<int>(frames, n), 2024);
  device_trajectory const all(t);
  thrust::device_vector<float> x(n, -1.f), y(n, -1.f), z(n, -1.f);
  auto raw  = [](auto& v) { return thrust::raw_pointer_cast(v.data()); };
  auto box_of = [&](int k) { return pbox{{t.boxes[3 * k], t.boxes[3 * k + 1], t.boxes[3 * k + 2]}}; };
  auto const dp  = self_pairs(make_points(static_cast<size_type>(n), raw(x), raw(y), raw(z)));
  auto const op  = ordered_pairs(dp.a);
  int const slots = bins.size() + 1;
  thrust::device_vector<unsigned long long> h(slots, 0xdeadbeefull), h_seen(std::size_t(frames) * slots, 0xdeadbeefull);
  thrust::device_vector<unsigned long long> counts(frames, 0xdeadbeefull);
  thrust::device_vector<float> sums(n, -7.f), sums_seen(std::size_t(frames) * n, -7.f);
  cudaStream_t s{};
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  for (int k = 0; k < frames; ++k) {
    std::size_t const first = std::size_t(k) * n;
    pbox const f            = box_of(k);
    copy_values<<<8, 128, 0, s>>>(raw(all.x) + first, raw(x), n);
    copy_values<<<8, 128, 0, s>>>(raw(all.y) + first, raw(y), n);
    copy_values<<<8, 128, 0, s>>>(raw(all.z) + first, raw(z), n);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    histogram(dp, f, bins, raw(h), s);  // the same output each frame, read by the copy after it
    count_pairs(dp, within_sq{f, 30.5f}, raw(counts) + k, s);
    sum_per_point(op, f, raw(sums), s);
    copy_values<<<1, 64, 0, s>>>(raw(h), raw(h_seen) + std::size_t(k) * slots, slots);
    copy_values<<<8, 128, 0, s>>>(raw(sums), raw(sums_seen) + first, n);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  }
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  (void)cudaStreamDestroy(s);
  auto const ref       = tbt::reference_histograms(t, nullptr, 0.5, 80.5, 40);
  auto const count_ref = tbt::reference_histograms(t, nullptr, -0.5, 30.5, 1);
  std::vector<unsigned long long> seen(h_seen.size());
  thrust::copy(h_seen.begin(), h_seen.end(), seen.begin());
  std::vector<float> sums_got(sums_seen.size());
  thrust::copy(sums_seen.begin(), sums_seen.end(), sums_got.begin());
  auto const hp = t.view();
  for (int k = 0; k < frames; ++k) {
    std::vector<unsigned long long> const got(seen.begin() + std::ptrdiff_t(k) * slots, seen.begin() + std::ptrdiff_t(k + 1) * slots);
    EXPECT_EQ(got, ref[std::size_t(k)]) << "frame " << k;
    EXPECT_EQ(counts[k], count_ref[std::size_t(k)][0]) << "frame " << k;
    // Integer coordinates: each point's sum of squared distances is an integer below 2^24, exact in float.
    pbox const f            = box_of(k);
    size_type const first   = size_type(k) * n;
    int wrong = 0;
    for (size_type i = first; i < first + n; ++i) {
      double want = 0.0;
      for (size_type j = first; j < first + n; ++j) {
        if (j != i) { want += static_cast<double>(f(hp[i], hp[j])); }
      }
      wrong += static_cast<double>(sums_got[static_cast<std::size_t>(i)]) == want ? 0 : 1;
    }
    EXPECT_EQ(wrong, 0) << "frame " << k;
  }
}
