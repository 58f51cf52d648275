// Radial distribution function g(r) of N points in a periodic cubic box of side 50,
// using minimum-image distances (twobody::make_periodic_squared_euclidean, distance_bins). With
// count_k the number of unordered pairs in shell k and rho = N / V,
//     g(r_k) = 2 count_k / (N rho V_shell,k),   V_shell,k = 4/3 pi (r_{k+1}^3 - r_k^3).
// For uniform random (ideal gas) points g(r) ~ 1 at every r.
//
//   example_rdf [N] [--help]      (default N = 2^17 on the GPU, 2^14 on the CPU backend)
#include <twobody/twobody.cuh>

#include "example_common.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

int run(example::command_line const& cl)
{
  long long const n = cl.n;
  float const L     = 50.f;
  int const nbins   = 100;
  float const rmax  = 25.f;  // half the box: minimum-image shells are complete up to L/2
  example::check_fits(n, 3 * sizeof(float), cl.gpu ? 3 * sizeof(float) : 0);

  example::cloud const pts = example::uniform_box(n, L, 1234);  // [0, L)^3, fixed seed
  auto const p             = twobody::make_points(n, pts.x.data(), pts.y.data(), pts.z.data());
  auto const pairs         = twobody::self_pairs(p);
  // Squared minimum-image distances binned by distance (the square root folded into the bin).
  auto const dist = twobody::make_periodic_squared_euclidean(L, L, L);
  twobody::distance_bins<float> const bins(rmax, nbins);

  std::vector<unsigned long long> counts(nbins, 0);
  auto t0 = std::chrono::steady_clock::now();
  if (cl.gpu) {
    (void)twobody::histogram(twobody::exec::gpu, pairs, dist, bins);  // warm-up; not timed
    t0     = std::chrono::steady_clock::now();
    counts = twobody::histogram(twobody::exec::gpu, pairs, dist, bins).counts;  // host arrays are staged
  } else {
    example::cpu_self_pairs_in_blocks(
      p, [&](auto const& piece) { return twobody::histogram(twobody::exec::cpu, piece, dist, bins); },
      [&](twobody::histogram_result<unsigned long long> const& part, long long, long long) {
        for (int k = 0; k < nbins; ++k) { counts[k] += part.counts[k]; }
      });
  }
  double const seconds = example::seconds_since(t0);
  std::printf("RDF, %d bins over [0, %g), %lld points, %s: %llu pairs  (%.3f ms, %.3g pairs/s)\n", nbins, rmax, n,
              cl.gpu ? "GPU" : "CPU", pairs.count(), seconds * 1e3, double(pairs.count()) / seconds);

  double const pi  = 3.14159265358979323846;
  double const rho = double(n) / (double(L) * L * L);
  std::printf("%8s  %8s  %12s\n", "r", "g(r)", "count");
  double gsum = 0;
  int gcount  = 0;
  for (int k = 0; k < nbins; ++k) {
    double const r0    = double(rmax) * k / nbins;
    double const r1    = double(rmax) * (k + 1) / nbins;
    double const shell = 4.0 / 3.0 * pi * (r1 * r1 * r1 - r0 * r0 * r0);
    double const g     = 2.0 * double(counts[k]) / (double(n) * rho * shell);
    if (k >= nbins / 10) {  // the first shells are tiny and noisy
      gsum += g;
      ++gcount;
    }
    if (k % 10 == 0 || k == nbins - 1) { std::printf("%8.3f  %8.4f  %12llu\n", 0.5 * (r0 + r1), g, counts[k]); }
  }
  std::printf("mean g(r) for r >= %g: %.4f (uniform random points: ~1)\n", double(rmax) / 10, gsum / gcount);
  return 0;
}

}  // namespace

int main(int argc, char** argv)
{
  return example::run_example(
    argc, argv, {"radial distribution function g(r) of N random points in a periodic box of side 50", 1ll << 17, 1ll << 14}, run);
}
