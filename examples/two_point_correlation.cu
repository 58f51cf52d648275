// 2-point correlation function building block: DD(<r), the number of unordered pairs of N
// uniform random points in a 100^3 box closer than r = 5, against its expectation for a
// uniform box. Host arrays: on a GPU the one-call function stages them to the device.
//
//   example_2pcf [N] [--help]      (default N = 2^18 on the GPU, 2^15 on the CPU backend)
#include <twobody/twobody.cuh>

#include "example_common.hpp"

#include <chrono>
#include <cstdio>
#include <vector>

namespace {

int run(example::command_line const& cl)
{
  long long const n = cl.n;
  float const box   = 100.f;
  float const r     = 5.f;
  example::check_fits(n, 3 * sizeof(float), cl.gpu ? 3 * sizeof(float) : 0);

  example::cloud const pts = example::uniform_box(n, box, 42);  // [0, box)^3, fixed seed
  auto const p             = twobody::make_points(n, pts.x.data(), pts.y.data(), pts.z.data());
  auto const pairs         = twobody::self_pairs(p);
  auto const pred          = twobody::within_radius(r);

  unsigned long long dd = 0;
  auto t0               = std::chrono::steady_clock::now();
  if (cl.gpu) {
    (void)twobody::count_pairs(twobody::exec::gpu, pairs, pred);  // warm-up (context, module loading); not timed
    t0 = std::chrono::steady_clock::now();
    dd = twobody::count_pairs(twobody::exec::gpu, pairs, pred);  // synchronous: result is on the host
  } else {
    example::cpu_self_pairs_in_blocks(
      p, [&](auto const& piece) { return twobody::count_pairs(twobody::exec::cpu, piece, pred); },
      [&](unsigned long long part, long long, long long) { dd += part; });
  }
  double const seconds = example::seconds_since(t0);
  std::printf("DD(<%g), %lld points, %s: %llu  (%.3f ms, %.3g pairs/s)\n", r, n, cl.gpu ? "GPU" : "CPU", dd,
              seconds * 1e3, double(pairs.count()) / seconds);

  double const pi       = 3.14159265358979323846;
  double const expected = double(pairs.count()) * (4.0 / 3.0 * pi * r * r * r) / (double(box) * box * box);
  std::printf("expected for a uniform box (no edge correction): %.0f  (DD / expected = %.4f)\n", expected,
              double(dd) / expected);
  return 0;
}

}  // namespace

int main(int argc, char** argv)
{
  return example::run_example(
    argc, argv, {"pairs closer than r = 5 among N random points in a 100^3 box (DD of the 2PCF)", 1ll << 18, 1ll << 15}, run);
}
