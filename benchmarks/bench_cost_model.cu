// bench_cost_model: validation and calibration of the cost model (model/policy.cuh).
//
// Sweep (default): a 2^20-point SDH (float, 3-D uniform in a 100^3 box, distance_bins over
// [0, 100 sqrt 3)) for bins = 1 .. 4096, timed with every number of private copies H in
// {1, 2, 4, 8, 16, 32} that fits in shared memory (input shared_tile<256, 8>, the model's
// input at this size), and with the one-call histogram (the model's choice). Names:
//   sweep/bins:<b>/copies:<H>     counters bins, copies
//   sweep/bins:<b>/model          counters bins, copies, points_per_thread, shuffle (1 when the
//                                  model took shuffle_tile), predicted_s
// scripts/lib/model_table.py turns the JSON into the table and plot of the README.
//
// Calibration (--calibrate): the few runs that fix C_L, C_LP and the saturation of the
// H100 constants in model/policy.cuh, then prints them (see calibrate() below).
//
//   bench_cost_model --benchmark_out=model.json --benchmark_out_format=json [--n=1048576]
//   bench_cost_model --calibrate [--n=1048576]
#include "bench_common.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace {
using namespace bench;

long long sweep_n = 1ll << 20;
using st8 = twobody::input::shared_tile<256, 8>;
using st4 = twobody::input::shared_tile<256, 4>;
using sh4 = twobody::input::shuffle_tile<256, 4>;

std::vector<int> const sweep_bins{1,   2,   3,   4,   6,   8,    12,   16,   24,   32,   48,   64,  96,
                                  128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096};

template <class Input>
std::size_t tile_smem()
{
  using kernel = twobody::detail::histogram_kernels<twobody::points<float, 3>, twobody::squared_euclidean,
                                                    twobody::distance_bins<float>, unsigned long long>::single<Input>;
  return kernel::static_smem();
}

/// Times one explicit (Input, copies) composition, or the one-call form when copies == 0.
template <class Input>
void bench_sdh(benchmark::State& state, int bins, int copies)
{
  guarded(state, [&] {
    auto const data = rotated<float>(sweep_n);
    auto const b    = sdh_bins(bins);
    device_scratch counts(sizeof(unsigned long long) * (b.size() + 1));
    gpu_timer timer;
    timer.run(state, [&](cudaStream_t s, long long it) {
      auto const pairs = twobody::self_pairs(pick(data, it));
      if constexpr (std::is_void_v<Input>) {
        twobody::histogram(pairs, twobody::squared_euclidean{}, b, counts.as<unsigned long long>(), s);
      } else {
        twobody::histogram<Input>(pairs, twobody::squared_euclidean{}, b, counts.as<unsigned long long>(),
                                  twobody::output::warp_privatized{copies}, s);
      }
    });
    set_counters(state, self_pair_count(sweep_n));
    state.counters["bins"] = bins;
    if (copies == 0) {
      auto const plan = twobody::plan_histogram(twobody::self_pairs(data[0]), twobody::squared_euclidean{}, b);
      state.counters["copies"]            = plan.copies;
      state.counters["points_per_thread"] = plan.input.points_per_thread;
      state.counters["shuffle"]           = plan.input.input == twobody::input::shuffle_tile<>::kind ? 1 : 0;
      state.counters["predicted_s"]       = plan.predicted_seconds;
      state.SetLabel(plan.to_string());
    } else {
      state.counters["copies"] = copies;
    }
  });
}

void register_sweep()
{
  std::size_t const optin = twobody::device_info::get().smem_per_block_optin;
  std::size_t const tile  = tile_smem<st8>();
  for (int bins : sweep_bins) {
    std::size_t const copy_bytes = sizeof(unsigned int) * (bins + 1);
    for (int h = 1; h <= 32; h *= 2) {
      if (copy_bytes * h + tile > optin) { continue; }  // does not fit: the explicit form would use fewer
      auto* b = benchmark::RegisterBenchmark(("sweep/bins:" + std::to_string(bins) + "/copies:" + std::to_string(h)).c_str(),
                                             [=](benchmark::State& s) { bench_sdh<st8>(s, bins, h); });
      b->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(3)->ReportAggregatesOnly(true);
    }
    auto* b = benchmark::RegisterBenchmark(("sweep/bins:" + std::to_string(bins) + "/model").c_str(),
                                           [=](benchmark::State& s) { bench_sdh<void>(s, bins, 0); });
    b->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(3)->ReportAggregatesOnly(true);
  }
}

