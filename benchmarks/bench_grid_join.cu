// Similarity self-joins through a grid index against twobody's brute-force join (Google
// Benchmark), on the data sets of the grid-index issue: N = 2^21 points in 2-D..6-D,
//   uniform:     uniform in [0, 100)^D;
//   exponential: each coordinate exponential with rate lambda = 40 (mean 0.025);
//   blobs:       64 Gaussian blobs (sigma = 1) in [0, 100)^D (skew: dense and empty regions).
// eps is chosen for about k = 4, 32 and 256 neighbours per point (closed form for uniform
// and exponential data; the measured count is reported). Variants, each timed as index
// build + join (records left on the device):
//   grid               the defaults (half-stencil, cell order, 8 threads per query);
//   grid_full_stencil  every neighbour cell both ways (the baseline of the half-stencil);
//   grid_ordered       queries by decreasing work (grid_options::order_by_workload);
//   brute_force        pairs_within over all N(N-1)/2 pairs (tiled kernel, direct output
//                      buffer); its time does not depend on eps, so it runs at the middle k.
// Names: <set><D>d_k<k>/<variant>/<N>, e.g. uniform3d_k32/grid/2097152.
// Counters: pairs_per_s (N(N-1)/2 over the time, so grid and brute force compare as rates),
// results, neighbours (2 results / N), eps, distance_calls, calls_fraction (of N(N-1)/2).
// scripts/lib/grid_join_table.py makes the side-by-side table.
//
//   bench_grid_join [--sizes=2097152] [google benchmark flags]
#include "bench_common.cuh"

#include <twobody/grid_join.cuh>

#include <array>
#include <cmath>

namespace {

using namespace bench;

struct config {
  std::vector<long long> sizes{1ll << 21};
} cfg;

enum class dist { uniform, exponential, blobs };
constexpr char const* dist_name[] = {"uniform", "exponential", "blobs"};

/// Seeded data of each set, generated once and kept on the device.
template <int D>
device_cloud<D> const& data(long long n, dist s)
{
  static std::map<std::pair<long long, int>, std::unique_ptr<device_cloud<D>>> cache;
  auto& slot = cache[{n, static_cast<int>(s)}];
  if (!slot) {
    std::mt19937 rng(2121 + 10 * D + static_cast<int>(s));
    std::uniform_real_distribution<float> u(0.f, 100.f);
    std::exponential_distribution<float> e(40.f);
    std::normal_distribution<float> g(0.f, 1.f);
    auto const centres = blob_centres<D>(rng, u);
    std::vector<float> h[D];
    for (auto& v : h) { v.resize(static_cast<std::size_t>(n)); }
    for (long long i = 0; i < n; ++i) {
      for (int k = 0; k < D; ++k) {
        float x = 0;
        switch (s) {
          case dist::uniform: x = u(rng); break;
          case dist::exponential: x = e(rng); break;
          case dist::blobs: x = centres[static_cast<std::size_t>(i % 64)][k] + g(rng); break;
        }
        h[k][static_cast<std::size_t>(i)] = x;
      }
    }
    slot = std::make_unique<device_cloud<D>>(h);
  }
  return *slot;
}

/// eps for about k neighbours per point. Uniform in [0, L)^D: N V_D eps^D / L^D = k. Exponential
/// with rate lambda per axis: the mean density a point sees is N (lambda / 2)^D, so L = 2 / lambda.
/// Blobs: 64 Gaussians of sigma 1: the mean density is N / 64 (4 pi sigma^2)^(-D/2).
double eps_for(dist s, int D, long long n, double k)
{
  double const unit_ball = std::pow(M_PI, D / 2.0) / std::tgamma(D / 2.0 + 1);
  double const base      = std::pow(k / (double(n) * unit_ball), 1.0 / D);
  switch (s) {
    case dist::uniform: return 100.0 * base;
    case dist::exponential: return 2.0 / 40.0 * base;
    case dist::blobs: return std::sqrt(4.0 * M_PI) * std::pow(64.0, 1.0 / D) * base;
  }
  return base;
}

enum class variant { grid, full_stencil, ordered, brute_force };

template <int D>
void bench_selfjoin(benchmark::State& state, dist s, double k, variant v)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const& c     = data<D>(n, s);
    auto const eps    = static_cast<float>(eps_for(s, D, n, k));
    twobody::grid_stats st;
    twobody::grid_options opt;
    opt.stats             = &st;
    opt.half_stencil      = v != variant::full_stencil;
    opt.order_by_workload = v == variant::ordered;
    std::size_t results   = 0;
    gpu_timer t;
    t.run(state, [&](cudaStream_t stream, long long it) {
      auto p = c.view();
      if (it < 0) { p.size = std::min<long long>(p.size, 8192); }
      if (v == variant::brute_force) {
        results = twobody::pairs_within(twobody::self_pairs(p), eps, {}, stream).size();
      } else {
        twobody::grid_index<float, D> const g(p, eps, stream);
        results = twobody::pairs_within(g, eps, {}, opt, stream).size();
      }
    });
    set_counters(state, self_pair_count(n));
    state.counters["results"]    = double(results);
    state.counters["neighbours"] = 2.0 * double(results) / double(n);
    state.counters["eps"]        = eps;
    double const calls = v == variant::brute_force ? self_pair_count(n) : double(st.distance_calls);
    state.counters["distance_calls"] = calls;
    state.counters["calls_fraction"] = calls / self_pair_count(n);
  });
}

template <class Fn>
void add(std::string const& name, int repetitions, Fn&& fn)
{
  auto* b = benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn));
  b->Unit(benchmark::kMillisecond)->Repetitions(repetitions)->ReportAggregatesOnly(true)->UseManualTime()->Iterations(1);
  for (long long n : cfg.sizes) { b->Arg(n); }
}

template <int D>
void register_dimension(dist s)
{
  for (int k : {4, 32, 256}) {
    std::string const set = std::string(dist_name[static_cast<int>(s)]) + std::to_string(D) + "d_k" + std::to_string(k);
    add(set + "/grid", 5, [=](benchmark::State& st) { bench_selfjoin<D>(st, s, k, variant::grid); });
    if (k != 32) { continue; }
    add(set + "/grid_full_stencil", 3, [=](benchmark::State& st) { bench_selfjoin<D>(st, s, k, variant::full_stencil); });
    add(set + "/grid_ordered", 3, [=](benchmark::State& st) { bench_selfjoin<D>(st, s, k, variant::ordered); });
    add(set + "/brute_force", 3, [=](benchmark::State& st) { bench_selfjoin<D>(st, s, k, variant::brute_force); });
  }
}

void register_gpu()
{
  for (dist s : {dist::uniform, dist::exponential}) {
    register_dimension<2>(s);
    register_dimension<3>(s);
    register_dimension<4>(s);
    register_dimension<5>(s);
    register_dimension<6>(s);
  }
  register_dimension<3>(dist::blobs);
}

}  // namespace

int main(int argc, char** argv)
{
  if (!take_sizes_flag(argc, argv, cfg.sizes)) { return 1; }
  if (record_context()) { register_gpu(); }
  return run_registered(argc, argv);
}
