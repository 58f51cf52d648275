// twobody.Functor: pair functions written as CUDA C++ source, compiled at run time (NVRTC,
// twobody/runtime_program.cuh), and the statistics that take them: sums over pairs or per
// point, counts and joins (bool functors) and histograms of the functor's value. GPU only.
#include "statistics.cuh"

#include <twobody/runtime_program.cuh>

namespace twobody_py {
namespace {

using twobody::runtime_program;

/// The include directories of the run-time compiler: the package's copy of the library headers
/// where the package gives one, then the CUDA headers of `cuda_root` where the package found the
/// NVIDIA wheels (nvidia/cu13), else the CUDA toolkit's (default_runtime_include_dirs: found at
/// run time, else the toolkit the extension was built with, TWOBODY_CUDA_ROOT).
std::vector<std::string> include_dirs_with(std::string const& library, std::string const& cuda_root)
{
  std::vector<std::string> dirs = twobody::default_runtime_include_dirs();
  if (!library.empty()) { dirs.front() = library; }
  if (!cuda_root.empty()) { dirs = {dirs.front(), cuda_root + "/include/cccl", cuda_root + "/include"}; }
  return dirs;
}

/// TypeError unless the statistic `what` takes the functor's result type (bool for predicates,
/// float or double for values).
void require_result(runtime_program const& prog, bool predicate, char const* what)
{
  std::string const& r = prog.source().result;
  bool const ok        = predicate ? r == "bool" : (r == "float" || r == "double");
  if (!ok) {
    throw nb::type_error(("twobody: " + std::string(what) + " takes a Functor that returns " +
                          (predicate ? "bool" : "float or double") + ", not " + r)
                           .c_str());
  }
}

/// The GPU policy of a functor call: a Functor has no host code.
twobody::execution_policy gpu_policy(std::string const& backend, std::uintptr_t stream)
{
  if (backend == "cpu") { throw nb::value_error("twobody: a Functor runs on the GPU only (backend='cpu' cannot run it)"); }
  if (!gpu_usable()) {
    throw twobody::error("twobody: a Functor runs on the GPU only, and this process has no usable CUDA GPU (" +
                         twobody::detail::current_gpu_status().reason + ")");
  }
  return policy_of("gpu", stream);
}

/// One statistic of a Functor: checks what every form checks, then runs
/// stat(exec, f, sets) for the functor's R (bool for Predicate, else float or double),
/// the points' T and, where `Weights` and weights are given, weighted sets, with the interpreter
/// unlocked and the program in scope; out(result) makes it a Python object (the GIL held).
template <bool Predicate, bool Weights, class Stat, class Out>
nb::object run_functor(char const* what, runtime_program& prog, std::vector<double> const& values, array const& a,
                       std::optional<array> const& b, std::optional<array> const& wa, std::optional<array> const& wb,
                       std::string const& backend, std::uintptr_t stream, Stat&& stat, Out&& out)
{
  (void)dims_of(a, b);
  require_result(prog, Predicate, what);
  if (!Weights && wa) { throw nb::value_error(("twobody: " + std::string(what) + " with a Functor takes no weights").c_str()); }
  if (b.has_value() && wa.has_value() != wb.has_value()) {
    throw nb::value_error("twobody: give weights for both point sets or for neither");
  }
  auto const exec = gpu_policy(backend, stream);
  device_scope scope(device_of(a));
  auto with_result = [&](auto r) -> nb::object {
    using R = decltype(r);
    return with_value_type(a, [&](auto t) -> nb::object {
      using T      = decltype(t);
      auto const f = prog.functor<R, T, dims>(values);
      auto run     = [&](auto weighted) -> nb::object {
        constexpr bool W = decltype(weighted)::value;
        return out(without_gil([&] {
          runtime_program::scope in_scope(prog);
          point_sets<T, W> const sets(a, b, wa, wb, exec.stream);
          return stat(exec, f, sets);
        }));
      };
      if constexpr (Weights) {
        if (wa) { return run(std::true_type{}); }
      }
      return run(std::false_type{});
    });
  };
  if constexpr (Predicate) {
    return with_result(bool{});
  } else {
    if (prog.source().result == "float") { return with_result(float{}); }
    return with_result(double{});
  }
}

auto const to_object = [](auto v) { return nb::cast(v); };

nb::object functor_sum(runtime_program& prog, std::vector<double> const& values, array const& a,
                       std::optional<array> const& b, std::optional<array> const& wa, std::optional<array> const& wb,
                       bool per_point, std::string const& backend, std::uintptr_t stream)
{
  if (per_point) {
    return run_functor<false, false>(
      "pair_sum(per_point=True)", prog, values, a, b, wa, wb, backend, stream,
      [](auto const& exec, auto const& f, auto const& sets) { return twobody::sum_per_point(exec, sets.partners(), f); },
      [](auto v) { return nb::cast(to_numpy(std::move(v))); });
  }
  return run_functor<false, true>(
    "pair_sum", prog, values, a, b, wa, wb, backend, stream,
    [](auto const& exec, auto const& f, auto const& sets) {
      return twobody::reduce_pairs(exec, sets.pairs(), f, cuda::std::plus<double>{}, 0.0);
    },
    to_object);
}

nb::object functor_count(runtime_program& prog, std::vector<double> const& values, array const& a,
                         std::optional<array> const& b, std::optional<array> const& wa, std::optional<array> const& wb,
                         std::string const& backend, std::uintptr_t stream)
{
  return run_functor<true, true>(
    "count_pairs", prog, values, a, b, wa, wb, backend, stream,
    [](auto const& exec, auto const& f, auto const& sets) { return twobody::count_pairs(exec, sets.pairs(), f); },
    to_object);
}

nb::object functor_histogram(runtime_program& prog, std::vector<double> const& values, array const& a,
                             std::optional<array> const& b, std::optional<array> const& wa,
                             std::optional<array> const& wb, double lo, double hi, int bins, std::string const& scale,
                             std::string const& backend, std::uintptr_t stream)
{
  if (scale != "linear" && scale != "log") { throw nb::value_error("twobody: scale must be 'linear' or 'log'"); }
  if (bins < 1) { throw nb::value_error("twobody: need at least one bin"); }
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi)) {
    throw nb::value_error("twobody: the bin range must be finite with lo < hi");
  }
  if (scale == "log" && !(lo > 0.0)) { throw nb::value_error("twobody: log bins need lo > 0"); }
  return run_functor<false, true>(
    "histogram", prog, values, a, b, wa, wb, backend, stream,
    [&](auto const& exec, auto const& f, auto const& sets) {
      using R = typename std::decay_t<decltype(f)>::result_type;  // the bins compare the functor's values
      if (scale == "log") {
        return twobody::histogram(exec, sets.pairs(), f, twobody::log_bins<R>(static_cast<R>(lo), static_cast<R>(hi), bins));
      }
      return twobody::histogram(exec, sets.pairs(), f, twobody::uniform_bins<R>(static_cast<R>(lo), static_cast<R>(hi), bins));
    },
    [](auto h) { return nb::object(nb::make_tuple(to_numpy(std::move(h.counts)), h.outside, h.pairs)); });
}

