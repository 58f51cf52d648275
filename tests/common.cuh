// Shared test helpers: exact test data, host/device copies, GPU detection.
#pragma once

#include <twobody/twobody.cuh>

#include <gtest/gtest.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace tbt {

inline bool gpu_available()
{
  int n = 0;
  cudaError_t const s = cudaGetDeviceCount(&n);
  (void)cudaGetLastError();
  return s == cudaSuccess && n > 0;
}

/// TWOBODY_TEST_QUICK=1 (set for the compute-sanitizer runs) drops the large sizes.
inline bool quick()
{
  char const* q = std::getenv("TWOBODY_TEST_QUICK");
  return q != nullptr && q[0] != '\0' && q[0] != '0';
}

#define TBT_REQUIRE_GPU()                                                                                      \
  do {                                                                                                         \
    if (!::tbt::gpu_available()) {                                                                             \
      GTEST_SKIP() << "no CUDA GPU on this machine: device test skipped (run scripts/gpu-check.sh on a GPU)"; \
    }                                                                                                          \
  } while (0)

/// Points with integer coordinates in [0, range) (exact in float and double, so every
/// distance, squared distance and comparison is exact or correctly rounded the same way
/// everywhere), about 1 in 16 of them repeating an earlier point (zero distances), and
/// dyadic weights in {0.25, 0.5, ..., 2} (exact products and sums).
template <class T, int D>
struct host_points {
  std::vector<T> c[D];
  std::vector<T> w;
  std::int64_t n = 0;

  host_points(std::int64_t n_, unsigned seed, int range = 64) : n(n_)
  {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> coord(0, range - 1), wt(1, 8), dup(0, 15);
    for (int d = 0; d < D; ++d) { c[d].resize(n); }
    w.resize(n);
    for (std::int64_t i = 0; i < n; ++i) {
      bool const repeat = i > 0 && dup(rng) == 0;
      std::int64_t const src = repeat ? std::uniform_int_distribution<std::int64_t>(0, i - 1)(rng) : i;
      for (int d = 0; d < D; ++d) { c[d][i] = repeat ? c[d][src] : static_cast<T>(coord(rng)); }
      w[i] = static_cast<T>(wt(rng)) / T(4);
    }
  }
  twobody::points<T, D> view() const
  {
    twobody::points<T, D> p;
    for (int d = 0; d < D; ++d) { p.coords[d] = c[d].data(); }
    p.size = n;
    return p;
  }
  twobody::points<T, D, true> weighted_view() const
  {
    twobody::points<T, D, true> p;
    for (int d = 0; d < D; ++d) { p.coords[d] = c[d].data(); }
    p.weights = w.data();
    p.size    = n;
    return p;
  }
  /// The same points in another precision (for double-precision references).
  template <class U>
  host_points<U, D> as() const
  {
    host_points<U, D> o(0, 0);
    o.n = n;
    for (int d = 0; d < D; ++d) { o.c[d].assign(c[d].begin(), c[d].end()); }
    o.w.assign(w.begin(), w.end());
    return o;
  }
};

template <class T, int D>
struct device_points {
  thrust::device_vector<T> c[D];
  thrust::device_vector<T> w;
  std::int64_t n = 0;

  explicit device_points(host_points<T, D> const& h) : n(h.n)
  {
    for (int d = 0; d < D; ++d) { c[d] = h.c[d]; }
    w = h.w;
  }
  twobody::points<T, D> view() const
  {
    twobody::points<T, D> p;
    for (int d = 0; d < D; ++d) { p.coords[d] = thrust::raw_pointer_cast(c[d].data()); }
    p.size = n;
    return p;
  }
  twobody::points<T, D, true> weighted_view() const
  {
    twobody::points<T, D, true> p;
    for (int d = 0; d < D; ++d) { p.coords[d] = thrust::raw_pointer_cast(c[d].data()); }
    p.weights = thrust::raw_pointer_cast(w.data());
    p.size    = n;
    return p;
  }
};

template <class Points>
twobody::pair_set<Points> make_pairs(twobody::pair_mode mode, Points const& a, Points const& b)
{
  return {mode, a, mode == twobody::pair_mode::cross ? b : a};
}

/// A device array filled with a poison byte pattern, so unwritten results show.
template <class T>
thrust::device_vector<T> poisoned(std::size_t n)
{
  thrust::device_vector<T> v(n);
  cudaMemset(thrust::raw_pointer_cast(v.data()), 0xAB, n * sizeof(T));
  return v;
}

/// References are costly at large sizes: compute each once per process.
template <class V, class Make>
V const& cached(std::string const& key, Make&& make)
{
  static std::map<std::string, V> cache;
  auto it = cache.find(key);
  if (it == cache.end()) { it = cache.emplace(key, make()).first; }
  return it->second;
}

/// The input policies (and block sizes) x value types every device test suite runs over.
template <class Input, class T>
struct config {
  using input = Input;
  using value = T;
};
/// A list of configs; `types` is the ::testing::Types a typed suite runs over.
template <class... C>
struct config_list {
  using types = ::testing::Types<C...>;
};
template <class... A, class... B>
config_list<A..., B...> operator+(config_list<A...>, config_list<B...>);
/// The shared tiles, and the other inputs (test_gpu_histogram instantiates its typed test for
/// each in a file of its own; the other suites run over both, policy_configs).
using shared_tile_configs =
  config_list<config<twobody::input::shared_tile<256, 4>, float>, config<twobody::input::shared_tile<256, 4>, double>,
              config<twobody::input::shared_tile<128, 1>, float>, config<twobody::input::shared_tile<256, 1, 4, 2>, float>,
              config<twobody::input::shared_tile<128, 2, 1, 2>, double>>;
using other_input_configs =
  config_list<config<twobody::input::readonly_tile<64, 2>, float>, config<twobody::input::readonly_tile<256, 4>, double>,
              config<twobody::input::shuffle_tile<256, 4>, float>, config<twobody::input::shuffle_tile<128, 2>, double>,
              config<twobody::input::naive<128>, float>, config<twobody::input::naive<256>, double>>;
using policy_configs = decltype(shared_tile_configs{} + other_input_configs{})::types;

inline char const* mode_name(twobody::pair_mode m) { return twobody::to_string(m); }

/// Join predicates that keep no pair / every pair.
struct never {
  template <class P>
  __host__ __device__ bool operator()(P const&, P const&) const
  {
    return false;
  }
};
struct always {
  template <class P>
  __host__ __device__ bool operator()(P const&, P const&) const
  {
    return true;
  }
};

}  // namespace tbt
