// Plumbing shared by the benchmark binaries: seeded uniform points in a 100^3 box (rotated
// over several device copies so large inputs start outside L2), CUDA-event timing, counters.
#pragma once

#include <twobody/twobody.cuh>

#include "../examples/example_common.hpp"  // EXAMPLE_CUDA_CHECK

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace bench {


constexpr float box_side   = 100.f;
constexpr float radius     = 5.f;
constexpr float kernel_h   = 2.f;
constexpr float sdh_range  = 173.20508f;  // 100 sqrt(3): every distance in the box
constexpr float rdf_range  = 50.f;        // half the periodic box
constexpr std::size_t rotate_bytes = 4u << 20;  // inputs at least this large are rotated
constexpr std::size_t rotate_total = 160u << 20;  // ... over copies adding up to about this (L2: 50 MB)

// ---------------------------------------------------------------------------
// Data: generated once per (type, N, copy) on the host, copied to the device once.
// ---------------------------------------------------------------------------
template <class T>
struct host_points {
  std::vector<T> c[3];
  twobody::points<T, 3> view() const { return twobody::make_points(static_cast<long long>(c[0].size()), c[0].data(), c[1].data(), c[2].data()); }
};

template <class T>
host_points<T> const& host_data(long long n, int copy = 0)
{
  static std::map<std::pair<long long, int>, std::unique_ptr<host_points<T>>> cache;
  auto& slot = cache[{n, copy}];
  if (!slot) {
    slot = std::make_unique<host_points<T>>();
    std::mt19937 rng(12345 + 7919 * copy);
    std::uniform_real_distribution<float> u(0.f, box_side);
    for (auto& c : slot->c) { c.resize(n); }
    for (long long i = 0; i < n; ++i) {
      for (auto& c : slot->c) { c[i] = static_cast<T>(u(rng)); }
    }
  }
  return *slot;
}

template <class T>
struct device_points {
  T* c[3] = {nullptr, nullptr, nullptr};
  long long n = 0;
  device_points() = default;
  device_points(device_points const&) = delete;
  device_points& operator=(device_points const&) = delete;
  ~device_points()
  {
    for (T* p : c) { (void)cudaFree(p); }
  }
  twobody::points<T, 3> view() const { return twobody::make_points(n, c[0], c[1], c[2]); }
};

/// The 64 blob centres of the clustered data sets, drawn from `u` (in order, so the data stay
/// what the committed results measured).
template <int D>
std::vector<std::array<float, D>> blob_centres(std::mt19937& rng, std::uniform_real_distribution<float>& u)
{
  std::vector<std::array<float, D>> centres(64);
  for (auto& c : centres) {
    for (auto& x : c) { x = u(rng); }
  }
  return centres;
}

/// D float coordinate arrays on the device, uploaded once from host vectors (the grid
/// benchmarks' data sets).
template <int D>
struct device_cloud {
  float* d[D] = {};
  long long n = 0;
  explicit device_cloud(std::vector<float> const (&h)[D]) : n(static_cast<long long>(h[0].size()))
  {
    for (int k = 0; k < D; ++k) {
      EXAMPLE_CUDA_CHECK(cudaMalloc(&d[k], sizeof(float) * n));
      EXAMPLE_CUDA_CHECK(cudaMemcpy(d[k], h[k].data(), sizeof(float) * n, cudaMemcpyHostToDevice));
    }
  }
  device_cloud(device_cloud const&) = delete;
  ~device_cloud()
  {
    for (float* p : d) { (void)cudaFree(p); }
  }
  twobody::points<float, D> view() const
  {
    twobody::points<float, D> p;
    for (int k = 0; k < D; ++k) { p.coords[k] = d[k]; }
    p.size = n;
    return p;
  }
};

template <class T>
int rotation_copies(long long n)
{
  std::size_t const bytes = 3 * sizeof(T) * static_cast<std::size_t>(n);
  if (bytes < rotate_bytes) { return 1; }
  std::size_t const k = (rotate_total + bytes - 1) / bytes;
  return static_cast<int>(k < 2 ? 2 : (k > 8 ? 8 : k));
}

template <class T>
twobody::points<T, 3> device_data(long long n, int copy)
{
  static std::map<std::pair<long long, int>, std::unique_ptr<device_points<T>>> cache;
  auto& slot = cache[{n, copy}];
  if (!slot) {
    auto d        = std::make_unique<device_points<T>>();
    auto const& h = host_data<T>(n, copy);
    for (int k = 0; k < 3; ++k) {
      EXAMPLE_CUDA_CHECK(cudaMalloc(&d->c[k], sizeof(T) * n));
      EXAMPLE_CUDA_CHECK(cudaMemcpy(d->c[k], h.c[k].data(), sizeof(T) * n, cudaMemcpyHostToDevice));
    }
    d->n = n;
    slot = std::move(d);
  }
  return slot->view();
}

/// The device copies a benchmark rotates over (one for small inputs).
template <class T>
std::vector<twobody::points<T, 3>> rotated(long long n)
{
  std::vector<twobody::points<T, 3>> v;
  for (int k = 0; k < rotation_copies<T>(n); ++k) { v.push_back(device_data<T>(n, k)); }
  return v;
}

inline double self_pair_count(long long n) { return double(n) * double(n - 1) / 2.0; }

struct gpu_info {
  int sms = 0;
  double clock_hz = 0;
  std::string name;
};

inline gpu_info const& gpu()
{
  static gpu_info info = [] {
    gpu_info g;
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
      g.sms  = prop.multiProcessorCount;
      g.name = prop.name;
      int khz = 0;
      if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) == cudaSuccess) { g.clock_hz = khz * 1e3; }
    }
    return g;
  }();
  return info;
}