// ---------------------------------------------------------------------------
// Calibration: median of 5 CUDA-event timings per composition, then the model inverted.
// ---------------------------------------------------------------------------
template <class Call>
double median_seconds(Call&& call)
{
  gpu_timer t;
  call(t.stream);
  EXAMPLE_CUDA_CHECK(cudaStreamSynchronize(t.stream));
  std::vector<double> v;
  for (int i = 0; i < 5; ++i) {
    EXAMPLE_CUDA_CHECK(cudaEventRecord(t.start, t.stream));
    call(t.stream);
    EXAMPLE_CUDA_CHECK(cudaEventRecord(t.stop, t.stream));
    EXAMPLE_CUDA_CHECK(cudaEventSynchronize(t.stop));
    float ms = 0;
    EXAMPLE_CUDA_CHECK(cudaEventElapsedTime(&ms, t.start, t.stop));
    v.push_back(ms * 1e-3);
  }
  std::sort(v.begin(), v.end());
  return v[2];
}

template <class Input>
double time_sdh(int bins, int copies, long long n = sweep_n)
{
  auto const p = twobody::self_pairs(device_data<float>(n, 0));
  auto const b = sdh_bins(bins);
  device_scratch counts(sizeof(unsigned long long) * (b.size() + 1));
  return median_seconds([&](cudaStream_t s) {
    twobody::histogram<Input>(p, twobody::squared_euclidean{}, b, counts.as<unsigned long long>(),
                              twobody::output::warp_privatized{copies}, s);
  });
}

template <class Input>
double time_count()
{
  auto const p = twobody::self_pairs(device_data<float>(sweep_n, 0));
  device_scratch result(sizeof(unsigned long long));
  std::size_t bytes = 0;
  twobody::count_pairs<Input>(nullptr, bytes, p, twobody::within_radius(radius), result.as<unsigned long long>());
  device_scratch temp(bytes);
  return median_seconds([&](cudaStream_t s) {
    twobody::count_pairs<Input>(temp.ptr, bytes, p, twobody::within_radius(radius), result.as<unsigned long long>(), s);
  });
}

/// The model's time for latency 1 (seconds per SM-pair) of this composition: measured time
/// over this factor is the latency (predicted_seconds is linear in it).
template <class Kernel, class Input>
double model_factor(int slots, int copies, double saturation, long long n = sweep_n)
{
  auto const& dev = twobody::device_info::get();
  twobody::problem p = twobody::problem::histogram_of(twobody::pair_mode::self, n, n, slots);
  long long const tile  = static_cast<long long>(Input::block_threads) * Input::points_per_thread;
  std::size_t const smem = copies == 0 ? 0 : static_cast<std::size_t>(slots) * 4 * copies;
  twobody::occupancy const occ = twobody::model::blocks_per_sm(dev, Kernel::resources(smem));
  twobody::privatization_constants const unit{1.0, 0.0, saturation};
  return twobody::model::predicted_seconds(twobody::model::tile_pairs(p, tile), tile * tile, occ, Input::block_threads,
                                           dev.sm_count, 1.0, unit);
}

template <class Input>
using sdh_kernel = twobody::detail::histogram_kernels<twobody::points<float, 3>, twobody::squared_euclidean,
                                                      twobody::distance_bins<float>, unsigned long long>::single<Input>;
template <class Input>
using count_kernel = twobody::detail::pair_kernel<
  Input,
  twobody::detail::reduction_agent<unsigned long long, cuda::std::plus<unsigned long long>, unsigned int, Input::block_threads>,
  twobody::points<float, 3>, twobody::within_radius_fn<float>>;