nb::object functor_join(runtime_program& prog, std::vector<double> const& values, array const& a,
                        std::optional<array> const& b, bool sort, std::string const& backend, std::uintptr_t stream)
{
  int const device = device_of(a);
  return run_functor<true, false>(
    "pairs_within", prog, values, a, b, std::nullopt, std::nullopt, backend, stream,
    [&](auto const& exec, auto const& f, auto const& sets) {
      twobody::join_options opt;
      opt.location = device >= 0 ? twobody::result_location::device : twobody::result_location::host;
      auto r       = twobody::join(exec, sets.pairs(), f, opt);
      if (sort) { twobody::sort_by_index(r, exec.stream); }
      return r;
    },
    [&](auto r) { return index_pairs_to_python(std::move(r), device); });
}

}  // namespace

void bind_functors(nb::module_& m)
{
  nb::class_<runtime_program>(m, "Program", "A run-time compiled pair functor's program. Use twobody.Functor.")
    .def(
      "__init__",
      [](runtime_program* self, std::string const& result, std::string const& body, std::vector<std::string> const& params,
         std::string const& name, std::string const& preamble, std::string const& library_include, std::string const& cache_dir,
         std::string const& cuda_root) {
        twobody::runtime_options o;
        o.include_dirs = include_dirs_with(library_include, cuda_root);
        o.cache_dir    = cache_dir;
        new (self) runtime_program(twobody::runtime_source{result, body, params, name, preamble}, o);
      },
      "result"_a, "body"_a, "params"_a, "name"_a, "preamble"_a, "library_include"_a, "cache_dir"_a, "cuda_root"_a = "")
    .def(
      "check",
      [](runtime_program const& p, std::string const& value_type, int dims, int arch) {
        nb::gil_scoped_release unlocked;
        p.check(value_type, dims, arch);
      },
      "value_type"_a, "dims"_a, "arch"_a, "Compiles the functor alone (no GPU needed); raises twobody.Error if it does not compile.")
    .def_prop_ro("compilations", &runtime_program::compilations, "NVRTC runs so far (disk-cache hits are not runs).")
    .def_prop_ro("include_dirs", [](runtime_program const& p) { return p.options().include_dirs; })
    .def_prop_ro("cache_dir", [](runtime_program const& p) { return p.options().cache_dir; })
    .def("source_text", &runtime_program::program_text, "value_type"_a, "dims"_a,
         "The C++ source NVRTC compiles for these points.");
  m.def("functor_sum", &functor_sum, "program"_a, "values"_a, "points"_a, "points_b"_a.none(), "weights"_a.none(),
        "weights_b"_a.none(), "per_point"_a, "backend"_a, "stream"_a, "Use twobody.pair_sum.");
  m.def("functor_count", &functor_count, "program"_a, "values"_a, "points"_a, "points_b"_a.none(), "weights"_a.none(),
        "weights_b"_a.none(), "backend"_a, "stream"_a, "Use twobody.count_pairs(functor=...).");
  m.def("functor_histogram", &functor_histogram, "program"_a, "values"_a, "points"_a, "points_b"_a.none(),
        "weights"_a.none(), "weights_b"_a.none(), "lo"_a, "hi"_a, "bins"_a, "scale"_a, "backend"_a, "stream"_a,
        "Use twobody.histogram(metric=Functor).");
  m.def("functor_join", &functor_join, "program"_a, "values"_a, "points"_a, "points_b"_a.none(), "sort"_a, "backend"_a,
        "stream"_a, "Use twobody.pairs_within(functor=...).");
}

}  // namespace twobody_py