/// pairs_per_s, and the fraction of the FP peak for problems whose cost is pure arithmetic.
inline void set_counters(benchmark::State& state, double pairs, double flops_per_pair = 0, int fp_lanes_per_sm = 128)
{
  state.counters["pairs_per_s"] = benchmark::Counter(pairs * double(state.iterations()), benchmark::Counter::kIsRate);
  if (flops_per_pair > 0 && gpu().sms > 0) {
    double const peak = 2.0 * fp_lanes_per_sm * gpu().sms * gpu().clock_hz;
    state.counters["fma_peak_fraction"] =
      benchmark::Counter(pairs * flops_per_pair * double(state.iterations()) / peak, benchmark::Counter::kIsRate);
  }
}

// ---------------------------------------------------------------------------
// Command line and results context
// ---------------------------------------------------------------------------

/// The value of `--flag=value` in arg, or nullptr when arg is not that flag.
inline char const* value_of(char const* arg, char const* flag)
{
  std::size_t const len = std::strlen(flag);
  return std::strncmp(arg, flag, len) == 0 && arg[len] == '=' ? arg + len + 1 : nullptr;
}

/// Parses a --sizes list ("1024,65536"); false (after a message) on a bad entry.
inline bool parse_sizes(char const* v, std::vector<long long>& out)
{
  out.clear();
  std::string s(v);
  std::size_t pos = 0;
  while (pos <= s.size()) {
    std::size_t const comma = s.find(',', pos);
    std::string const item  = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end               = nullptr;
    long long const n       = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || n < 2) {
      std::fprintf(stderr, "bad --sizes entry '%s' (need integers >= 2)\n", item.c_str());
      return false;
    }
    out.push_back(n);
    if (comma == std::string::npos) { break; }
    pos = comma + 1;
  }
  return true;
}

