// Spatial distance histogram (SDH): the distances of all unordered pairs of N uniform
// random points in a 100^3 box, in 256 equal bins over [0, 100 sqrt(3)] (the box
// diagonal, so nothing falls outside except by rounding). The points are copied to
// device memory first; the host-result form of twobody::histogram brings the counts back.
//
//   example_sdh [N]      (default N = 2^18 on the GPU, 2^14 on the CPU fallback)
#include <twobody/twobody.cuh>

#include "example_common.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

/// Device copy of one coordinate array, freed on scope exit.
struct device_array {
  float* ptr = nullptr;
  explicit device_array(std::vector<float> const& h)
  {
    EXAMPLE_CUDA_CHECK(cudaMalloc(&ptr, h.size() * sizeof(float)));
    EXAMPLE_CUDA_CHECK(cudaMemcpy(ptr, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  ~device_array() { (void)cudaFree(ptr); }
  device_array(device_array const&)            = delete;
  device_array& operator=(device_array const&) = delete;
};

}  // namespace

int main(int argc, char** argv)
{
  try {
    bool const gpu = example::announce_backend();
    long long const n = example::point_count(argc, argv, 1ll << 18, 1ll << 14, gpu);
    if (n == 0) { return 1; }
    float const box = 100.f;
    int const nbins = 256;

    example::cloud const pts = example::uniform_box(n, box, 7);  // [0, box)^3, fixed seed
    // Squared distances binned by distance: the square root is folded into the bin (fast path).
    twobody::distance_bins<float> const bins(box * std::sqrt(3.f), nbins);
    twobody::squared_euclidean const dist{};

    std::vector<unsigned long long> counts;
    unsigned long long outside = 0;
    unsigned long long npairs  = 0;
    double seconds             = 0;
    if (gpu) {
      device_array dx(pts.x), dy(pts.y), dz(pts.z);
      auto const pairs = twobody::self_pairs(twobody::make_points(n, dx.ptr, dy.ptr, dz.ptr));
      (void)twobody::histogram(pairs, dist, bins);  // warm-up; not timed
      auto const t0 = std::chrono::steady_clock::now();
      auto h        = twobody::histogram(pairs, dist, bins);  // synchronous
      seconds       = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      counts        = std::move(h.counts);
      outside       = h.outside;
      npairs        = h.pairs;
    } else {
      auto const pairs = twobody::self_pairs(twobody::make_points(n, pts.x.data(), pts.y.data(), pts.z.data()));
      std::vector<unsigned long long> all(bins.size() + 1);
      auto const t0 = std::chrono::steady_clock::now();
      twobody::cpu::histogram(pairs, dist, bins, all.data());
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      outside = all.back();
      all.pop_back();
      counts = std::move(all);
      npairs = pairs.count();
    }
    std::printf("SDH, %d bins, %lld points, %s: %llu pairs  (%.3f ms, %.3g pairs/s)\n", nbins, n, gpu ? "GPU" : "CPU",
                npairs, seconds * 1e3, double(npairs) / seconds);

    std::printf("%5s  %9s  %9s  %14s\n", "bin", "from", "to", "count");
    for (int k = 0; k < nbins; k += 16) {
      std::printf("%5d  %9.3f  %9.3f  %14llu\n", k, bins.edge(k), bins.edge(k + 1), counts[k]);
    }
    std::printf("outside: %llu\n", outside);

    unsigned long long total = outside;
    for (auto c : counts) { total += c; }
    if (total != npairs) {
      std::printf("CHECK FAILED: sum(counts) + outside = %llu != pairs = %llu\n", total, npairs);
      return 1;
    }
    std::printf("check: sum(counts) + outside == pairs (%llu)\n", npairs);
    return 0;
  } catch (twobody::error const& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
