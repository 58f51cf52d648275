// Out-of-core benchmarks (Google Benchmark): a 256-bin SDH over N points in host memory, with a
// device budget that forces 16 blocks (136 block pairs), against the in-core one-call SDH.
//   sdh256_host/out_of_core: host::histogram, wall clock of the whole call (copies included);
//     counters: kernel_sum_s (the block pairs' kernel times, CUDA events) and
//     e2e_over_kernels (wall clock / kernel sum: 1.0 means copies hide completely);
//   sdh256_host/in_core:     histogram() on the same host arrays (staged to the device whole).
// Several GPUs (host::scale_options::devices = the first g devices, default block size: one
// block on one GPU, at least block_pairs_per_worker block pairs per GPU on several), points in
// host memory, wall clock of the whole call:
//   sdh256/gpus_<g>: 256-bin SDH (squared distances binned by distance, the suite's fast path);
//   2pcf/gpus_<g>:   pair count within r = 5;
//   <sdh256|2pcf>/gpus_1_blocks_of_2: one GPU running the block pairs two GPUs get (one run:
//     the cost of the blocks alone, without the split).
//   scripts/lib/scale_devices_table.py prints the speedups over one GPU.
// The kernels of one GPU by launch shape (points already on the device, CUDA events, no copies):
//   <sdh256|2pcf>_launch/self:         one self launch over N points;
//   <sdh256|2pcf>_launch/cross_halves: one cross launch, first half x second half of the N points;
//   <sdh256|2pcf>_launch/blocks_of_<B>[_copied]: the N points' self pairs as the block pairs of
//     blocks of B points (what the block layer launches, without its copies), one launch per
//     block pair; views into the N points, or (_copied) each block in its own aligned allocation.
//     419431-point blocks end in a partial tile: their cross launches must match the others.
//
//   bench_scale [--sizes=4194304] [--device_sizes=16777216] [--launch_sizes=4194304]
//               [--launch_blocks=1048576,419431] [google benchmark flags]
#include "bench_common.cuh"

#include <twobody/host/out_of_core.cuh>

namespace {

using namespace bench;

struct config {
  std::vector<long long> sizes{1ll << 22};
  std::vector<long long> device_sizes{1ll << 24};
  std::vector<long long> launch_sizes{1ll << 22};
  std::vector<long long> launch_blocks{1ll << 20, 419431};
} cfg;

/// Times call(self pairs of the N = state.range(0) host points) by wall clock, after a warm-up
/// call on a 65536-point prefix; sets pairs/s.
template <class Call>
void time_host_call(benchmark::State& state, Call&& call)
{
  long long const n = state.range(0);
  auto const& h     = host_data<float>(n);
  gpu_timer t;
  t.run_wall(state, [&](cudaStream_t, long long it) {
    auto p = h.view();
    if (it < 0) { p.size = std::min<long long>(p.size, 65536); }
    call(twobody::self_pairs(p));
  });
  set_counters(state, self_pair_count(n));
}

void bench_sdh(benchmark::State& state, bool out_of_core)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    twobody::uniform_bins<float> const bins(0.f, sdh_range, 256);
    twobody::host::scale_options opt;
    opt.block_points = (n + 15) / 16;
    opt.time_kernels = true;
    twobody::host::scale_stats st;
    time_host_call(state, [&](auto const& pairs) {
      if (out_of_core) {
        benchmark::DoNotOptimize(twobody::host::histogram(pairs, twobody::euclidean{}, bins, opt, &st));
      } else {
        benchmark::DoNotOptimize(twobody::histogram(pairs, twobody::euclidean{}, bins));
      }
    });
    if (out_of_core) {
      state.counters["kernel_sum_s"]     = st.kernel_seconds;
      state.counters["loop_s"]           = st.seconds;
      state.counters["e2e_over_kernels"] = st.seconds / st.kernel_seconds;
      state.counters["block_pairs"]      = double(st.block_pairs);
    }
  });
}

