// A user-defined pair functor: a Gaussian kernel exp(-|a - b|^2 / (2 h^2)) summed over all
// unordered pairs of N uniform random points in a 100^3 box, reduced in double.
// Any __host__ __device__ callable taking two twobody::point<T, D> works the same way, on
// the GPU and in the CPU backend. For a uniform box (ignoring edges) the expected sum is
//     N (N - 1) / 2 * (2 pi h^2)^(3/2) / V.
//
//   example_custom_functor [N]      (default N = 2^18 on the GPU, 2^14 on the CPU fallback)
#include <twobody/twobody.cuh>

#include "example_common.hpp"

#include <cuda/std/functional>
#include <cuda_runtime_api.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

/// exp(-d^2 / (2 h^2)), with inv_two_h2 = 1 / (2 h^2).
struct gaussian_kernel {
  float inv_two_h2;

  __host__ __device__ float operator()(twobody::point<float, 3> const& a, twobody::point<float, 3> const& b) const
  {
    float const dx = a[0] - b[0];
    float const dy = a[1] - b[1];
    float const dz = a[2] - b[2];
    float const d2 = dx * dx + dy * dy + dz * dz;
    return expf(-d2 * inv_two_h2);
  }
};

int main(int argc, char** argv)
{
  try {
    bool const gpu = example::announce_backend();
    long long const n = example::point_count(argc, argv, 1ll << 18, 1ll << 14, gpu);
    if (n == 0) { return 1; }
    float const box = 100.f;
    float const h   = 2.f;  // kernel width

    example::cloud const pts = example::uniform_box(n, box, 2024);  // [0, box)^3, fixed seed
    auto const pairs = twobody::self_pairs(twobody::make_points(n, pts.x.data(), pts.y.data(), pts.z.data()));
    gaussian_kernel const kernel{1.f / (2.f * h * h)};

    double sum     = 0;
    double seconds = 0;
    if (gpu) {
      (void)twobody::reduce_pairs(pairs, kernel, cuda::std::plus<double>{}, 0.0);  // warm-up; not timed
      auto const t0 = std::chrono::steady_clock::now();
      sum           = twobody::reduce_pairs(pairs, kernel, cuda::std::plus<double>{}, 0.0);  // synchronous
      seconds       = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } else {
      auto const t0 = std::chrono::steady_clock::now();
      sum           = twobody::cpu::reduce_pairs(pairs, kernel, cuda::std::plus<double>{}, 0.0);
      seconds       = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    std::printf("sum of gaussian_kernel (h = %g), %lld points, %s: %.6g  (%.3f ms, %.3g pairs/s)\n", h, n,
                gpu ? "GPU" : "CPU", sum, seconds * 1e3, double(pairs.count()) / seconds);

    double const pi       = 3.14159265358979323846;
    double const expected = double(pairs.count()) * std::pow(2.0 * pi * h * h, 1.5) / (double(box) * box * box);
    std::printf("expected for a uniform box (no edge correction): %.6g  (sum / expected = %.4f)\n", expected,
                sum / expected);
    return 0;
  } catch (twobody::error const& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
