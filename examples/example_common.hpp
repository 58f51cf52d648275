// Plumbing shared by the examples (and the benchmark suite): CUDA error checks, GPU
// detection, the command-line size, seeded random points in a box.
#pragma once

#include <twobody/error.cuh>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

/// Throws twobody::error naming the call when a CUDA runtime call fails.
#define EXAMPLE_CUDA_CHECK(call)                                                                  \
  do {                                                                                            \
    cudaError_t const status_ = (call);                                                           \
    if (status_ != cudaSuccess) {                                                                 \
      throw twobody::error(std::string(#call) + " failed: " + cudaGetErrorString(status_));        \
    }                                                                                             \
  } while (0)

namespace example {

inline bool have_gpu()
{
  int n                    = 0;
  cudaError_t const status = cudaGetDeviceCount(&n);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return n > 0;
}

/// Says which backend runs; returns true for the GPU.
inline bool announce_backend()
{
  bool const gpu = have_gpu();
  if (!gpu) { std::printf("no CUDA GPU found: running on the CPU backend (twobody::cpu)\n"); }
  return gpu;
}

/// N from argv[1], else the default for the backend; 0 (after a usage line) when invalid.
inline long long point_count(int argc, char** argv, long long gpu_default, long long cpu_default, bool gpu)
{
  long long const n = argc > 1 ? std::atoll(argv[1]) : (gpu ? gpu_default : cpu_default);
  if (n < 2) {
    std::fprintf(stderr, "usage: %s [N >= 2]\n", argv[0]);
    return 0;
  }
  return n;
}

/// A callback for twobody::host::scale_options::progress: one line on stderr, rewritten in place
/// at most twice a second, ended after the last block pair. (Runs are serialized by the library.)
inline auto progress_line(std::string what)
{
  auto last = std::make_shared<double>(-1.0);
  return [what, last](auto const& p) {
    bool const done = p.block_pairs_done == p.block_pairs_total;
    if (!done && p.seconds - *last < 0.5) { return; }
    *last = p.seconds;
    std::fprintf(stderr, "\r%s: block pairs %zu/%zu, %.3g pairs, %.3g pairs/s, %.1f s%s", what.c_str(),
                 p.block_pairs_done, p.block_pairs_total, double(p.pairs_done), p.pairs_per_s, p.seconds,
                 done ? "\n" : "   ");
    std::fflush(stderr);
  };
}

/// n uniform random points in [0, side)^3 (fixed seed).
struct cloud {
  std::vector<float> x, y, z;
};
inline cloud uniform_box(long long n, float side, unsigned seed)
{
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, side);
  auto draw = [&] {
    float const v = u(rng);
    return v < side ? v : 0.f;  // uniform_real_distribution<float> can round up to side
  };
  cloud c{std::vector<float>(n), std::vector<float>(n), std::vector<float>(n)};
  for (long long i = 0; i < n; ++i) {
    c.x[i] = draw();
    c.y[i] = draw();
    c.z[i] = draw();
  }
  return c;
}

}  // namespace example
