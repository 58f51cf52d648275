// Spatial distance histogram (SDH): the distances of all unordered pairs of N uniform
// random points in a 100^3 box, in 256 equal bins over [0, 100 sqrt(3)] (the box
// diagonal, so nothing falls outside except by rounding). On a GPU the points are copied to
// device memory first; without one the same call runs on the CPU backend.
//
//   example_sdh [N] [--help]      (default N = 2^18 on the GPU, 2^14 on the CPU backend)
#include <twobody/twobody.cuh>

#include "example_common.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cmath>
#include <cstdio>
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

int run(example::command_line const& cl)
{
  long long const n = cl.n;
  float const box   = 100.f;
  int const nbins   = 256;
  example::check_fits(n, 3 * sizeof(float), cl.gpu ? 3 * sizeof(float) : 0);

  example::cloud const pts = example::uniform_box(n, box, 7);  // [0, box)^3, fixed seed
  // Squared distances binned by distance: the square root is folded into the bin (fast path).
  twobody::distance_bins<float> const bins(box * std::sqrt(3.f), nbins);
  twobody::squared_euclidean const dist{};

  twobody::histogram_result<unsigned long long> h;
  auto const host_pts = twobody::make_points(n, pts.x.data(), pts.y.data(), pts.z.data());
  auto t0             = std::chrono::steady_clock::now();
  if (cl.gpu) {
    device_array dx(pts.x), dy(pts.y), dz(pts.z);
    auto const pairs = twobody::self_pairs(twobody::make_points(n, dx.ptr, dy.ptr, dz.ptr));
    (void)twobody::histogram(twobody::exec::gpu, pairs, dist, bins);  // warm-up; not timed
    t0 = std::chrono::steady_clock::now();
    h  = twobody::histogram(twobody::exec::gpu, pairs, dist, bins);  // synchronous
  } else {
    example::cpu_self_pairs_in_blocks(
      host_pts, [&](auto const& piece) { return twobody::histogram(twobody::exec::cpu, piece, dist, bins); },
      [&](twobody::histogram_result<unsigned long long> const& part, long long, long long) {
        example::add_histogram(h, part);
      });
  }
  double const seconds = example::seconds_since(t0);
  std::printf("SDH, %d bins, %lld points, %s: %llu pairs  (%.3f ms, %.3g pairs/s)\n", nbins, n, cl.gpu ? "GPU" : "CPU",
              h.pairs, seconds * 1e3, double(h.pairs) / seconds);

  std::printf("%5s  %9s  %9s  %14s\n", "bin", "from", "to", "count");
  for (int k = 0; k < nbins; k += 16) {
    std::printf("%5d  %9.3f  %9.3f  %14llu\n", k, bins.edge(k), bins.edge(k + 1), h.counts[k]);
  }
  std::printf("outside: %llu\n", h.outside);

  return example::check_counts_add_up(h, twobody::self_pairs(host_pts).count());
}

}  // namespace

int main(int argc, char** argv)
{
  return example::run_example(argc, argv,
                              {"spatial distance histogram of N random points in a 100^3 box, 256 bins", 1ll << 18, 1ll << 14}, run);
}
