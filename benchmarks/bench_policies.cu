// bench_policies: throughput of every input x output policy composition on the two
// reference statistics, float32 3-D uniform random points in a 100^3 box, self mode:
//   - 2PCF pair count within r = 5 (output: registers), explicit two-phase form;
//   - SDH, 256 uniform bins over [0, 100 sqrt(3)] (outputs: block_privatized,
//     warp_privatized{32}, warp_privatized{8}, global_atomics);
//   - the one-call API (default composition) for both;
//   - the CPU backend (OpenMP) for both at N = 2^15.
//
// GPU timings are kernel-side: CUDA events around each call, UseManualTime, one warm-up
// call before the loop, 5 repetitions (report the median). Counter pairs_per_s is
// N (N - 1) / 2 pairs per second of that time.
//
// Extra flags (before the Google Benchmark ones):
//   --sizes=65536,1048576   point counts of the GPU benchmarks (default 2^16 and 2^20)
//   --naive_max_n=65536     largest N at which the naive input policy and global_atomics run (slow:
//                           naive x global_atomics at 2^20 takes minutes per call)
//
//   bench_policies --benchmark_filter=sdh256 --benchmark_format=json > sdh.json
//   python3 scripts/table_from_bench.py sdh.json
#include <twobody/twobody.cuh>

#include "../examples/example_common.hpp"  // have_gpu()

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

#define BENCH_CUDA_CHECK(call)                                                                    \
  do {                                                                                            \
    cudaError_t const status_ = (call);                                                           \
    if (status_ != cudaSuccess) {                                                                 \
      throw twobody::error(std::string(#call) + " failed: " + cudaGetErrorString(status_));        \
    }                                                                                             \
  } while (0)

constexpr float box_side = 100.f;
constexpr float radius   = 5.f;
constexpr int sdh_bins   = 256;

using points3 = twobody::points<float, 3>;

// ---------------------------------------------------------------------------
// Data: generated once per N on the host (fixed seed), copied to the device once.
// ---------------------------------------------------------------------------
struct host_points {
  std::vector<float> x, y, z;
};

host_points const& host_data(long long n)
{
  static std::map<long long, std::unique_ptr<host_points>> cache;
  auto& slot = cache[n];
  if (!slot) {
    slot = std::make_unique<host_points>();
    std::mt19937 rng(12345);
    std::uniform_real_distribution<float> u(0.f, box_side);
    slot->x.resize(n);
    slot->y.resize(n);
    slot->z.resize(n);
    for (long long i = 0; i < n; ++i) {
      slot->x[i] = u(rng);
      slot->y[i] = u(rng);
      slot->z[i] = u(rng);
    }
  }
  return *slot;
}

struct device_points {
  float* xyz[3] = {nullptr, nullptr, nullptr};
  long long n   = 0;
  device_points() = default;
  device_points(device_points const&)            = delete;
  device_points& operator=(device_points const&) = delete;
  ~device_points()
  {
    for (float* p : xyz) { (void)cudaFree(p); }
  }
};

device_points const& device_data(long long n)
{
  static std::map<long long, std::unique_ptr<device_points>> cache;
  auto& slot = cache[n];
  if (!slot) {
    auto d           = std::make_unique<device_points>();
    auto const& h    = host_data(n);
    float const* src[3] = {h.x.data(), h.y.data(), h.z.data()};
    for (int k = 0; k < 3; ++k) {
      BENCH_CUDA_CHECK(cudaMalloc(&d->xyz[k], sizeof(float) * n));
      BENCH_CUDA_CHECK(cudaMemcpy(d->xyz[k], src[k], sizeof(float) * n, cudaMemcpyHostToDevice));
    }
    d->n = n;
    slot = std::move(d);
  }
  return *slot;
}

twobody::pair_set<points3> device_pairs(long long n)
{
  auto const& d = device_data(n);
  return twobody::self_pairs(twobody::make_points(n, d.xyz[0], d.xyz[1], d.xyz[2]));
}

twobody::pair_set<points3> host_pairs(long long n)
{
  auto const& h = host_data(n);
  return twobody::self_pairs(twobody::make_points(n, h.x.data(), h.y.data(), h.z.data()));
}

twobody::uniform_bins<float> sdh_binning() { return {0.f, box_side * std::sqrt(3.f), sdh_bins}; }

double pair_count(long long n) { return double(n) * double(n - 1) / 2.0; }

void set_rate(benchmark::State& state, long long n)
{
  state.counters["pairs_per_s"] =
    benchmark::Counter(pair_count(n) * double(state.iterations()), benchmark::Counter::kIsRate);
}

// ---------------------------------------------------------------------------
// GPU timing: CUDA events around each call on a private stream.
// ---------------------------------------------------------------------------
struct gpu_timer {
  cudaStream_t stream{};
  cudaEvent_t start{}, stop{};
  gpu_timer()
  {
    BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    BENCH_CUDA_CHECK(cudaEventCreate(&start));
    BENCH_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~gpu_timer()
  {
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
    (void)cudaStreamDestroy(stream);
  }
  gpu_timer(gpu_timer const&)            = delete;
  gpu_timer& operator=(gpu_timer const&) = delete;

  /// Warm-up call, then the timed loop: each iteration's time is the event interval.
  template <class Call>
  void run(benchmark::State& state, Call&& call)
  {
    call(stream);
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (auto _ : state) {
      BENCH_CUDA_CHECK(cudaEventRecord(start, stream));
      call(stream);
      BENCH_CUDA_CHECK(cudaEventRecord(stop, stream));
      BENCH_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0.f;
      BENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      state.SetIterationTime(double(ms) * 1e-3);
    }
  }
};

/// Device scratch freed on scope exit.
struct device_scratch {
  void* ptr = nullptr;
  explicit device_scratch(std::size_t bytes)
  {
    if (bytes > 0) { BENCH_CUDA_CHECK(cudaMalloc(&ptr, bytes)); }
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

/// Runs a benchmark body, turning a twobody::error into a skipped benchmark.
template <class Body>
void guarded(benchmark::State& state, Body&& body)
{
  try {
    body();
  } catch (twobody::error const& e) {
    state.SkipWithError(e.what());
  }
}

// ---------------------------------------------------------------------------
// Benchmark bodies
// ---------------------------------------------------------------------------
template <class Input>
void bench_2pcf(benchmark::State& state)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const pairs  = device_pairs(n);
    auto const pred   = twobody::within_radius(radius);
    device_scratch result(sizeof(unsigned long long));
    std::size_t temp_bytes = 0;
    twobody::count_pairs<Input>(nullptr, temp_bytes, pairs, pred, result.as<unsigned long long>());
    device_scratch temp(temp_bytes);
    gpu_timer timer;
    timer.run(state, [&](cudaStream_t s) {
      twobody::count_pairs<Input>(temp.ptr, temp_bytes, pairs, pred, result.as<unsigned long long>(), s);
    });
    set_rate(state, n);
  });
}

template <class Input, class Output>
void bench_sdh(benchmark::State& state, Output policy)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const pairs  = device_pairs(n);
    auto const bins   = sdh_binning();
    device_scratch counts(sizeof(unsigned long long) * (bins.size() + 1));
    gpu_timer timer;
    timer.run(state, [&](cudaStream_t s) {
      twobody::histogram<Input>(pairs, twobody::euclidean{}, bins, counts.as<unsigned long long>(), policy, s);
    });
    set_rate(state, n);
  });
}

