#include <twobody/twobody.cuh>
#include <chrono>
#include <cstdio>
#include <vector>
#include <random>
int main() {
  long long n = 1 << 20;
  std::vector<float> h(3 * n);
  std::mt19937 rng(1); std::uniform_real_distribution<float> u(0.f, 100.f);
  for (auto& v : h) v = u(rng);
  float* d; cudaMalloc(&d, sizeof(float) * 3 * n); cudaMemcpy(d, h.data(), sizeof(float) * 3 * n, cudaMemcpyHostToDevice);
  auto p = twobody::make_points(n, d, d + n, d + 2 * n);
  unsigned long long* c; cudaMalloc(&c, sizeof(unsigned long long) * (1 << 21));
  for (int nb : {65536, 1048576}) {
    twobody::distance_bins<float> bins(173.3f, nb);
    for (int k = 0; k < 3; ++k) {
      auto t0 = std::chrono::steady_clock::now();
      auto plan = twobody::plan_histogram(twobody::self_pairs(p), twobody::squared_euclidean{}, bins);
      auto t1 = std::chrono::steady_clock::now();
      twobody::histogram(twobody::self_pairs(p), twobody::squared_euclidean{}, bins, c);
      cudaDeviceSynchronize();
      auto t2 = std::chrono::steady_clock::now();
      std::printf("%d bins: plan_histogram %.1f ms, histogram() (plan and run) %.1f ms; %s\n", nb,
                  std::chrono::duration<double, std::milli>(t1 - t0).count(), std::chrono::duration<double, std::milli>(t2 - t1).count(),
                  plan.to_string().substr(0, 90).c_str());
    }
  }
}
