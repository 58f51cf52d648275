// A user-defined pair functor: a Gaussian kernel exp(-|a - b|^2 / (2 h^2)) summed over all
// unordered pairs of N uniform random points in a 100^3 box, reduced in double.
// Any __host__ __device__ callable taking two twobody::point<T, D> works the same way, on
// the GPU and in the CPU backend. For a uniform box (ignoring edges) the expected sum is
//     N (N - 1) / 2 * (2 pi h^2)^(3/2) / V.
//
//   example_custom_functor [N] [--help]      (default N = 2^18 on the GPU, 2^14 on the CPU backend)
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

namespace {

int run(example::command_line const& cl)
{
  long long const n = cl.n;
  float const box   = 100.f;
  float const h     = 2.f;  // kernel width
  example::check_fits(n, 3 * sizeof(float), cl.gpu ? 3 * sizeof(float) : 0);

  example::cloud const pts = example::uniform_box(n, box, 2024);  // [0, box)^3, fixed seed
  auto const p             = twobody::make_points(n, pts.x.data(), pts.y.data(), pts.z.data());
  auto const pairs         = twobody::self_pairs(p);
  gaussian_kernel const kernel{1.f / (2.f * h * h)};
  cuda::std::plus<double> const plus{};

  double sum = 0;
  auto t0    = std::chrono::steady_clock::now();
  if (cl.gpu) {
    (void)twobody::reduce_pairs(twobody::exec::gpu, pairs, kernel, plus, 0.0);  // warm-up; not timed
    t0  = std::chrono::steady_clock::now();
    sum = twobody::reduce_pairs(twobody::exec::gpu, pairs, kernel, plus, 0.0);  // synchronous
  } else {
    example::cpu_self_pairs_in_blocks(
      p, [&](auto const& piece) { return twobody::reduce_pairs(twobody::exec::cpu, piece, kernel, plus, 0.0); },
      [&](double part, long long, long long) { sum += part; });
  }
  double const seconds = example::seconds_since(t0);
  std::printf("sum of gaussian_kernel (h = %g), %lld points, %s: %.6g  (%.3f ms, %.3g pairs/s)\n", h, n,
              cl.gpu ? "GPU" : "CPU", sum, seconds * 1e3, double(pairs.count()) / seconds);

  double const pi       = 3.14159265358979323846;
  double const expected = double(pairs.count()) * std::pow(2.0 * pi * h * h, 1.5) / (double(box) * box * box);
  std::printf("expected for a uniform box (no edge correction): %.6g  (sum / expected = %.4f)\n", expected,
              sum / expected);
  return 0;
}

}  // namespace

int main(int argc, char** argv)
{
  return example::run_example(argc, argv,
                              {"a user-defined Gaussian kernel summed over all pairs of N random points", 1ll << 18, 1ll << 14}, run);
}
