// Join benchmarks (Google Benchmark): the direct output buffer (one pass, pages per thread or
// per warp) against the two-pass baseline (count, CUB scan, write), on
//   selfjoin: item-similarity self-join of N uniform points in a 100^3 box, eps chosen so
//             that about 4N pairs qualify (N(N-1)/2 pairs evaluated);
//   theta:    theta join of two N-row tables of integer keys (k1, k2) on
//             a.k1 < b.k1 && |a.k2 - b.k2| <= 64 (N^2 pairs evaluated, about 4N results);
// plus the one-call forms (device result, and host result by wall clock) and the CPU backend.
// Each timed call is a whole join as a user makes it: estimate, kernel, prefix sum, gather into
// the result (CUDA events on a private stream; median of 5). Counters: pairs_per_s (pairs
// evaluated), result_pairs_per_s, output_bytes_per_s, results, rounds.
//
//   bench_join [--sizes=262144,1048576] [--cpu_n=65536] [google benchmark flags]
#include "bench_common.cuh"

#include <twobody/join.cuh>

#include <cmath>
#include <cstdio>
#include <cstring>

namespace {

using namespace bench;

struct config {
  std::vector<long long> sizes{1ll << 18, 1ll << 20};
  long long cpu_n = 1ll << 16;
} cfg;

/// eps giving about 4N pairs among N uniform points in the box (ignoring the boundary):
/// N^2 / 2 * (4/3 pi eps^3) / L^3 = 4N.
float selfjoin_eps(long long n) { return box_side * static_cast<float>(std::cbrt(6.0 / (M_PI * double(n)))); }

// Theta join tables: k1 uniform in [0, 2^20), k2 uniform in [0, 2^24).
constexpr int theta_band = 64;
struct theta_pred {
  __host__ __device__ bool operator()(twobody::point<int, 2> const& a, twobody::point<int, 2> const& b) const
  {
    int const d = a[1] - b[1];
    return a[0] < b[0] && d <= theta_band && d >= -theta_band;
  }
};

struct table_data {
  std::vector<int> h[2];
  int* d[2] = {nullptr, nullptr};
  long long n = 0;
  ~table_data()
  {
    for (int* p : d) { (void)cudaFree(p); }
  }
  twobody::points<int, 2> view() const { return twobody::make_points(n, d[0], d[1]); }
};

table_data const& table(long long n, int which)
{
  static std::map<std::pair<long long, int>, std::unique_ptr<table_data>> cache;
  auto& slot = cache[{n, which}];
  if (!slot) {
    slot    = std::make_unique<table_data>();
    slot->n = n;
    std::mt19937 rng(777 + which);
    std::uniform_int_distribution<int> k1(0, (1 << 20) - 1), k2(0, (1 << 24) - 1);
    slot->h[0].resize(n);
    slot->h[1].resize(n);
    for (long long i = 0; i < n; ++i) {
      slot->h[0][i] = k1(rng);
      slot->h[1][i] = k2(rng);
    }
    if (example::have_gpu()) {
      for (int c = 0; c < 2; ++c) {
        EXAMPLE_CUDA_CHECK(cudaMalloc(&slot->d[c], sizeof(int) * n));
        EXAMPLE_CUDA_CHECK(cudaMemcpy(slot->d[c], slot->h[c].data(), sizeof(int) * n, cudaMemcpyHostToDevice));
      }
    }
  }
  return *slot;
}

template <class Record>
void set_join_counters(benchmark::State& state, double pairs, twobody::join_stats const& st)
{
  double const it = double(state.iterations());
  state.counters["pairs_per_s"]        = benchmark::Counter(pairs * it, benchmark::Counter::kIsRate);
  state.counters["result_pairs_per_s"] = benchmark::Counter(double(st.results) * it, benchmark::Counter::kIsRate);
  state.counters["output_bytes_per_s"] =
    benchmark::Counter(double(st.results) * sizeof(Record) * it, benchmark::Counter::kIsRate);
  state.counters["results"] = double(st.results);
  state.counters["rounds"]  = st.rounds;
}

template <class Output>
void bench_selfjoin(benchmark::State& state)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const copies = rotated<float>(n);
    float const eps   = selfjoin_eps(n);
    gpu_timer t;
    twobody::join_stats st{};
    t.run(state, [&](cudaStream_t s, long long it) {
      auto r = twobody::pairs_within<twobody::input::shared_tile<256, 4>, Output>(
        twobody::self_pairs(pick(copies, it)), eps, {}, s);
      if (it >= 0) { st = r.stats(); }
    });
    set_join_counters<twobody::index_pair>(state, self_pair_count(n), st);
  });
}