/// sdh256 (sdh = true) or 2pcf on the first `gpus` devices; blocks_of > 0: the blocks the
/// default would give `blocks_of` GPUs (to tell the cost of the blocks from that of the split).
void bench_devices(benchmark::State& state, bool sdh, int gpus, int blocks_of = 0)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    twobody::host::scale_options opt;
    for (int d = 0; d < gpus; ++d) { opt.devices.push_back(d); }
    if (blocks_of > 0) {
      opt.block_points = twobody::host::block_points_for_pairs(twobody::pair_mode::self, n, n, n,
                                                               twobody::host::block_pairs_per_worker * blocks_of);
    }
    opt.time_kernels = true;
    twobody::host::scale_stats st;
    time_host_call(state, [&](auto const& pairs) {
      if (sdh) {
        benchmark::DoNotOptimize(twobody::host::histogram(pairs, twobody::squared_euclidean{}, sdh_bins(256), opt, &st));
      } else {
        benchmark::DoNotOptimize(twobody::host::count_pairs(pairs, twobody::within_radius(radius), opt, &st));
      }
    });
    state.counters["gpus"]         = gpus;
    state.counters["block_pairs"]  = double(st.block_pairs);
    state.counters["block_points"] = double(st.block_points);
    state.counters["kernel_sum_s"] = st.kernel_seconds;  // all devices
  });
}

/// A 256-bin SDH or a 2PCF count of `pairs` into device memory (the block layer's calls).
template <class Pairs>
void launch_statistic(bool sdh, Pairs const& pairs, device_scratch const& out, cudaStream_t s)
{
  if (sdh) {
    twobody::histogram(pairs, twobody::squared_euclidean{}, sdh_bins(256), out.as<unsigned long long>(), s);
  } else {
    twobody::count_pairs(pairs, twobody::within_radius(radius), out.as<unsigned long long>(), s);
  }
}

/// Views of the blocks of `plan` (one set): into `pts` itself, or (copied) into one
/// allocation per block with columns on 256-byte boundaries, as the block layer's slots hold them.
struct block_views {
  std::vector<twobody::points<float, 3>> views;
  std::vector<std::unique_ptr<device_scratch>> copies;
  block_views(twobody::points<float, 3> const& pts, twobody::host::block_plan const& plan, bool copied)
  {
    for (std::int64_t i = 0; i < plan.blocks_a(); ++i) {
      auto v = twobody::host::block_of(pts, plan.range_a(i));
      if (copied) {
        std::size_t const stride = (static_cast<std::size_t>(v.size) + 63) / 64 * 64;
        copies.push_back(std::make_unique<device_scratch>(3 * stride * sizeof(float)));
        for (int d = 0; d < 3; ++d) {
          float* dst = copies.back()->as<float>() + d * stride;
          EXAMPLE_CUDA_CHECK(cudaMemcpy(dst, v.coords[d], v.size * sizeof(float), cudaMemcpyDeviceToDevice));
          v.coords[d] = dst;
        }
      }
      views.push_back(v);
    }
  }
};

enum class shape { self, cross_halves, blocks };

/// The N = state.range(0) device points as one self launch, as one cross launch of its two
/// halves, or as the block pairs of blocks of `bs` points (`copied`: each block in its own
/// aligned allocation).
void bench_launch_shape(benchmark::State& state, bool sdh, shape sh, long long bs, bool copied)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const pts    = device_data<float>(n, 0);
    device_scratch out(sizeof(unsigned long long) * 257);
    double pairs = self_pair_count(n);
    gpu_timer t;
    if (sh == shape::cross_halves) {
      auto const first  = twobody::host::block_of(pts, {0, n / 2});
      auto const second = twobody::host::block_of(pts, {n / 2, n - n / 2});
      pairs             = double(n / 2) * double(n - n / 2);
      t.run(state, [&](cudaStream_t s, long long it) {
        auto a = first, b = second;
        if (it < 0) { a.size = b.size = 4096; }
        launch_statistic(sdh, twobody::cross_pairs(a, b), out, s);
      });
    } else {
      auto const plan = twobody::host::block_plan::make(twobody::pair_mode::self, n, n, sh == shape::self ? n : bs);
      block_views const blocks(pts, plan, copied);
      t.run(state, [&](cudaStream_t s, long long it) {
        if (it < 0) { return launch_statistic(sdh, twobody::self_pairs(twobody::host::block_of(pts, {0, 8192})), out, s); }
        for (std::size_t k = 0; k < plan.size(); ++k) {
          auto const bp = plan[k];
          launch_statistic(sdh, plan.pairs_of(bp, blocks.views[bp.a], blocks.views[bp.b]), out, s);
        }
      });
      state.counters["block_pairs"]  = double(plan.size());
      state.counters["block_points"] = double(plan.block_points());
    }
    set_counters(state, pairs);
  });
}

