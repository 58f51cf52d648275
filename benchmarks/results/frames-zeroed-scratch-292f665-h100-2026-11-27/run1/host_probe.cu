// Where the host-synchronous small call's time goes (issue 24): medians of host timers.
#include <twobody/twobody.cuh>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>
using namespace twobody;
using clk = std::chrono::steady_clock;
__global__ void empty_kernel() {}
template <class Fn>
double median_us(Fn&& fn, int reps = 2000)
{
  std::vector<double> t(reps);
  for (int i = 0; i < 50; ++i) fn();
  for (int i = 0; i < reps; ++i) {
    auto t0 = clk::now();
    fn();
    t[i] = std::chrono::duration<double, std::micro>(clk::now() - t0).count();
  }
  std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
  return t[reps / 2];
}
int main()
{
  for (int n : {256, 4096}) {
    std::vector<float> h(3 * n);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(0.f, 20.f);
    for (auto& v : h) v = u(rng);
    float* d;
    cudaMalloc(&d, sizeof(float) * 3 * n);
    cudaMemcpy(d, h.data(), sizeof(float) * 3 * n, cudaMemcpyHostToDevice);
    float* out;
    cudaMalloc(&out, sizeof(float) * n);
    unsigned long long* hist;
    cudaMalloc(&hist, sizeof(unsigned long long) * 200);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    auto p     = make_points(static_cast<size_type>(n), d, d + n, d + 2 * n);
    auto pairs = ordered_pairs(p);
    auto sp    = self_pairs(p);
    auto f     = gaussian_kernel(2.f);
    auto rf    = make_periodic_squared_euclidean(20.f, 20.f, 20.f);
    distance_bins<float> bins(9.5f, 128);
    std::printf("n = %d\n", n);
    std::printf("  empty launch (enqueue)               %7.2f us\n", median_us([&] { empty_kernel<<<1, 32, 0, s>>>(); }));
    cudaStreamSynchronize(s);
    std::printf("  empty launch + sync                  %7.2f us\n", median_us([&] { empty_kernel<<<1, 32, 0, s>>>(); cudaStreamSynchronize(s); }));
    std::printf("  sync of idle stream                  %7.2f us\n", median_us([&] { cudaStreamSynchronize(s); }));
    std::printf("  device_accessible (1 pointer)        %7.2f us\n", median_us([&] { (void)detail::device_accessible(d); }));
    std::printf("  cudaGetDevice                        %7.2f us\n", median_us([&] { int dev; cudaGetDevice(&dev); }));
    std::printf("  cudaStreamIsCapturing                %7.2f us\n", median_us([&] { cudaStreamCaptureStatus st; cudaStreamIsCapturing(s, &st); }));
    std::printf("  validate(pairs)                      %7.2f us\n", median_us([&] { detail::validate(pairs); }));
    std::printf("  current_gpu_status                   %7.2f us\n", median_us([&] { (void)detail::current_gpu_status(); }));
    std::printf("  plan_sum_per_point (cached)          %7.2f us\n", median_us([&] { (void)plan_sum_per_point<float>(pairs, f); }));
    std::printf("  plan_histogram (cached)              %7.2f us\n", median_us([&] { (void)plan_histogram<unsigned long long>(sp, rf, bins, s); }));
    std::printf("  mapped_result_buffer                 %7.2f us\n", median_us([&] { (void)detail::mapped_result_buffer(4 * n); }));
    std::printf("  zeroed_scratch::of_thread+settle     %7.2f us\n", median_us([&] { detail::zeroed_scratch::of_thread(4 * n)->settle(); }));
    std::printf("  per-point async (enqueue)            %7.2f us\n", median_us([&] { sum_per_point(pairs, f, out, s); }, 300));
    cudaStreamSynchronize(s);
    std::printf("  per-point async + sync               %7.2f us\n", median_us([&] { sum_per_point(pairs, f, out, s); cudaStreamSynchronize(s); }));
    std::printf("  per-point host form                  %7.2f us\n", median_us([&] { (void)sum_per_point(exec::gpu.on(s), pairs, f); }));
    std::printf("  rdf async (enqueue)                  %7.2f us\n", median_us([&] { histogram(sp, rf, bins, hist, s); }, 300));
    cudaStreamSynchronize(s);
    std::printf("  rdf async + sync                     %7.2f us\n", median_us([&] { histogram(sp, rf, bins, hist, s); cudaStreamSynchronize(s); }));
    std::printf("  rdf host form                        %7.2f us\n", median_us([&] { (void)histogram(exec::gpu.on(s), sp, rf, bins); }));
    std::printf("  count host form                      %7.2f us\n", median_us([&] { (void)count_pairs(exec::gpu.on(s), sp, within_radius(2.f)); }));
    // GPU time of one per-point host-form call, by events around it.
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<float> g(200);
    for (int i = 0; i < 200; ++i) {
      cudaEventRecord(e0, s);
      (void)sum_per_point(exec::gpu.on(s), pairs, f);
      cudaEventRecord(e1, s);
      cudaEventSynchronize(e1);
      cudaEventElapsedTime(&g[i], e0, e1);
    }
    std::nth_element(g.begin(), g.begin() + 100, g.end());
    std::printf("  per-point host form, events around   %7.2f us\n", g[100] * 1e3);
    for (int i = 0; i < 200; ++i) {
      cudaEventRecord(e0, s);
      (void)histogram(exec::gpu.on(s), sp, rf, bins);
      cudaEventRecord(e1, s);
      cudaEventSynchronize(e1);
      cudaEventElapsedTime(&g[i], e0, e1);
    }
    std::nth_element(g.begin(), g.begin() + 100, g.end());
    std::printf("  rdf host form, events around         %7.2f us\n", g[100] * 1e3);
    cudaFree(d); cudaFree(out); cudaFree(hist);
  }
}