void bench_selfjoin_one_call_host(benchmark::State& state)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const copies = rotated<float>(n);
    gpu_timer t;
    twobody::join_options opt;
    opt.location = twobody::result_location::host;
    twobody::join_stats st{};
    t.run_wall(state, [&](cudaStream_t s, long long it) {
      auto r = twobody::pairs_within(twobody::self_pairs(pick(copies, it < 0 ? 0 : it)), selfjoin_eps(n), opt, s);
      st     = r.stats();
    });
    set_join_counters<twobody::index_pair>(state, self_pair_count(n), st);
  });
}

template <class Output>
void bench_theta(benchmark::State& state)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const a = table(n, 0).view(), b = table(n, 1).view();
    gpu_timer t;
    twobody::join_stats st{};
    t.run(state, [&](cudaStream_t s, long long it) {
      auto aa = a;
      if (it < 0) { aa.size = 8192; }
      auto r = twobody::join<twobody::input::shared_tile<256, 4>, Output>(twobody::cross_pairs(aa, b), theta_pred{}, {}, s);
      if (it >= 0) { st = r.stats(); }
    });
    set_join_counters<twobody::index_pair>(state, double(n) * double(n), st);
  });
}

void bench_selfjoin_cpu(benchmark::State& state)
{
  long long const n = state.range(0);
  auto const& h     = host_data<float>(n);
  float const eps   = selfjoin_eps(n);
  std::size_t results = 0;
  for (auto _ : state) {
    auto r  = twobody::cpu::join(twobody::self_pairs(h.view()), twobody::within_eps_fn<float>{eps * eps});
    results = r.size();
    benchmark::DoNotOptimize(r.data());
  }
  twobody::join_stats st{};
  st.results = results;
  st.rounds  = 1;
  set_join_counters<twobody::index_pair>(state, self_pair_count(n), st);
}

template <class Fn>
void add(std::string const& name, std::vector<long long> const& sizes, Fn&& fn, bool wall = false)
{
  if (sizes.empty()) { return; }
  auto* b = benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn));
  b->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true);
  for (long long n : sizes) { b->Arg(n); }
  if (wall) {
    b->UseRealTime()->Iterations(1);
  } else {
    b->UseManualTime()->Iterations(1);
  }
}

using namespace twobody::output;
using dob_t1  = direct_output_buffer<1>;
using dob_t4  = direct_output_buffer<4>;
using dob_t16 = direct_output_buffer<16>;
using dob_w32 = direct_output_buffer<32, page_owner::warp>;
using dob_w128 = direct_output_buffer<128, page_owner::warp>;

void register_gpu()
{
  add("selfjoin/dob_thread1", cfg.sizes, bench_selfjoin<dob_t1>);
  add("selfjoin/dob_thread4", cfg.sizes, bench_selfjoin<dob_t4>);
  add("selfjoin/dob_thread16", cfg.sizes, bench_selfjoin<dob_t16>);
  add("selfjoin/dob_warp32", cfg.sizes, bench_selfjoin<dob_w32>);
  add("selfjoin/dob_warp128", cfg.sizes, bench_selfjoin<dob_w128>);
  add("selfjoin/two_pass", cfg.sizes, bench_selfjoin<two_pass>);
  add("selfjoin/one_call", cfg.sizes, bench_selfjoin<twobody::default_join_output>);
  add("selfjoin/one_call_host", cfg.sizes, bench_selfjoin_one_call_host, true);
  add("theta/dob_thread4", cfg.sizes, bench_theta<dob_t4>);
  add("theta/dob_warp128", cfg.sizes, bench_theta<dob_w128>);
  add("theta/two_pass", cfg.sizes, bench_theta<two_pass>);
  add("theta/one_call", cfg.sizes, bench_theta<twobody::default_join_output>);
}

bool parse_own_flags(int& argc, char** argv)
{
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (char const* v = value_of(argv[i], "--sizes")) {
      if (!parse_sizes(v, cfg.sizes)) { return false; }
    } else if (char const* v = value_of(argv[i], "--cpu_n")) {
      cfg.cpu_n = std::atoll(v);
      if (cfg.cpu_n < 2) {
        std::fprintf(stderr, "--cpu_n must be >= 2\n");
        return false;
      }
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
  if (!parse_own_flags(argc, argv)) { return 1; }
  if (record_context()) { register_gpu(); }
  add("selfjoin/cpu_openmp", {cfg.cpu_n}, bench_selfjoin_cpu, true);
  return run_registered(argc, argv);
}