void bench_2pcf_one_call(benchmark::State& state)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const pairs  = device_pairs(n);
    auto const pred   = twobody::within_radius(radius);
    device_scratch result(sizeof(unsigned long long));
    gpu_timer timer;
    timer.run(state, [&](cudaStream_t s) { twobody::count_pairs(pairs, pred, result.as<unsigned long long>(), s); });
    set_rate(state, n);
  });
}

void bench_sdh_one_call(benchmark::State& state)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const pairs  = device_pairs(n);
    auto const bins   = sdh_binning();
    device_scratch counts(sizeof(unsigned long long) * (bins.size() + 1));
    gpu_timer timer;
    timer.run(state, [&](cudaStream_t s) {
      twobody::histogram(pairs, twobody::euclidean{}, bins, counts.as<unsigned long long>(), s);
    });
    set_rate(state, n);
  });
}

void bench_cpu_2pcf(benchmark::State& state)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const pairs  = host_pairs(n);
    auto const pred   = twobody::within_radius(radius);
    for (auto _ : state) { benchmark::DoNotOptimize(twobody::cpu::count_pairs(pairs, pred)); }
    set_rate(state, n);
  });
}

void bench_cpu_sdh(benchmark::State& state)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const pairs  = host_pairs(n);
    auto const bins   = sdh_binning();
    std::vector<unsigned long long> counts(bins.size() + 1);
    for (auto _ : state) {
      twobody::cpu::histogram(pairs, twobody::euclidean{}, bins, counts.data());
      benchmark::DoNotOptimize(counts.data());
      benchmark::ClobberMemory();
    }
    set_rate(state, n);
  });
}

// ---------------------------------------------------------------------------
// Registration
// ---------------------------------------------------------------------------
struct config {
  std::vector<long long> sizes{1ll << 16, 1ll << 20};
  long long naive_max_n = 1ll << 16;
};

