// Grid-index benchmarks (Google Benchmark): range-limited pair counts and histograms through a
// grid_index against twobody's brute-force kernels.
//   r5:        pairs within r = 5 among N uniform points in a 100^3 box (grid: index build + count);
//   r5_built:  the same count on a prebuilt index;
//   r5_periodic: the same in a periodic 100^3 box (minimum image);
//   hist20_r20: 20 distance bins up to r = 20 (grid: build + histogram);
//   dim<D>:    N uniform points in the unit cube of D = 2..6 dimensions, eps chosen for about 64
//              neighbours per point (0.006% of 2^20): grid vs brute force;
//   blobs:     clustered points (64 Gaussian blobs), r = 5 on a prebuilt index: the half-stencil off,
//              queries ordered by work, 1 or 32 threads per query (default: half-stencil, cell
//              order, 8 threads per query);
//   cpu/dd_log20: the CPU backend (no GPU needed; --cpu_sizes, default 10^6): a cosmologist's DD,
//              N uniform points in a periodic box of side 1000, 20 log bins of r from 0.1 to 20,
//              through its cells (cpu/cell_list.cuh, building them included) and, at the smaller
//              sizes only, brute force; wall clock, OpenMP's threads.
// Counters: pairs_per_s (the N(N-1)/2 pairs a brute force evaluates, so grid and brute force compare
// as rates), distance_calls, calls_fraction (distance calls / N(N-1)/2), cells.
//
//   bench_grid [--sizes=1048576] [--cpu_sizes=1000000] [google benchmark flags]
#include "bench_common.cuh"

#include <twobody/grid.cuh>

#include <chrono>
#include <cmath>

namespace {

using namespace bench;

struct config {
  std::vector<long long> sizes{1ll << 20};
  std::vector<long long> cpu_sizes{1000000};
} cfg;

enum class shape { uniform, blobs };

/// Seeded: uniform in [0, side)^D, or 64 Gaussian blobs (sigma = side / 100) wrapped into the box.
template <int D>
device_cloud<D> const& data(long long n, float side, shape s)
{
  static std::map<std::tuple<long long, float, int>, std::unique_ptr<device_cloud<D>>> cache;
  auto& slot = cache[{n, side, static_cast<int>(s)}];
  if (!slot) {
    std::mt19937 rng(4242 + D);
    std::uniform_real_distribution<float> u(0.f, side);
    std::normal_distribution<float> g(0.f, side / 100.f);
    auto const centres = blob_centres<D>(rng, u);
    std::vector<float> h[D];
    for (auto& v : h) { v.resize(static_cast<std::size_t>(n)); }
    for (long long i = 0; i < n; ++i) {
      auto const& c = centres[static_cast<std::size_t>(i % 64)];
      for (int k = 0; k < D; ++k) {
        float x = s == shape::uniform ? u(rng) : c[k] + g(rng);
        x       = std::fmod(std::fmod(x, side) + side, side);
        h[k][static_cast<std::size_t>(i)] = x < side ? x : 0.f;
      }
    }
    slot = std::make_unique<device_cloud<D>>(h);
  }
  return *slot;
}

void set_grid_counters(benchmark::State& state, long long n, twobody::grid_stats const& st)
{
  set_counters(state, self_pair_count(n));
  state.counters["distance_calls"] = double(st.distance_calls);
  state.counters["calls_fraction"] = double(st.distance_calls) / self_pair_count(n);
  state.counters["cells"]          = double(st.cells);
}

/// eps for about `k` neighbours per point among n uniform points in the unit D-cube.
double eps_for_neighbours(int D, long long n, double k)
{
  double const unit_ball = std::pow(M_PI, D / 2.0) / std::tgamma(D / 2.0 + 1);
  return std::pow(k / (double(n) * unit_ball), 1.0 / D);
}

template <int D>
void bench_count(benchmark::State& state, float side, float r, shape s, bool periodic, bool prebuilt, bool brute,
                 twobody::grid_options opt = {})
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const& c     = data<D>(n, side, s);
    auto const pred   = twobody::within_radius(r);
    gpu_timer t;
    twobody::grid_stats st;
    opt.stats = &st;
    std::array<float, D> box{};
    box.fill(side);
    cuda::std::array<float, D> cbox{};
    for (int k = 0; k < D; ++k) { cbox[k] = side; }
    std::unique_ptr<twobody::grid_index<float, D>> built;
    if (prebuilt) { built = std::make_unique<twobody::grid_index<float, D>>(c.view(), r); }
    t.run(state, [&](cudaStream_t stream, long long it) {
      auto p = c.view();
      if (it < 0) { p.size = std::min<long long>(p.size, 8192); }
      if (brute) {
        benchmark::DoNotOptimize(twobody::count_pairs(twobody::self_pairs(p), pred, stream));
      } else if (prebuilt && it >= 0) {
        benchmark::DoNotOptimize(twobody::count_pairs(*built, pred, opt, stream));
      } else if (periodic) {
        twobody::grid_index<float, D> g(p, r, cbox, stream);
        auto metric = twobody::periodic_squared_euclidean<float, D>{};
        for (int k = 0; k < D; ++k) { metric.box[k] = side; }
        benchmark::DoNotOptimize(twobody::count_pairs(g, twobody::within<decltype(metric), float>{metric, r * r}, opt, stream));
      } else {
        twobody::grid_index<float, D> g(p, r, stream);
        benchmark::DoNotOptimize(twobody::count_pairs(g, pred, opt, stream));
      }
    });
    set_grid_counters(state, n, st);
  });
}