void register_gpu()
{
  for (bool sdh : {true, false}) {
    std::string const stat = sdh ? "sdh256" : "2pcf";
    auto shape_benchmark   = [&](std::string const& name, shape sh, long long bs, bool copied) {
      auto* b = benchmark::RegisterBenchmark((stat + "_launch/" + name).c_str(),
                                             [=](benchmark::State& s) { bench_launch_shape(s, sdh, sh, bs, copied); });
      b->Unit(benchmark::kMillisecond)->Repetitions(3)->ReportAggregatesOnly(true)->UseManualTime()->Iterations(1);
      for (long long n : cfg.launch_sizes) { b->Arg(n); }
    };
    shape_benchmark("self", shape::self, 0, false);
    shape_benchmark("cross_halves", shape::cross_halves, 0, false);
    for (long long bs : cfg.launch_blocks) {
      shape_benchmark("blocks_of_" + std::to_string(bs), shape::blocks, bs, false);
      shape_benchmark("blocks_of_" + std::to_string(bs) + "_copied", shape::blocks, bs, true);
    }
  }
  int devices = 0;
  EXAMPLE_CUDA_CHECK(cudaGetDeviceCount(&devices));
  for (bool sdh : {true, false}) {
    for (int g = 1; g <= devices; g *= 2) {
      std::string const name = std::string(sdh ? "sdh256" : "2pcf") + "/gpus_" + std::to_string(g);
      auto* b = benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) { bench_devices(s, sdh, g); });
      b->Unit(benchmark::kMillisecond)->Repetitions(3)->ReportAggregatesOnly(true)->UseManualTime()->Iterations(1);
      for (long long n : cfg.device_sizes) { b->Arg(n); }
    }
  }
  // One GPU with the blocks of two (one run: a diagnostic, the cost of the blocks alone).
  for (bool sdh : {true, false}) {
    auto* b = benchmark::RegisterBenchmark(sdh ? "sdh256/gpus_1_blocks_of_2" : "2pcf/gpus_1_blocks_of_2",
                                           [=](benchmark::State& s) { bench_devices(s, sdh, 1, 2); });
    b->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(1);
    for (long long n : cfg.device_sizes) { b->Arg(n); }
  }
  for (bool ooc : {true, false}) {
    auto* b = benchmark::RegisterBenchmark(ooc ? "sdh256_host/out_of_core" : "sdh256_host/in_core",
                                           [=](benchmark::State& s) { bench_sdh(s, ooc); });
    b->Unit(benchmark::kMillisecond)->Repetitions(3)->ReportAggregatesOnly(true)->UseManualTime()->Iterations(1);
    for (long long n : cfg.sizes) { b->Arg(n); }
  }
}

}  // namespace

int main(int argc, char** argv)
{
  if (!take_sizes_flag(argc, argv, cfg.sizes) || !take_sizes_flag(argc, argv, cfg.device_sizes, "--device_sizes") ||
      !take_sizes_flag(argc, argv, cfg.launch_sizes, "--launch_sizes") ||
      !take_sizes_flag(argc, argv, cfg.launch_blocks, "--launch_blocks")) {
    return 1;
  }
  if (record_context()) { register_gpu(); }
  return run_registered(argc, argv);
}
