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
//   2pcf/gpus_<g>:   pair count within r = 5.
//   scripts/scale_devices_table.py prints the speedups over one GPU.
//
//   bench_scale [--sizes=4194304] [--device_sizes=16777216] [google benchmark flags]
#include "bench_common.cuh"

#include <twobody/host/out_of_core.cuh>

namespace {

using namespace bench;

struct config {
  std::vector<long long> sizes{1ll << 22};
  std::vector<long long> device_sizes{1ll << 24};
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

void register_gpu()
{
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
  auto* b = benchmark::RegisterBenchmark("sdh256/gpus_1_blocks_of_2",
                                         [=](benchmark::State& s) { bench_devices(s, true, 1, 2); });
  b->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(1);
  for (long long n : cfg.device_sizes) { b->Arg(n); }
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
  if (!take_sizes_flag(argc, argv, cfg.sizes) || !take_sizes_flag(argc, argv, cfg.device_sizes, "--device_sizes")) {
    return 1;
  }
  if (record_context()) { register_gpu(); }
  return run_registered(argc, argv);
}
