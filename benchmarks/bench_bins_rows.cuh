// What the four files of bench_bins share (bench_bins.cu: the sdh rows and main;
// bench_bins_rp_pi.cu, bench_bins_functors.cu (sdh_ieee) and bench_bins_periodic.cu (rdf,
// rdf_ieee): the other problems' rows): the problems, the timed call of each path, the flags and
// the registration of a problem's rows. One problem's rows compile its kernels for every path
// (the one-call plans, clusters, spills, ordered passes over five tile shapes): four files so
// that none compiles them for every problem.
#pragma once

//   scripts/lib/bins_table.py bins.json   (the table and the plot of rate against bins)
#include "bench_common.cuh"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace bins_bench {
using namespace bench;

inline long long n_points = 1ll << 20;
inline int reps = 5;
inline bool explore = false;  // every cluster size and copies (a slow, wide sweep for calibration)

using st4 = twobody::input::shared_tile<256, 4>;
using st8 = twobody::input::shared_tile<256, 8>;
using st2 = twobody::input::shared_tile<256, 2>;
using sh4 = twobody::input::shuffle_tile<256, 4>;
using w2  = twobody::input::shared_tile<512, 2>;  // ordered passes: 16 warps in the one block per SM
using w4  = twobody::input::shared_tile<512, 4>;

inline std::vector<int> const sdh_sweep{4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576};
inline std::vector<int> const rp_pi_sides{16, 64, 128, 256, 512, 1024};

struct sdh_problem {
  static constexpr char const* name = "sdh";
  twobody::squared_euclidean f{};
  twobody::distance_bins<float> bins;
  explicit sdh_problem(int b) : bins(sdh_range, b) {}
};

struct rp_pi_problem {
  static constexpr char const* name = "rp_pi";
  twobody::rp_pi_separation f{};
  twobody::bins_2d<twobody::uniform_bins<float>, twobody::uniform_bins<float>> bins;
  explicit rp_pi_problem(int side) : bins{{0.f, 100.f, side}, {0.f, 100.f, side}} {}
};

// The functors whose relative_cost the cost model takes (docs/maintainers/cost-model.md), at a few bin
// counts: their one-pass rate against the SDH's at 4096 bins is that cost.
struct sdh_ieee_problem {
  static constexpr char const* name = "sdh_ieee";
  twobody::euclidean f{};
  twobody::uniform_bins<float> bins;
  explicit sdh_ieee_problem(int b) : bins(0.f, sdh_range, b) {}
};

struct rdf_problem {
  static constexpr char const* name = "rdf";
  twobody::periodic_squared_euclidean<float, 3> f = twobody::make_periodic_squared_euclidean(box_side, box_side, box_side);
  twobody::distance_bins<float> bins;
  explicit rdf_problem(int b) : bins(rdf_range, b) {}
};

struct rdf_ieee_problem {
  static constexpr char const* name = "rdf_ieee";
  twobody::periodic_euclidean<float, 3> f = twobody::make_periodic_euclidean(box_side, box_side, box_side);
  twobody::uniform_bins<float> bins;
  explicit rdf_ieee_problem(int b) : bins(0.f, rdf_range, b) {}
};
inline std::vector<int> const functor_sweep{4096, 65536, 262144};

enum class path { one_call, whole_call, no_clusters, global_atomics, cluster, passes, spill, ordered_passes };

