// The README's quick start, as a program (README.md shows this file; CI compiles and runs it).
#include <twobody/twobody.cuh>

#include <cmath>
#include <cstdio>
#include <vector>

// A pair functor of your own: any __host__ __device__ callable on two points, declared at
// namespace scope (nvcc does not take a type local to a function as a kernel's template argument).
struct manhattan {
  __host__ __device__ float operator()(twobody::point<float, 3> const& a, twobody::point<float, 3> const& b) const
  {
    return fabsf(a[0] - b[0]) + fabsf(a[1] - b[1]) + fabsf(a[2] - b[2]);
  }
};

int main()
{
  // 4096 points with integer coordinates in [0, 64)^3: distances are exact, so the GPU and the
  // CPU backend print the same numbers.
  int const n = 4096;
  std::vector<float> x(n), y(n), z(n);
  unsigned s = 12345;
  auto next  = [&s] { return static_cast<float>((s = s * 1664525u + 1013904223u) >> 26); };
  for (int i = 0; i < n; ++i) { x[i] = next(), y[i] = next(), z[i] = next(); }
  auto const pairs = twobody::self_pairs(twobody::make_points(n, x.data(), y.data(), z.data()));  // or cross_pairs(a, b)

  // Each call runs on the GPU when there is one, else on the CPU backend (it says so once).
  // Host arrays are fine on both; device arrays skip the copy on the GPU.
  unsigned long long close = twobody::count_pairs(pairs, twobody::within_radius(5.f));   // 2PCF: pairs closer than 5
  auto h = twobody::histogram(pairs, twobody::euclidean{}, twobody::uniform_bins<float>(0.f, 112.f, 7));  // distances
  double l1 = twobody::reduce_pairs(pairs, manhattan{}, cuda::std::plus<double>{}, 0.0);  // 0.0: the identity of plus
  auto near = twobody::pairs_within(pairs, 1.5f);                                       // a join: index pairs i < j

  std::printf("%llu pairs, %llu closer than 5, %zu within 1.5, mean L1 distance %.4f\n", pairs.count(), close,
              near.size(), l1 / double(pairs.count()));
  for (int k = 0; k < 7; ++k) { std::printf("distance [%3d, %3d): %llu\n", 16 * k, 16 * (k + 1), h.counts[k]); }

  // The fast SDH: squared distances binned by distance (distance_bins takes squared distances,
  // and only functors that return them compile with it). Backend chosen explicitly.
  auto fast = twobody::histogram(twobody::exec::cpu, pairs, twobody::squared_euclidean{},
                                 twobody::distance_bins<float>(112.f, 7));   // twobody::exec::gpu for the GPU
  std::printf("outside: %llu and %llu\n", h.outside, fast.outside);
  return 0;
}
