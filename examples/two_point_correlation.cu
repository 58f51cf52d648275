// 2-point correlation pair count DD(<r): the number of unordered pairs of points closer
// than r, for N uniform random points in a 100^3 box. For a uniform box the expected
// count (ignoring the box edges, which lower it by a few percent) is
//     N (N - 1) / 2 * (4/3 pi r^3) / V.
//
//   example_2pcf [N]      (default N = 2^18 on the GPU, 2^15 on the CPU fallback)
#include <twobody/twobody.cuh>

#include "example_common.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char** argv)
{
  try {
    bool const gpu = example::announce_backend();
    long long const n = example::point_count(argc, argv, 1ll << 18, 1ll << 15, gpu);
    if (n == 0) { return 1; }
    float const box = 100.f;
    float const r   = 5.f;

    // Host data, fixed seed. The one-call functions stage host arrays to the device.
    example::cloud const pts = example::uniform_box(n, box, 42);  // [0, box)^3, fixed seed
    auto const pairs = twobody::self_pairs(twobody::make_points(n, pts.x.data(), pts.y.data(), pts.z.data()));
    auto const pred  = twobody::within_radius(r);

    unsigned long long dd = 0;
    double seconds        = 0;
    if (gpu) {
      (void)twobody::count_pairs(pairs, pred);  // warm-up (context, module loading); not timed
      auto const t0 = std::chrono::steady_clock::now();
      dd            = twobody::count_pairs(pairs, pred);  // synchronous: result is on the host
      seconds       = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } else {
      auto const t0 = std::chrono::steady_clock::now();
      dd            = twobody::cpu::count_pairs(pairs, pred);
      seconds       = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    std::printf("DD(<%g), %lld points, %s: %llu  (%.3f ms, %.3g pairs/s)\n", r, n, gpu ? "GPU" : "CPU", dd,
                seconds * 1e3, double(pairs.count()) / seconds);

    double const pi       = 3.14159265358979323846;
    double const expected = double(pairs.count()) * (4.0 / 3.0 * pi * r * r * r) / (double(box) * box * box);
    std::printf("expected for a uniform box (no edge correction): %.0f  (DD / expected = %.4f)\n", expected,
                double(dd) / expected);
    return 0;
  } catch (twobody::error const& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