void bench_hist20(benchmark::State& state, bool brute)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const& c     = data<3>(n, box_side, shape::uniform);
    twobody::distance_bins<float> bins(20.f, 20);
    gpu_timer t;
    twobody::grid_stats st;
    twobody::grid_options opt;
    opt.stats = &st;
    t.run(state, [&](cudaStream_t stream, long long it) {
      auto p = c.view();
      if (it < 0) { p.size = std::min<long long>(p.size, 8192); }
      if (brute) {
        benchmark::DoNotOptimize(twobody::histogram(twobody::self_pairs(p), twobody::squared_euclidean{}, bins, stream));
      } else {
        twobody::grid_index<float, 3> g(p, 20.f, stream);
        benchmark::DoNotOptimize(twobody::histogram(g, twobody::squared_euclidean{}, bins, opt, stream));
      }
    });
    set_grid_counters(state, n, st);
  });
}

template <int D>
void bench_dim(benchmark::State& state, bool brute)
{
  long long const n = state.range(0);
  auto const eps    = static_cast<float>(eps_for_neighbours(D, n, 64));
  bench_count<D>(state, 1.f, eps, shape::uniform, false, false, brute);
}

template <class Fn>
void add(std::string const& name, Fn&& fn)
{
  auto* b = benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn));
  b->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true)->UseManualTime()->Iterations(1);
  for (long long n : cfg.sizes) { b->Arg(n); }
}

void register_gpu()
{
  add("r5/grid", [](benchmark::State& s) { bench_count<3>(s, box_side, 5.f, shape::uniform, false, false, false); });
  add("r5/grid_prebuilt", [](benchmark::State& s) { bench_count<3>(s, box_side, 5.f, shape::uniform, false, true, false); });
  add("r5/brute_force", [](benchmark::State& s) { bench_count<3>(s, box_side, 5.f, shape::uniform, false, false, true); });
  add("r5_periodic/grid", [](benchmark::State& s) { bench_count<3>(s, box_side, 5.f, shape::uniform, true, false, false); });
  add("hist20_r20/grid", [](benchmark::State& s) { bench_hist20(s, false); });
  add("hist20_r20/brute_force", [](benchmark::State& s) { bench_hist20(s, true); });
  add("dim2/grid", [](benchmark::State& s) { bench_dim<2>(s, false); });
  add("dim2/brute_force", [](benchmark::State& s) { bench_dim<2>(s, true); });
  add("dim3/grid", [](benchmark::State& s) { bench_dim<3>(s, false); });
  add("dim4/grid", [](benchmark::State& s) { bench_dim<4>(s, false); });
  add("dim5/grid", [](benchmark::State& s) { bench_dim<5>(s, false); });
  add("dim6/grid", [](benchmark::State& s) { bench_dim<6>(s, false); });
  add("dim6/brute_force", [](benchmark::State& s) { bench_dim<6>(s, true); });
  twobody::grid_options full, ordered, k1, k32;
  full.half_stencil        = false;
  ordered.order_by_workload = true;
  k1.threads_per_query    = 1;
  k32.threads_per_query   = 32;
  add("blobs/grid", [](benchmark::State& s) { bench_count<3>(s, box_side, 5.f, shape::blobs, false, true, false); });
  add("blobs/grid_full_stencil",
      [=](benchmark::State& s) { bench_count<3>(s, box_side, 5.f, shape::blobs, false, true, false, full); });
  add("blobs/grid_ordered_by_work",
      [=](benchmark::State& s) { bench_count<3>(s, box_side, 5.f, shape::blobs, false, true, false, ordered); });
  add("blobs/grid_1_thread_per_query",
      [=](benchmark::State& s) { bench_count<3>(s, box_side, 5.f, shape::blobs, false, true, false, k1); });
  add("blobs/grid_32_threads_per_query",
      [=](benchmark::State& s) { bench_count<3>(s, box_side, 5.f, shape::blobs, false, true, false, k32); });
}