/// One timed call per iteration; `reps` iterations after a warm-up, reported as one median.
/// `cluster` is the cluster size for path::cluster, the number of passes for path::passes, and for
/// path::ordered_passes the number of passes (0: the fewest) over windows of the most slots that fit
/// with `copies` copies (0: 1) and `blocks` blocks per SM.
template <class Problem, class Input = sh4>
void bench_bins(benchmark::State& state, Problem prob, path which, int cluster = 0, int copies = 0, int blocks = 1)
{
  guarded(state, [&] {
    auto const data = rotated<float>(n_points);
    std::size_t const slots = static_cast<std::size_t>(prob.bins.size()) + 1;
    device_scratch counts(sizeof(unsigned long long) * slots);
    auto const pairs0 = twobody::self_pairs(data[0]);
    twobody::policy_plan plan;
    if (which == path::one_call || which == path::whole_call) {
      plan = twobody::plan_histogram(pairs0, prob.f, prob.bins);
    } else if (which == path::no_clusters) {
      setenv("TWOBODY_POLICY", "cluster=0", 1);
      plan = twobody::plan_histogram(pairs0, prob.f, prob.bins);
      unsetenv("TWOBODY_POLICY");
    } else if (which == path::cluster) {
      using kernel = twobody::detail::cluster_kernel<Input, twobody::points<float, 3>, decltype(prob.f),
                                                     decltype(prob.bins), unsigned long long>;
      plan = twobody::model::choose_cluster_layout(twobody::detail::histogram_problem<unsigned int, decltype(prob.f)>(pairs0, static_cast<int>(slots)),
                                                   twobody::device_info::get(),
                                                   twobody::detail::candidate_of<Input, kernel>(twobody::output::cluster_privatized::kind), cluster, copies);
    }
    twobody::detail::privatized_plan windows;  // path::passes: one copy in `cluster` equal windows; path::spill
    double spilled_share = 0.0, spilled_slots = 0.0;
    if (which == path::spill) {
      using kernel = twobody::detail::privatized_kernel<Input, twobody::points<float, 3>, decltype(prob.f), decltype(prob.bins),
                                                        unsigned long long, twobody::detail::window_mode::spill>;
      int const window = static_cast<int>(twobody::detail::window_slots(4, kernel::dynamic_smem_limit()));
      if (window >= static_cast<int>(slots)) { state.SkipWithError("the bins fit in shared memory"); return; }
      auto const w  = twobody::detail::densest_window(twobody::detail::sample_slot_counts(pairs0, prob.f, prob.bins, 0), window);
      windows       = twobody::detail::plan_spill(static_cast<int>(slots), w.begin, window, 4);
      spilled_share = w.spilled_share;
      spilled_slots = w.spilled_slots;
    }
    using F            = std::decay_t<decltype(prob.f)>;
    using Bins         = std::decay_t<decltype(prob.bins)>;
    constexpr bool has_forms = twobody::detail::passes_gain_v<F, Bins>;  // (tile bounds of the slots)
    double ordered_predicted = 0.0;
    twobody::detail::pass_visits visits{};
    if (which == path::ordered_passes) {
      using kernel = twobody::detail::privatized_kernel<Input, twobody::points<float, 3>, twobody::detail::tile_formed<F>, Bins,
                                                        unsigned long long, twobody::detail::window_mode::passes>;
      if constexpr (has_forms) {
        // The layout and predicted time of model::choose_ordered_passes for these passes.
        twobody::problem const p = twobody::detail::histogram_problem<unsigned, F>(pairs0, static_cast<int>(slots));
        twobody::input_candidate const c = twobody::detail::candidate_of<Input, kernel>(twobody::output::warp_privatized::kind);
        windows        = twobody::model::ordered_passes_layout(p, twobody::device_info::get(), c, std::max(1, copies), blocks);
        windows.passes = std::max(windows.passes, cluster);
        auto const sample = twobody::detail::ordered_passes_sample(pairs0, prob.f, prob.bins, c, 0);
        visits = twobody::detail::ordered_passes_visits<F>(sample, twobody::detail::pass_windows{static_cast<int>(slots), windows.window, windows.passes});
        ordered_predicted = twobody::model::ordered_passes_seconds(p, twobody::device_info::get(), c, windows, visits);
      }
      if (!has_forms || windows.passes <= 1) { state.SkipWithError("no tile forms, or the bins fit in shared memory"); return; }
    }
    // Points ordered into the input's tiles (tile_order.cuh) and the passes over spread windows,
    // which visit only the tile pairs whose slots they count; the order is part of the call.
    auto ordered_passes = [&](twobody::pair_set<twobody::points<float, 3>> const& pairs, cudaStream_t s) {
      if constexpr (has_forms) {
        int const sub_tiles = twobody::detail::ordered_sub_tiles<Input, F>(windows.passes);
        twobody::detail::tile_ordered_pairs<twobody::points<float, 3>> const o(pairs, twobody::detail::tile_points_v<Input>, sub_tiles, s);
        twobody::detail::launch_privatized<Input>(o.pairs(), twobody::detail::tile_formed<F>(prob.f), prob.bins,
                                                  counts.as<unsigned long long>(), windows, s, twobody::detail::result_mirror<unsigned long long>{},
                                                  o.boxes_a(), o.boxes_b(), o.sub_tiles());
      }
    };
    if (which == path::passes) {
      int const per = static_cast<int>((slots + cluster - 1) / cluster);
      windows       = twobody::detail::plan_privatized(static_cast<int>(slots), 1, 4, static_cast<std::size_t>(per) * 4);
      using kernel  = twobody::detail::privatized_kernel<Input, twobody::points<float, 3>, decltype(prob.f),
                                                        decltype(prob.bins), unsigned long long, twobody::detail::window_mode::passes>;
      if (windows.smem > kernel::dynamic_smem_limit()) { state.SkipWithError("window past shared memory"); return; }
    }
    auto call = [&](cudaStream_t s, long long it) {
      auto const pairs = twobody::self_pairs(data[static_cast<std::size_t>(it) % data.size()]);
      switch (which) {
        case path::spill:
          twobody::detail::launch_spilling<Input>(twobody::detail::staged_pairs<twobody::points<float, 3>>(pairs, s).pairs(),
                                                prob.f, prob.bins, counts.as<unsigned long long>(), windows, s);
          break;
        case path::ordered_passes: ordered_passes(pairs, s); break;
        case path::passes:
          twobody::detail::launch_privatized<Input>(twobody::detail::staged_pairs<twobody::points<float, 3>>(pairs, s).pairs(),
                                                    prob.f, prob.bins, counts.as<unsigned long long>(), windows, s);
          break;
        case path::whole_call:  // planning included (past shared memory: a sample of the data)
          twobody::histogram(pairs, prob.f, prob.bins, counts.as<unsigned long long>(), s);
          break;
        case path::one_call:
        case path::no_clusters:
          twobody::detail::run_planned_histogram(pairs, prob.f, prob.bins, counts.as<unsigned long long>(), plan, s);
          break;
        case path::global_atomics:
          twobody::histogram<st4>(pairs, prob.f, prob.bins, counts.as<unsigned long long>(), twobody::output::global_atomics{}, s);
          break;
        case path::cluster:
          twobody::histogram<Input>(pairs, prob.f, prob.bins, counts.as<unsigned long long>(),
                                    twobody::output::cluster_privatized{cluster, copies}, s);
          break;
      }
    };
    gpu_timer t;
    {  // warm-up on a prefix (module load, kernel attributes), not a full call: some paths take seconds
      auto const pairs = twobody::self_pairs(data[0]);
      auto prefix      = pairs;
      prefix.a.size = prefix.b.size = std::min<long long>(pairs.a.size, 8192);
      if (which == path::ordered_passes) {
        ordered_passes(prefix, t.stream);
      } else if (which == path::passes) {
        twobody::detail::launch_privatized<Input>(prefix, prob.f, prob.bins, counts.as<unsigned long long>(), windows, t.stream);
      } else if (which == path::spill) {
        twobody::detail::launch_spilling<Input>(prefix, prob.f, prob.bins, counts.as<unsigned long long>(), windows, t.stream);
      } else if (which == path::cluster) {
        twobody::histogram<Input>(prefix, prob.f, prob.bins, counts.as<unsigned long long>(),
                                  twobody::output::cluster_privatized{cluster, copies}, t.stream);
      } else if (which == path::global_atomics) {
        twobody::histogram<st4>(prefix, prob.f, prob.bins, counts.as<unsigned long long>(), twobody::output::global_atomics{},
                                t.stream);
      } else {
        twobody::detail::run_planned_histogram(prefix, prob.f, prob.bins, counts.as<unsigned long long>(), plan, t.stream);
      }
      EXAMPLE_CUDA_CHECK(cudaStreamSynchronize(t.stream));
    }
    std::vector<double> times;
    for (auto _ : state) {
      // `reps` timed calls, fewer where one call is slow (3 past 2 s, 1 past 10 s); their median.
      for (long long it = 0; it < reps; ++it) {
        EXAMPLE_CUDA_CHECK(cudaEventRecord(t.start, t.stream));
        call(t.stream, it);
        EXAMPLE_CUDA_CHECK(cudaEventRecord(t.stop, t.stream));
        EXAMPLE_CUDA_CHECK(cudaEventSynchronize(t.stop));
        float ms = 0.f;
        EXAMPLE_CUDA_CHECK(cudaEventElapsedTime(&ms, t.start, t.stop));
        times.push_back(double(ms) * 1e-3);
        if ((times[0] > 10.0) || (times[0] > 2.0 && times.size() >= 3)) { break; }
      }
      std::vector<double> sorted = times;
      std::sort(sorted.begin(), sorted.end());
      state.SetIterationTime(sorted[sorted.size() / 2]);
    }
    state.counters["timed_calls"] = static_cast<double>(times.size());
    set_counters(state, self_pair_count(n_points));
    state.counters["bins"] = static_cast<double>(prob.bins.size());
    if (which == path::passes || which == path::spill || which == path::ordered_passes) {
      state.counters["passes"] = windows.passes;
      state.counters["copies"] = windows.copies;
      state.counters["window"] = windows.window;
      if (which == path::ordered_passes) {
        state.counters["predicted_s"] = ordered_predicted;
        state.counters["whole"]       = visits.whole;
        state.counters["partial"]     = visits.partial;
        state.counters["staged"]      = visits.staged;
      }
      if (which == path::spill) {
        state.counters["spilled_share"] = spilled_share;
        state.counters["spilled_slots"] = spilled_slots;
        state.counters["window_begin"]  = windows.window_begin;
        state.counters["window"]        = windows.window;
      }
    } else if (which != path::global_atomics) {
      state.counters["predicted_s"] = plan.predicted_seconds;
      state.counters["cluster"]     = plan.cluster;
      state.counters["copies"]      = plan.copies;
      state.counters["passes"]      = plan.passes;
      state.SetLabel(plan.to_string());
    }
  });
}

