// Where an asynchronous count's host time goes (issue 24; with the pieces of the library's host work): medians of host timers, 2000 calls
// each after 50 warm-up calls; the stream is synchronized every 64 calls so the launch queue
// never fills (enqueue cost only).
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
double median_us(cudaStream_t s, Fn&& fn, int reps = 2000)
{
  std::vector<double> t(reps);
  for (int i = 0; i < 50; ++i) fn();
  cudaStreamSynchronize(s);
  for (int i = 0; i < reps; ++i) {
    if (i % 64 == 0) cudaStreamSynchronize(s);
    auto t0 = clk::now();
    fn();
    t[i] = std::chrono::duration<double, std::micro>(clk::now() - t0).count();
  }
  cudaStreamSynchronize(s);
  std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
  return t[reps / 2];
}
int main()
{
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
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
    unsigned long long* cnt;
    cudaMalloc(&cnt, sizeof(unsigned long long));
    auto p     = make_points(static_cast<size_type>(n), d, d + n, d + 2 * n);
    auto sp    = self_pairs(p);
    auto pred  = within_radius(3.f);
    std::size_t bytes = 0;
    count_pairs(nullptr, bytes, sp, pred, cnt, s);
    void* temp;
    cudaMalloc(&temp, bytes);
    void* args[] = {nullptr};
    std::printf("n = %d (temp %zu bytes)\n", n, bytes);
    std::printf("  empty launch <<<>>> (enqueue)             %7.2f us\n", median_us(s, [&] { empty_kernel<<<1, 32, 0, s>>>(); }));
    std::printf("  empty cooperative launch, 132 blocks      %7.2f us\n", median_us(s, [&] { cudaLaunchCooperativeKernel((void*)empty_kernel, 132, 32, args, 0, s); }));
    std::printf("  device_buffer 4 KiB (pool alloc + free)   %7.2f us\n", median_us(s, [&] { detail::device_buffer b(4096, s); }));
    std::printf("  require_device_pointer                    %7.2f us\n", median_us(s, [&] { detail::require_device_pointer(cnt, "x"); }));
    using P = decltype(p);
    using C = pair_count_t<P>;
    using Pred = decltype(pred);
    std::printf("  current_device                            %7.2f us\n", median_us(s, [&] { (void)detail::current_device(); }));
    std::printf("  staged_pairs (3 pointer checks)           %7.2f us\n", median_us(s, [&] { detail::staged_pairs<P> st(sp, s); }));
    std::printf("  plan_reduction (cached plan)              %7.2f us\n", median_us(s, [&] {
      (void)detail::plan_reduction<P, Pred, cuda::std::plus<C>, C, detail::count_inner_t<P>>(sp); }));
    std::printf("  count_pairs sizing query                  %7.2f us\n", median_us(s, [&] { std::size_t b = 0; count_pairs(nullptr, b, sp, pred, cnt, s); }));
    std::printf("  count_pairs with temp (enqueue)           %7.2f us\n", median_us(s, [&] { count_pairs(temp, bytes, sp, pred, cnt, s); }));
    std::printf("  count_pairs allocating (enqueue)          %7.2f us\n", median_us(s, [&] { count_pairs(sp, pred, cnt, s); }));
    {
      unsigned long long got = 0;
      cudaStreamSynchronize(s);
      cudaMemcpy(&got, cnt, sizeof(got), cudaMemcpyDeviceToHost);
      std::printf("  allocating count %llu, host-result count %llu\n", got, count_pairs(sp, pred, s));
    }
    std::printf("  sum_per_point (enqueue)                   %7.2f us\n", median_us(s, [&] { sum_per_point(ordered_pairs(p), gaussian_kernel(2.f), out, s); }));
    cudaFree(d); cudaFree(out); cudaFree(cnt); cudaFree(temp);
  }
  std::printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