/// Takes `flag`=... (a list of sizes) out of the command line (the rest goes on to Google
/// Benchmark); false on a bad list. For benchmarks whose only own flags are size lists.
inline bool take_sizes_flag(int& argc, char** argv, std::vector<long long>& sizes, char const* flag = "--sizes")
{
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (char const* v = value_of(argv[i], flag)) {
      if (!parse_sizes(v, sizes)) { return false; }
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  return true;
}

/// Results files say what they were measured on and with which code: the commit
/// (TWOBODY_COMMIT) and, when there is a GPU, its name, SM count and boost clock.
/// Returns whether there is a GPU.
inline bool record_context()
{
  if (char const* commit = std::getenv("TWOBODY_COMMIT")) { benchmark::AddCustomContext("twobody_commit", commit); }
  if (!example::have_gpu()) {
    std::fprintf(stderr, "no CUDA GPU: GPU benchmarks skipped\n");  // stderr: keeps JSON on stdout clean
    return false;
  }
  benchmark::AddCustomContext("gpu", gpu().name);
  benchmark::AddCustomContext("gpu_sm_count", std::to_string(gpu().sms));
  benchmark::AddCustomContext("gpu_boost_clock_mhz", std::to_string(static_cast<int>(gpu().clock_hz / 1e6)));
  return true;
}

/// Google Benchmark's main after the registrations: 1 on an unknown flag.
inline int run_registered(int& argc, char** argv)
{
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) { return 1; }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// ---------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------
struct gpu_timer {
  cudaStream_t stream{};
  cudaEvent_t start{}, stop{};
  gpu_timer()
  {
    EXAMPLE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    EXAMPLE_CUDA_CHECK(cudaEventCreate(&start));
    EXAMPLE_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~gpu_timer()
  {
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
    (void)cudaStreamDestroy(stream);
  }
  gpu_timer(gpu_timer const&)            = delete;
  gpu_timer& operator=(gpu_timer const&) = delete;

  /// A warm-up call on a small prefix of the data (iteration -1: first-call costs such as
  /// module loading and kernel attributes, without the cost of a full call), then each
  /// iteration's time is the event interval around call(stream, iteration).
  template <class Call>
  void run(benchmark::State& state, Call&& call)
  {
    call(stream, -1);
    call(stream, 0);  // and one full call: one-call forms plan per size, so this loads the timed kernel
    EXAMPLE_CUDA_CHECK(cudaStreamSynchronize(stream));
    long long it = 0;
    for (auto _ : state) {
      EXAMPLE_CUDA_CHECK(cudaEventRecord(start, stream));
      call(stream, it++);
      EXAMPLE_CUDA_CHECK(cudaEventRecord(stop, stream));
      EXAMPLE_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0.f;
      EXAMPLE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      state.SetIterationTime(double(ms) * 1e-3);
    }
  }

  /// End to end: wall clock around a synchronous call (host in, host out).
  template <class Call>
  void run_wall(benchmark::State& state, Call&& call)
  {
    call(stream, -1);
    for (auto _ : state) {
      auto const t0 = std::chrono::steady_clock::now();
      call(stream, 0);
      state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  }
};

/// The points of iteration `it`: the rotated copies in turn, a small prefix for the warm-up (it < 0).
template <class P>
P pick(std::vector<P> const& copies, long long it)
{
  if (it < 0) {
    P p    = copies[0];
    p.size = p.size < 8192 ? p.size : 8192;
    return p;
  }
  return copies[static_cast<std::size_t>(it) % copies.size()];
}

struct device_scratch {
  void* ptr = nullptr;
  explicit device_scratch(std::size_t bytes)
  {
    if (bytes > 0) { EXAMPLE_CUDA_CHECK(cudaMalloc(&ptr, bytes)); }
  }
  ~device_scratch() { (void)cudaFree(ptr); }
  device_scratch(device_scratch const&)            = delete;
  device_scratch& operator=(device_scratch const&) = delete;
  template <class T>
  T* as() const
  {
    return static_cast<T*>(ptr);
  }
};

template <class Body>
void guarded(benchmark::State& state, Body&& body)
{
  try {
    body();
  } catch (twobody::error const& e) {
    state.SkipWithError(e.what());
  }
}

inline twobody::distance_bins<float> sdh_bins(int n) { return {sdh_range, n}; }

}  // namespace bench
