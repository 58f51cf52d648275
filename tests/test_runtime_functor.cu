// Pair functors compiled at run time (runtime_program.cuh): compile errors, the kernel names
// NVRTC must accept, the disk cache and the CPU backend's refusal need no GPU; the statistics
// run on the GPU against the CPU backend with the same function compiled ahead of time.
#include "common.cuh"

#include <twobody/runtime_program.cuh>

#include <filesystem>

using namespace twobody;

namespace {

/// A fresh, empty cache directory per test (the disk cache is shared between processes).
std::string scratch_cache(std::string const& name)
{
  auto const dir = std::filesystem::temp_directory_path() / ("twobody-rtc-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

runtime_options options_in(std::string const& cache)
{
  runtime_options o;
  o.cache_dir = cache;
  return o;
}

/// The same function as the run-time source "return s * dist2(a, b) + t;", compiled ahead.
struct scaled_dist2 {
  float s, t;
  template <class T>
  __host__ __device__ T operator()(point<T, 3> const& a, point<T, 3> const& b) const
  {
    return static_cast<T>(s) * dist2(a, b) + static_cast<T>(t);
  }
};

/// The theta join predicate of the join test, compiled ahead.
struct theta_ahead {
  float w;
  __host__ __device__ bool operator()(point<float, 3> const& a, point<float, 3> const& b) const
  {
    return fabsf(a.x[0] - b.x[0]) <= w && a.x[1] < b.x[1];
  }
};

runtime_source scaled_dist2_source() { return {"float", "return s * dist2(a, b) + t;", {"s", "t"}, "scaled"}; }

template <class Input, class R>
using reduction_kernel = detail::pair_kernel<Input, detail::reduction_agent<R, cuda::std::plus<R>, R, Input::block_threads>,
                                             points<float, 3>, runtime_functor<float, float, 3>>;

}  // namespace

TEST(RuntimeFunctor, ACompileErrorShowsTheNumberedSourceAndTheCompilersMessage)
{
  runtime_program const prog({"float", "float d = dist2(a, b);\nreturn d * undefined_name;", {}, "broken"},
                             options_in(""));
  try {
    prog.check();
    FAIL() << "a source with an undefined name compiled";
  } catch (twobody::error const& e) {
    std::string const m = e.what();
    EXPECT_NE(m.find("'broken' does not compile"), std::string::npos) << m;
    EXPECT_NE(m.find("2 | return d * undefined_name;"), std::string::npos) << m;  // the source, numbered
    EXPECT_NE(m.find("broken(2): error"), std::string::npos) << m;                // the line of the error
    EXPECT_NE(m.find("undefined_name"), std::string::npos) << m;
  }
}

TEST(RuntimeFunctor, AGoodSourceCompilesForFloatAndDoubleWithoutAGpu)
{
  runtime_program const prog(scaled_dist2_source(), options_in(""));
  EXPECT_NO_THROW(prog.check("float", 3, 90));
  EXPECT_NO_THROW(prog.check("double", 2, 80));
  EXPECT_EQ(prog.compilations(), 2);
}

TEST(RuntimeFunctor, BadSourcesAndValuesAreRefusedWithAReason)
{
  auto refused = [](auto&& make, char const* words) {
    try {
      make();
      ADD_FAILURE() << "accepted; expected: " << words;
    } catch (twobody::error const& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused([] { runtime_program p({"std::string", "return 0;"}); }, "result type must be");
  refused([] { runtime_program p({"float", "return h;", {"2h"}}); }, "is not a C++ identifier");
  refused([] { runtime_program p({"float", "return a.x[0];", {"a"}}); }, "is taken");
  refused([] { runtime_program p({"float", "return 0;", std::vector<std::string>(17, "x")}); }, "at most 16");
  runtime_program const prog(scaled_dist2_source(), options_in(""));
  refused([&] { (void)prog.functor<bool, float, 3>({1.0, 0.0}); }, "the source returns float, not bool");
  refused([&] { (void)prog.functor<float, float, 3>({1.0}); }, "2 parameters, but 1 values");
  EXPECT_EQ(prog.compilations(), 0);  // all of them before any compilation
}

TEST(RuntimeFunctor, TheCpuBackendRefusesARuntimeFunctor)
{
  runtime_program prog(scaled_dist2_source(), options_in(""));
  auto const f = prog.functor<float, float, 3>({0.5, 0.0});
  tbt::host_points<float, 3> const h(64, 7);
  runtime_program::scope in_scope(prog);
  EXPECT_THROW((void)reduce_pairs(exec::cpu, self_pairs(h.view()), f, cuda::std::plus<double>{}, 0.0), twobody::error);
  EXPECT_THROW((void)sum_per_point(exec::cpu, ordered_pairs(h.view()), f), twobody::error);
  EXPECT_THROW((void)histogram(exec::cpu, self_pairs(h.view()), f, uniform_bins<float>(0.f, 64.f, 8)), twobody::error);
}

// The kernels a call asks for are named by their C++ types (demangled): NVRTC must accept those
// names. Checked here for every input of the one-call reduction, without a GPU.
TEST(RuntimeFunctor, TheEngineKernelsOfTheOneCallFormsCompileByName)
{
  runtime_program const prog(scaled_dist2_source(), options_in(scratch_cache("names")));
  std::vector<std::string> const names = {
    reduction_kernel<input::shared_tile<256, 4>, double>::request().kernel,
    reduction_kernel<input::shuffle_tile<256, 4>, double>::request().kernel,
    reduction_kernel<input::readonly_tile<256, 2>, float>::request().kernel,
    detail::pair_kernel<input::shared_tile<256, 4>,
                        detail::privatized_histogram_agent<uniform_bins<float>, unsigned long long,
                                                           detail::shared_counter_t<unsigned long long>, 256, detail::window_mode::none>,
                        points<float, 3>, runtime_functor<float, float, 3>>::request()
      .kernel,
  };
  EXPECT_NE(names[0].find("twobody::runtime_functor<float, float, 3>"), std::string::npos) << names[0];
  EXPECT_NO_THROW(prog.check("float", 3, 90, names));
}

TEST(RuntimeFunctor, TheDiskCacheServesASecondProgramWithTheSameSource)
{
  std::string const cache = scratch_cache("disk");
  std::vector<std::string> const names = {reduction_kernel<input::shared_tile<256, 4>, double>::request().kernel};
  runtime_program const first(scaled_dist2_source(), options_in(cache));
  first.check("float", 3, 90, names);
  EXPECT_EQ(first.compilations(), 1);
  runtime_program const second(scaled_dist2_source(), options_in(cache));
  second.check("float", 3, 90, names);
  EXPECT_EQ(second.compilations(), 0) << "the cached cubin was not used";
  runtime_source other = scaled_dist2_source();
  other.body           = "return s * dist2(a, b) - t;";
  runtime_program const third(other, options_in(cache));
  third.check("float", 3, 90, names);
  EXPECT_EQ(third.compilations(), 1) << "another source must not hit the first one's entry";
  std::filesystem::remove_all(cache);
}

// ---- on the GPU --------------------------------------------------------------------------

TEST(GpuRuntimeFunctor, SumsCountsHistogramsAndPerPointSumsEqualTheCompiledFunctor)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> const h(3000, 11, 16);  // integer coordinates in [0, 16): every sum below is exact
  tbt::device_points<float, 3> const d(h);
  auto const pairs    = self_pairs(d.view());
  auto const ordered  = ordered_pairs(d.view());
  auto const h_pairs  = self_pairs(h.view());
  std::string const cache = scratch_cache("gpu");

  runtime_program sum_prog(scaled_dist2_source(), options_in(cache));
  runtime_program near_prog({"bool", "return dist2(a, b) < r * r;", {"r"}, "near"}, options_in(cache));
  runtime_program dist_prog({"float", "return dist(a, b);", {}, "distance"}, options_in(cache));
  scaled_dist2 const ahead{0.5f, 0.25f};

  {
    runtime_program::scope in_scope(sum_prog);
    auto const f = sum_prog.functor<float, float, 3>({0.5, 0.25});
    double const gpu = reduce_pairs(exec::gpu, pairs, f, cuda::std::plus<double>{}, 0.0);
    EXPECT_EQ(gpu, cpu::reduce_pairs(h_pairs, ahead, cuda::std::plus<double>{}, 0.0));
    std::vector<float> const per = sum_per_point(exec::gpu, ordered, f);
    EXPECT_EQ(per, cpu::sum_per_point(ordered_pairs(h.view()), ahead));
  }
  {
    runtime_program::scope in_scope(near_prog);
    for (double r : {5.0, 20.0}) {
      auto const f = near_prog.functor<bool, float, 3>({r});
      EXPECT_EQ(count_pairs(exec::gpu, pairs, f), cpu::count_pairs(h_pairs, within_radius(static_cast<float>(r))))
        << "r = " << r;
    }
  }
  {
    runtime_program::scope in_scope(dist_prog);
    auto const f          = dist_prog.functor<float, float, 3>();
    uniform_bins<float> const bins(0.25f, 30.25f, 20);  // no edge (1 + 6k) / 4 is the root of an integer
    auto const gpu = histogram(exec::gpu, pairs, f, bins);
    auto const cpu = cpu::histogram(h_pairs, euclidean{}, bins);
    EXPECT_EQ(gpu.counts, cpu.counts);
    EXPECT_EQ(gpu.outside, cpu.outside);
  }
  EXPECT_GE(sum_prog.compilations() + near_prog.compilations() + dist_prog.compilations(), 1);
  std::filesystem::remove_all(cache);
}

TEST(GpuRuntimeFunctor, CrossPairsDoublesAndWeightsGoThroughTheSameKernels)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<double, 3> const ha(700, 3), hb(900, 4);
  tbt::device_points<double, 3> const da(ha), db(hb);
  runtime_program prog(scaled_dist2_source(), options_in(""));
  runtime_program::scope in_scope(prog);
  auto const f = prog.functor<float, double, 3>({0.5, 0.25});
  scaled_dist2 const ahead{0.5f, 0.25f};
  EXPECT_EQ(reduce_pairs(exec::gpu, cross_pairs(da.view(), db.view()), f, cuda::std::plus<double>{}, 0.0),
            cpu::reduce_pairs(cross_pairs(ha.view(), hb.view()), ahead, cuda::std::plus<double>{}, 0.0));
  EXPECT_EQ(reduce_pairs(exec::gpu, self_pairs(da.weighted_view()), f, cuda::std::plus<double>{}, 0.0),
            cpu::reduce_pairs(self_pairs(ha.weighted_view()), ahead, cuda::std::plus<double>{}, 0.0));
}

TEST(GpuRuntimeFunctor, JoinsOfARuntimePredicateEqualTheCpuJoin)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> const ha(1800, 21, 32), hb(1300, 22, 32);
  tbt::device_points<float, 3> const da(ha), db(hb);
  // A theta join: close in x, and a below b in y (not symmetric, so cross pairs matter).
  runtime_program prog({"bool", "return fabsf(a.x[0] - b.x[0]) <= w && a.x[1] < b.x[1];", {"w"}, "theta"},
                       options_in(""));
  auto const f = prog.functor<bool, float, 3>({1.0});
  theta_ahead const ahead{1.0f};
  auto sorted = [](std::vector<index_pair> v) {
    sort_by_index(v);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
    for (auto const& p : v) { out.emplace_back(p.i, p.j); }
    return out;
  };
  runtime_program::scope in_scope(prog);
  for (auto mode : {pair_mode::self, pair_mode::cross}) {
    auto const dev  = tbt::make_pairs(mode, da.view(), db.view());
    auto const host = tbt::make_pairs(mode, ha.view(), hb.view());
    auto const want = sorted(cpu::join(host, ahead));
    ASSERT_GT(want.size(), 1000u);
    join_options opt;
    opt.pool_records = 4096;  // several rounds of the one-pass output
    EXPECT_EQ(sorted(join(exec::gpu, dev, f, opt).to_host()), want) << "one pass, mode " << to_string(mode);
    EXPECT_EQ(sorted(join<default_input, output::two_pass>(exec::gpu, dev, f).to_host()), want)
      << "two passes, mode " << to_string(mode);
  }
  EXPECT_THROW((void)cpu::join(tbt::make_pairs(pair_mode::self, ha.view(), ha.view()), f), twobody::error);
}

TEST(GpuRuntimeFunctor, WithoutItsProgramInScopeTheCallThrows)
{
  TBT_REQUIRE_GPU();
  tbt::host_points<float, 3> const h(100, 5);
  runtime_program prog(scaled_dist2_source(), options_in(""));
  runtime_program other({"float", "return dist(a, b);"}, options_in(""));
  auto const f = prog.functor<float, float, 3>({1.0, 0.0});
  EXPECT_THROW((void)reduce_pairs(exec::gpu, self_pairs(h.view()), f, cuda::std::plus<double>{}, 0.0), twobody::error);
  runtime_program::scope wrong(other);
  EXPECT_THROW((void)reduce_pairs(exec::gpu, self_pairs(h.view()), f, cuda::std::plus<double>{}, 0.0), twobody::error);
}