/// N seeded uniform points in [0, side)^3 on the host, generated once per N.
host_points<float> const& host_cloud(long long n, float side)
{
  static std::map<long long, std::unique_ptr<host_points<float>>> cache;
  auto& slot = cache[n];
  if (!slot) {
    slot = std::make_unique<host_points<float>>();
    std::mt19937 rng(977);
    std::uniform_real_distribution<float> u(0.f, side);
    for (auto& c : slot->c) {
      c.resize(static_cast<std::size_t>(n));
      for (auto& v : c) { v = u(rng); }
    }
  }
  return *slot;
}

/// The DD of cpu/dd_log20 on the CPU backend: cells (search grid) or brute force, wall clock.
void bench_cpu_dd(benchmark::State& state, twobody::pair_search search)
{
  guarded(state, [&] {
    float const side = 1000.f, r_max = 20.f;
    long long const n = state.range(0);
    auto const pairs  = twobody::self_pairs(host_cloud(n, side).view());
    auto const f     = twobody::make_periodic_euclidean(side, side, side);
    twobody::log_bins<float> const bins(0.1f, r_max, 20);
    twobody::grid_stats st;
    twobody::within_cutoff<float> rg{r_max, search};
    rg.grid.stats = &st;
    unsigned long long in_bins = 0;
    for (auto _ : state) {
      auto const t0 = std::chrono::steady_clock::now();
      auto const h  = twobody::histogram(twobody::exec::cpu, pairs, f, bins, rg);
      state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      in_bins = h.pairs - h.outside;
    }
    set_counters(state, self_pair_count(n));
    state.counters["in_bins"]   = static_cast<double>(in_bins);
    state.counters["threads"]   = twobody::cpu::threads();
    if (search == twobody::pair_search::grid) { state.counters["distance_calls"] = static_cast<double>(st.distance_calls); }
  });
}

void register_cpu()
{
  auto add_cpu = [](char const* name, twobody::pair_search search, long long max_n) {
    auto* b = benchmark::RegisterBenchmark(name, [=](benchmark::State& s) { bench_cpu_dd(s, search); });
    b->Unit(benchmark::kMillisecond)->Repetitions(3)->ReportAggregatesOnly(true)->UseManualTime()->Iterations(1);
    for (long long n : cfg.cpu_sizes) {
      if (n <= max_n) { b->Arg(n); }
    }
  };
  add_cpu("cpu/dd_log20/cells", twobody::pair_search::grid, 1ll << 40);
  add_cpu("cpu/dd_log20/brute_force", twobody::pair_search::brute_force, 1ll << 16);  // N^2: the small sizes only
}

}  // namespace

int main(int argc, char** argv)
{
  if (!take_sizes_flag(argc, argv, cfg.sizes) || !take_sizes_flag(argc, argv, cfg.cpu_sizes, "--cpu_sizes")) { return 1; }
  if (record_context()) { register_gpu(); }
  register_cpu();
  return run_registered(argc, argv);
}
