// A user-defined pair functor: a Gaussian kernel exp(-|a - b|^2 / (2 h^2)) summed over all
// unordered pairs of N uniform random points in a 100^3 box, reduced in double.
// Any __host__ __device__ callable taking two twobody::point<T, D> works the same way, on
// the GPU and in the CPU backend. For a uniform box (ignoring edges) the expected sum is
//     N (N - 1) / 2 * (2 pi h^2)^(3/2) / V.
//
//   example_custom_functor [N]      (default N = 2^18 on the GPU, 2^14 on the CPU fallback)
#include <twobody/twobody.cuh>

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

namespace {

bool have_gpu()
{
  int n                    = 0;
  cudaError_t const status = cudaGetDeviceCount(&n);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return n > 0;
}

}  // namespace

int main(int argc, char** argv)
{
  try {
    bool const gpu = have_gpu();
    if (!gpu) { std::printf("no CUDA GPU found: running on the CPU backend (twobody::cpu)\n"); }
    long long const n = argc > 1 ? std::atoll(argv[1]) : (gpu ? (1ll << 18) : (1ll << 14));
    if (n < 2) {
      std::fprintf(stderr, "usage: %s [N >= 2]\n", argv[0]);
      return 1;
    }
    float const box = 100.f;
    float const h   = 2.f;  // kernel width

    std::mt19937 rng(2024);
    std::uniform_real_distribution<float> u(0.f, box);
    std::vector<float> x(n), y(n), z(n);
    for (long long i = 0; i < n; ++i) {
      x[i] = u(rng);
      y[i] = u(rng);
      z[i] = u(rng);
    }
    auto const pairs = twobody::self_pairs(twobody::make_points(n, x.data(), y.data(), z.data()));
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