int calibrate()
{
  auto const& dev = twobody::device_info::get();
  std::printf("calibrating on %s (%d SMs), N = %lld\n", dev.name.c_str(), dev.sm_count, sweep_n);
  constexpr int slots256 = 257, slots4096 = 4097;
  // 1. C_L: 256 bins with 32 copies (one lane per copy: no conflicts), 2 blocks/SM (16 warps).
  double const sat0 = 1.0;  // at 16 resident warps the rate is taken as full (checked in step 3)
  double const t32  = time_sdh<st8>(256, 32);
  double const c_l  = t32 / model_factor<sdh_kernel<st8>, st8>(slots256, 32, sat0);
  // 2. C_LP: least squares over H = 16 .. 1 at 256 bins (same occupancy: the copies fit twice).
  double num = 0, den = 0;
  for (int h = 16; h >= 1; h /= 2) {
    double const t = time_sdh<st8>(256, h);
    double const extra = (t / t32 - 1.0) * c_l;  // latency above C_L
    twobody::privatization_constants const unit{0.0, 1.0, 1.0};
    double const g = twobody::model::privatized_latency(slots256, h, unit);
    std::printf("  256 bins, H = %2d: %.4f s (x%.4f of H = 32), conflict steps %.3f\n", h, t, t / t32, g);
    num += g * extra;
    den += g * g;
  }
  double const c_lp = num / den;
  // 3. Saturation: 4096 bins, H = 8 (131 KB: 1 block, 8 warps per SM) against H = 4 (2 blocks).
  twobody::privatization_constants const k{c_l, c_lp, 1.0};
  double const t4 = time_sdh<st8>(4096, 4), t8 = time_sdh<st8>(4096, 8);
  double const p4 = model_factor<sdh_kernel<st8>, st8>(slots4096, 4, sat0) * twobody::model::privatized_latency(slots4096, 4, k);
  double const p8 = model_factor<sdh_kernel<st8>, st8>(slots4096, 8, sat0) * twobody::model::privatized_latency(slots4096, 8, k);
  // p8 assumes the full rate; the measured ratio says which fraction one block reached.
  double const rate1   = std::min(1.0, (p8 / p4) / (t8 / t4));
  int const warps1     = twobody::model::blocks_per_sm(dev, sdh_kernel<st8>::resources(slots4096 * 4 * 8)).warps_per_sm(256);
  double const sat     = warps1 / rate1;
  std::printf("  4096 bins: H = 4 %.4f s, H = 8 %.4f s; %d warps/SM reach %.3f of the full rate\n", t4, t8, warps1, rate1);
  // 4. C_L of the other inputs (256 bins, 32 copies) and of the pair counts.
  double const c_l_st4 = time_sdh<st4>(256, 32) / model_factor<sdh_kernel<st4>, st4>(slots256, 32, sat);
  double const c_l_sh4 = time_sdh<sh4>(256, 32) / model_factor<sdh_kernel<sh4>, sh4>(slots256, 32, sat);
  double const r_st4   = time_count<st4>() / model_factor<count_kernel<st4>, st4>(1, 0, sat);
  double const r_st8   = time_count<st8>() / model_factor<count_kernel<st8>, st8>(1, 0, sat);
  // 5. Diagonal cost: at N = 2^16 there are only a few rounds, and the blocks that hold a
  //    diagonal tile pair set the time: t = (rounds - 1 + d) x round time.
  auto diagonal = [&](double t, double c, double factor, long long r) { return t * r / (c * factor) - r + 1.0; };
  long long const small = 1ll << 16;
  auto rounds_of = [&](long long tile, twobody::kernel_resources const& res) {
    twobody::problem p = twobody::problem::histogram_of(twobody::pair_mode::self, small, small, slots256);
    return twobody::model::rounds(twobody::model::tile_pairs(p, tile), twobody::model::blocks_per_sm(dev, res).blocks_per_sm,
                                  dev.sm_count);
  };
  double const d_st8 = diagonal(time_sdh<st8>(256, 32, small), c_l, model_factor<sdh_kernel<st8>, st8>(slots256, 32, sat, small),
                                rounds_of(2048, sdh_kernel<st8>::resources(slots256 * 4 * 32)));
  double const d_st4 = diagonal(time_sdh<st4>(256, 32, small), c_l_st4, model_factor<sdh_kernel<st4>, st4>(slots256, 32, sat, small),
                                rounds_of(1024, sdh_kernel<st4>::resources(slots256 * 4 * 32)));
  double const d_sh4 = diagonal(time_sdh<sh4>(256, 32, small), c_l_sh4, model_factor<sdh_kernel<sh4>, sh4>(slots256, 32, sat, small),
                                rounds_of(1024, sdh_kernel<sh4>::resources(slots256 * 4 * 32)));
  std::printf("\nH100 constants for model/policy.cuh (seconds per pair per SM; diagonal cost):\n");
  std::printf("  shared_tile<256, 8>:  {{%.4g, %.4g, %.3g}, %.4g, %.3g}\n", c_l, c_lp, sat, r_st8, d_st8);
  std::printf("  shared_tile<256, 4>:  {{%.4g, %.4g, %.3g}, %.4g, %.3g}\n", c_l_st4, c_lp, sat, r_st4, d_st4);
  std::printf("  shuffle_tile<256, 4>: {{%.4g, %.4g, %.3g}, -, %.3g}\n", c_l_sh4, c_lp, sat, d_sh4);
  std::printf("  C_LP / C_L = %.4f; regs: st8 %d, st4 %d, sh4 %d\n", c_lp / c_l, sdh_kernel<st8>::resources().regs_per_thread,
              sdh_kernel<st4>::resources().regs_per_thread, sdh_kernel<sh4>::resources().regs_per_thread);
  return 0;
}

}  // namespace

int main(int argc, char** argv)
{
  bool calib = false;
  int out    = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--calibrate") == 0) {
      calib = true;
    } else if (std::strncmp(argv[i], "--n=", 4) == 0) {
      sweep_n = std::atoll(argv[i] + 4);
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  if (!example::have_gpu()) {
    std::printf("no CUDA GPU: the cost-model benchmarks need one\n");
    return 0;
  }
  try {
    if (calib) { return calibrate(); }
    register_sweep();
  } catch (twobody::error const& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("gpu", gpu().name);
  benchmark::AddCustomContext("twobody_commit", std::getenv("TWOBODY_COMMIT") ? std::getenv("TWOBODY_COMMIT") : "unknown");
  benchmark::AddCustomContext("n", std::to_string(sweep_n));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