benchmark::internal::Benchmark* gpu_common(benchmark::internal::Benchmark* b, config const& cfg, bool naive)
{
  for (long long n : cfg.sizes) {
    if (!naive || n <= cfg.naive_max_n) { b->Arg(n); }
  }
  return b->UseManualTime()->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true);
}

bool any_size(config const& cfg, bool naive)
{
  for (long long n : cfg.sizes) {
    if (!naive || n <= cfg.naive_max_n) { return true; }
  }
  return false;
}

template <class Input>
void register_input(config const& cfg, char const* name)
{
  bool const naive = !Input::tiled;
  if (!any_size(cfg, naive)) { return; }  // Benchmark with no Arg would run once with range(0) unset
  std::string const in(name);
  gpu_common(benchmark::RegisterBenchmark(("2pcf/" + in + "/registers").c_str(), bench_2pcf<Input>), cfg, naive);
  gpu_common(benchmark::RegisterBenchmark(("sdh256/" + in + "/block_privatized").c_str(),
                                          [](benchmark::State& s) {
                                            bench_sdh<Input>(s, twobody::output::block_privatized{});
                                          }),
             cfg, naive);
  gpu_common(benchmark::RegisterBenchmark(("sdh256/" + in + "/warp_privatized32").c_str(),
                                          [](benchmark::State& s) {
                                            bench_sdh<Input>(s, twobody::output::warp_privatized{32});
                                          }),
             cfg, naive);
  gpu_common(benchmark::RegisterBenchmark(("sdh256/" + in + "/warp_privatized8").c_str(),
                                          [](benchmark::State& s) {
                                            bench_sdh<Input>(s, twobody::output::warp_privatized{8});
                                          }),
             cfg, naive);
  gpu_common(benchmark::RegisterBenchmark(("sdh256/" + in + "/global_atomics").c_str(),
                                          [](benchmark::State& s) {
                                            bench_sdh<Input>(s, twobody::output::global_atomics{});
                                          }),
             cfg, /*slow: one global atomic per pair, limited like naive*/ true);
}

void register_gpu(config const& cfg)
{
  register_input<twobody::input::shared_tile<256, 4>>(cfg, "shared_tile");
  register_input<twobody::input::readonly_tile<256, 4>>(cfg, "readonly_tile");
  register_input<twobody::input::shuffle_tile<256, 4>>(cfg, "shuffle_tile");
  register_input<twobody::input::naive<256>>(cfg, "naive");
  if (any_size(cfg, false)) {
    gpu_common(benchmark::RegisterBenchmark("2pcf/one_call/default", bench_2pcf_one_call), cfg, false);
    gpu_common(benchmark::RegisterBenchmark("sdh256/one_call/default", bench_sdh_one_call), cfg, false);
  }
}

void register_cpu()
{
  long long const n = 1ll << 15;
  for (auto* b : {benchmark::RegisterBenchmark("2pcf/cpu/openmp", bench_cpu_2pcf),
                  benchmark::RegisterBenchmark("sdh256/cpu/openmp", bench_cpu_sdh)}) {
    b->Arg(n)->UseRealTime()->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true);
  }
}

/// Parses and removes our own flags from argv; returns false on a bad value.
bool parse_own_flags(int& argc, char** argv, config& cfg)
{
  auto value_of = [](char const* arg, char const* flag) -> char const* {
    std::size_t const len = std::strlen(flag);
    return std::strncmp(arg, flag, len) == 0 && arg[len] == '=' ? arg + len + 1 : nullptr;
  };
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (char const* v = value_of(argv[i], "--sizes")) {
      cfg.sizes.clear();
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
        cfg.sizes.push_back(n);
        if (comma == std::string::npos) { break; }
        pos = comma + 1;
      }
    } else if (char const* v = value_of(argv[i], "--naive_max_n")) {
      cfg.naive_max_n = std::atoll(v);
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  return true;
}

}  // namespace

int main(int argc, char** argv)
{
  config cfg;
  if (!parse_own_flags(argc, argv, cfg)) { return 1; }
  // Results files say what they were measured on and with which code.
  if (char const* commit = std::getenv("TWOBODY_COMMIT")) { benchmark::AddCustomContext("twobody_commit", commit); }
  if (example::have_gpu()) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
      benchmark::AddCustomContext("gpu", prop.name);
      benchmark::AddCustomContext("gpu_sm_count", std::to_string(prop.multiProcessorCount));
    }
    register_gpu(cfg);
  } else {
    std::fprintf(stderr, "no CUDA GPU: GPU benchmarks skipped\n");  // stderr: keeps JSON on stdout clean
  }
  register_cpu();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) { return 1; }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