template <class Fn>
void add(std::string const& name, Fn&& fn)
{
  auto* b = benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn));
  b->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
}

template <class Problem>
void register_problem(std::string const& prefix, int arg)
{
  Problem const prob(arg);
  std::string const base = std::string(Problem::name) + "/bins:" + std::to_string(prob.bins.size());
  add(base + "/one_call", [=](benchmark::State& s) { bench_bins(s, prob, path::one_call); });
  add(base + "/whole_call", [=](benchmark::State& s) { bench_bins(s, prob, path::whole_call); });
  add(base + "/no_clusters", [=](benchmark::State& s) { bench_bins(s, prob, path::no_clusters); });
  add(base + "/global_atomics", [=](benchmark::State& s) { bench_bins(s, prob, path::global_atomics); });
  if (prob.bins.size() >= 65536) {
    add(base + "/spill", [=](benchmark::State& s) { bench_bins<Problem, st4>(s, prob, path::spill); });
    add(base + "/spill_st8", [=](benchmark::State& s) { bench_bins<Problem, st8>(s, prob, path::spill); });
    if constexpr (twobody::detail::passes_gain_v<std::decay_t<decltype(prob.f)>, std::decay_t<decltype(prob.bins)>>) {
      // Ordered points, passes over spread windows (the fewest passes, and more for more overlap).
      // P passes (0: the fewest), H copies, B blocks per SM.
      for (std::array<int, 3> const& shape : {std::array{0, 1, 1}, std::array{5, 2, 1}, std::array{5, 1, 2}, std::array{6, 1, 2},
                                              std::array{5, 1, 1}, std::array{12, 1, 1}, std::array{20, 1, 1}, std::array{32, 1, 1}}) {
        int const passes = shape[0], h = shape[1], blocks = shape[2];
        std::string const name = base + "/ordered_passes" + (passes > 0 ? ":P" + std::to_string(passes) : std::string()) +
                                 (h > 1 ? ":H" + std::to_string(h) : std::string()) + (blocks > 1 ? ":B" + std::to_string(blocks) : std::string());
        add(name + "/st4", [=](benchmark::State& s) { bench_bins<Problem, st4>(s, prob, path::ordered_passes, passes, h, blocks); });
        add(name + "/st8", [=](benchmark::State& s) { bench_bins<Problem, st8>(s, prob, path::ordered_passes, passes, h, blocks); });
        if (blocks == 1) {
          add(name + "/w2", [=](benchmark::State& s) { bench_bins<Problem, w2>(s, prob, path::ordered_passes, passes, h, blocks); });
          add(name + "/w4", [=](benchmark::State& s) { bench_bins<Problem, w4>(s, prob, path::ordered_passes, passes, h, blocks); });
        }
        if (passes == 0 && h == 1 && blocks == 1 && prob.bins.size() >= 262144) {  // 512-point tiles: narrower slot ranges
          add(name + "/st2", [=](benchmark::State& s) { bench_bins<Problem, st2>(s, prob, path::ordered_passes, passes, h, blocks); });
        }
      }
    }
  }
  if (!explore) { return; }
  for (int passes : {2, 3, 4, 6, 8, 12, 16, 24, 32}) {
    if (static_cast<long long>(prob.bins.size()) + 1 > 56000LL * passes) { continue; }  // windows past shared memory
    std::string const name = base + "/passes:" + std::to_string(passes);
    add(name + "/shared_tile8", [=](benchmark::State& s) {
      bench_bins<Problem, twobody::input::shared_tile<256, 8>>(s, prob, path::passes, passes);
    });
    add(name + "/shuffle_tile", [=](benchmark::State& s) { bench_bins<Problem, sh4>(s, prob, path::passes, passes); });
  }
  for (int c : {1, 2, 4, 8, 16}) {
    for (int h : {1, 4}) {
      if (prob.bins.size() > 4096 && (h != 1 || c > 4)) { continue; }  // slow: 1 to 16 s a call at 4096 bins
      std::string const name = base + "/cluster:" + std::to_string(c) + "/copies:" + std::to_string(h);
      add(name + "/shuffle_tile", [=](benchmark::State& s) { bench_bins<Problem, sh4>(s, prob, path::cluster, c, h); });
      if (h == 1) {
        add(name + "/shared_tile", [=](benchmark::State& s) { bench_bins<Problem, st4>(s, prob, path::cluster, c, h); });
      }
    }
  }
  (void)prefix;
}

// The rows of the other files, each called at its place in main's order.
void register_rp_pi_problem(int side);     ///< rp_pi, side x side bins (bench_bins_rp_pi.cu)
void register_sdh_ieee_problem(int bins);  ///< sdh_ieee (bench_bins_functors.cu)
void register_periodic_problems(int bins); ///< rdf and rdf_ieee (bench_bins_periodic.cu)

}  // namespace bins_bench
