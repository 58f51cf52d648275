#define TWOBODY_PROBE_ENABLED
#include <twobody/twobody.cuh>
#include <cstdio>
#include <vector>
#include <random>
#include <algorithm>
#include <map>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
template <class Call>
int trial_set(char const* name, Call&& call, cudaStream_t s)
{
  int const warps_total = 1 << 14;
  std::vector<unsigned long long> h(8 * warps_total);
  std::map<int, std::vector<double>> stats;  // key: metric id
  std::vector<double> total_ns;
  for (int w = 0; w < 50; ++w) call();
  CK(cudaStreamSynchronize(s));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int t = 0; t < 21; ++t) {
    std::vector<unsigned long long> zero(h.size(), 0);
    CK(cudaMemcpyToSymbol(twobody_probe_records, zero.data(), 8 * zero.size()));
    CK(cudaEventRecord(e0, s)); call(); CK(cudaEventRecord(e1, s));
    CK(cudaStreamSynchronize(s));
    float ms; cudaEventElapsedTime(&ms, e0, e1); total_ns.push_back(ms * 1e6);
    CK(cudaMemcpyFromSymbol(h.data(), twobody_probe_records, 8 * h.size()));
    unsigned long long t0 = ~0ull; int nw = 0;
    for (int w = 0; w < warps_total; ++w) if (h[8*w] != 0) { t0 = std::min(t0, h[8*w]); nw = w + 1; }
    std::vector<double> v[7];
    std::map<int, double> sm_end;
    for (int w = 0; w < nw; ++w) {
      unsigned long long const* r = &h[8*w];
      if (r[0] == 0) continue;
      for (int k = 0; k < 7; ++k) if (r[k] != 0) v[k].push_back(double(r[k] - t0));
      int sm = int(r[7]); sm_end[sm] = std::max(sm_end[sm], double(r[6] - t0));
    }
    for (int k = 0; k < 7; ++k) {
      auto& x = v[k]; if (x.empty()) continue; std::sort(x.begin(), x.end());
      stats[10*k+0].push_back(x.front()); stats[10*k+1].push_back(x[x.size()/2]); stats[10*k+2].push_back(x.back());
      stats[10*k+3].push_back(double(x.size()));
    }
    std::vector<double> ends; for (auto& kv : sm_end) ends.push_back(kv.second); std::sort(ends.begin(), ends.end());
    stats[100].push_back(ends.front()); stats[101].push_back(ends[ends.size()/2]); stats[102].push_back(ends.back());
    stats[103].push_back(double(ends.size()));
    if (t == 10) {
      // the latest SM's warps
      int worst = 0; double we = -1; for (auto& kv : sm_end) if (kv.second > we) { we = kv.second; worst = kv.first; }
      printf("  %s trial 10: latest SM %d ends at %.0f ns; its warps (slot: ns)\n", name, worst, we);
      int shown = 0;
      for (int w = 0; w < nw && shown < 40; ++w) { unsigned long long const* r = &h[8*w]; if (r[0] == 0 || int(r[7]) != worst) continue; ++shown;
        printf("    block %4d warp %d:", w / 8, w % 8); for (int k = 0; k < 7; ++k) printf(" %6.0f", r[k] ? double(r[k] - t0) : -1.0); printf("\n"); }
    }
  }
  auto med = [](std::vector<double> x) { std::sort(x.begin(), x.end()); return x[x.size()/2]; };
  printf("%s: event time median %.0f ns (kernel incl. launch)\n", name, med(total_ns));
  char const* names[] = {"0 entry", "1 agent+source built", "2 first columns staged", "3 first end_columns", "4 first wait passed", "5 run done", "6 finish done"};
  for (int k = 0; k < 7; ++k) {
    if (!stats.count(10*k)) continue;
    printf("  %-24s min %7.0f median %7.0f max %7.0f ns (%0.f warps)\n", names[k], med(stats[10*k]), med(stats[10*k+1]), med(stats[10*k+2]), med(stats[10*k+3]));
  }
  printf("  per-SM last warp end: min %.0f median %.0f max %.0f ns over %.0f SMs\n", med(stats[100]), med(stats[101]), med(stats[102]), med(stats[103]));
  return 0;
}
int main()
{
  int const n = 4096;
  std::mt19937 rng(7); std::uniform_real_distribution<float> u(0.f, 100.f);
  float* c[3];
  for (int d = 0; d < 3; ++d) { std::vector<float> h(n); for (auto& x : h) x = u(rng); CK(cudaMalloc(&c[d], 4 * n)); CK(cudaMemcpy(c[d], h.data(), 4 * n, cudaMemcpyHostToDevice)); }
  twobody::points<float, 3> p; for (int d = 0; d < 3; ++d) p.coords[d] = c[d]; p.size = n;
  auto pairs = twobody::ordered_pairs(p);
  float* out; CK(cudaMalloc(&out, 4 * n));
  cudaStream_t s; CK(cudaStreamCreate(&s));
  auto f = twobody::gaussian_kernel(5.f);
  trial_set("planned", [&] { twobody::sum_per_point(pairs, f, out, s); }, s);
  trial_set("64x2/groups:4", [&] { twobody::sum_per_point<twobody::input::shared_tile<256, 2, 4, 4>>(pairs, f, out, s); }, s);
  trial_set("128x1/groups:2", [&] { twobody::sum_per_point<twobody::input::shared_tile<256, 1, 4, 2>>(pairs, f, out, s); }, s);
  return 0;
}
