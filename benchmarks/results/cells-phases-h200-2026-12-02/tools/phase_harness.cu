// Scratch: phase clocks of the cell-list RDF kernel (not part of the library).
#include <twobody/twobody.cuh>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
int main(int argc, char** argv)
{
  int const n = argc > 1 ? atoi(argv[1]) : 4096;
  std::mt19937 g(7);
  std::uniform_real_distribution<float> u(0.f, 100.f);
  std::vector<float> h(3 * n);
  for (auto& v : h) v = u(g);
  float* d; CK(cudaMalloc(&d, sizeof(float) * 3 * n));
  CK(cudaMemcpy(d, h.data(), sizeof(float) * 3 * n, cudaMemcpyHostToDevice));
  auto pairs = twobody::self_pairs(twobody::make_points(n, d, d + n, d + 2 * n));
  auto f = twobody::make_periodic_squared_euclidean(100.f, 100.f, 100.f);
  twobody::distance_bins<float> bins(12.f, 128);
  std::printf("n %d plan: ", n); std::cout << twobody::plan_histogram<unsigned long long>(pairs, f, bins) << "\n";
  cudaStream_t s; CK(cudaStreamCreate(&s));
  unsigned long long* out; CK(cudaMalloc(&out, 8 * 129));
  for (int i = 0; i < 200; ++i) twobody::histogram(pairs, f, bins, out, s);
  CK(cudaStreamSynchronize(s));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int rep = 0; rep < 3; ++rep) {
    cudaEventRecord(a, s);
    auto const t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 2000; ++i) twobody::histogram(pairs, f, bins, out, s);
    auto const t1 = std::chrono::steady_clock::now();
    cudaEventRecord(b, s); CK(cudaEventSynchronize(b));
    float ms; cudaEventElapsedTime(&ms, a, b);
    std::printf("per call %.3f us (GPU events), host enqueue %.3f us per call\n", ms * 1000 / 2000,
                std::chrono::duration<double, std::micro>(t1 - t0).count() / 2000);
  }
  {
    std::vector<unsigned long long> o(129);
    CK(cudaMemcpy(o.data(), out, 8 * 129, cudaMemcpyDeviceToHost));
    unsigned long long t = 0; for (auto v : o) t += v;
    std::printf("slots sum %llu, pairs %llu: %s\n", t, (unsigned long long)n * (n - 1) / 2, t == (unsigned long long)n * (n - 1) / 2 ? "ok" : "WRONG");
  }
#ifndef NO_DIAG
  // Phase clocks: back-to-back calls, the stamps of the last.
  std::vector<long long> st(256 * 16);
  std::vector<std::vector<double>> rel(16);
  std::vector<double> gspan, gstart_spread, gend_spread;
  for (int call = 0; call < 50; ++call) {
    std::vector<long long> zero(256 * 16, 0);
    CK(cudaMemcpyToSymbol(twobody::detail::diag_stamps, zero.data(), zero.size() * 8));
    for (int i = 0; i < 20; ++i) twobody::histogram(pairs, f, bins, out, s);
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpyFromSymbol(st.data(), twobody::detail::diag_stamps, st.size() * 8));
    int blocks = 0; while (blocks < 256 && st[blocks * 16 + 14] != 0) ++blocks;
    long long g0 = st[14], g1 = st[14], e0 = st[15], e1 = st[15];
    for (int bl = 0; bl < blocks; ++bl) {
      long long const* x = &st[bl * 16];
      for (int k = 1; k <= 11; ++k) if (x[k]) rel[k].push_back(double(x[k] - x[0]));
      g0 = std::min(g0, x[14]); g1 = std::max(g1, x[14]); e0 = std::min(e0, x[15]); e1 = std::max(e1, x[15]);
    }
    gspan.push_back(double(e1 - g0)); gstart_spread.push_back(double(g1 - g0)); gend_spread.push_back(double(e1 - e0));
    if (call == 0) std::printf("blocks %d\n", blocks);
  }
  auto q = [](std::vector<double> v, double p) { if (v.empty()) return 0.0; std::sort(v.begin(), v.end()); return v[size_t(p * (v.size() - 1))]; };
  char const* names[16] = {"entry", "traversal ctor", "agent ctor", "bin: first sync", "bin: atomics", "bin: scan", "bin: scatter", "pairs (thread 0)", "unvisited (thread 0)", "flush: grid wait", "flush: sync", "finish", "", "", "", ""};
  std::printf("clocks since the block's entry (all blocks of 50 calls): median / p90 / max\n");
  for (int k = 1; k <= 11; ++k) std::printf("%2d %-22s %8.0f %8.0f %8.0f\n", k, names[k], q(rel[k], .5), q(rel[k], .9), q(rel[k], 1));
  std::printf("globaltimer ns: entry spread %.0f / %.0f, exit spread %.0f / %.0f, first entry to last exit %.0f / %.0f (median / max)\n",
              q(gstart_spread, .5), q(gstart_spread, 1), q(gend_spread, .5), q(gend_spread, 1), q(gspan, .5), q(gspan, 1));
#endif
  int clk; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0); std::printf("clock rate attr %d kHz\n", clk);
  return 0;
}
