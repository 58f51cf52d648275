// histogram: distances (linear or log bins, open or periodic box), (r_p, pi) and angles, plain
// or weighted. Returns (counts, outside, pairs); the package adds the bin edges.
#include "histogram_run.cuh"

namespace twobody_py {

// Instantiated in histograms_*.cu.
extern TWOBODY_PY_HISTOGRAM(float, false);
extern TWOBODY_PY_HISTOGRAM(float, true);
extern TWOBODY_PY_HISTOGRAM(double, false);
extern TWOBODY_PY_HISTOGRAM(double, true);
extern TWOBODY_PY_PLAN(float);
extern TWOBODY_PY_PLAN(double);
extern TWOBODY_PY_OUT_OF_CORE(float);
extern TWOBODY_PY_OUT_OF_CORE(double);

namespace {

template <class Count>
nb::tuple to_python(histogram_out<Count> r)
{
  return nb::make_tuple(to_numpy(std::move(r.counts)), r.outside, r.pairs);
}

nb::tuple histogram(array const& a, std::optional<array> const& b, std::string const& kind, std::string const& scale,
                    bool exact, double lo, double hi, int bins, double hi_y, int bins_y,
                    std::optional<std::vector<double>> const& box, std::optional<array> const& wa,
                    std::optional<array> const& wb, std::string const& search, std::string const& backend,
                    std::uintptr_t stream)
{
  int const d = dims_of(a, b);
  if (kind != "distance" && kind != "sqdistance" && kind != "rp_pi" && kind != "angular") {
    throw nb::value_error("twobody: kind must be 'distance', 'sqdistance', 'rp_pi' or 'angular'");
  }
  if (kind == "sqdistance" && (scale != "linear" || box)) {
    throw nb::value_error("twobody: squared-distance histograms take linear bins in an open box (for log bins "
                          "use metric='euclidean' with scale='log'; for a periodic box, metric='euclidean')");
  }
  if (scale != "linear" && scale != "log") { throw nb::value_error("twobody: scale must be 'linear' or 'log'"); }
  if (bins < 1 || (kind == "rp_pi" && bins_y < 1)) { throw nb::value_error("twobody: need at least one bin"); }
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi) || (kind == "rp_pi" && !(hi_y > 0.0 && std::isfinite(hi_y)))) {
    throw nb::value_error("twobody: the bin range must be finite with lo < hi");
  }
  if (scale == "log" && !(lo > 0.0)) { throw nb::value_error("twobody: log bins need lo > 0"); }
  if ((kind == "rp_pi" || kind == "angular") && d != dims) {
    throw nb::value_error("twobody: (r_p, pi) and angular histograms need 3 coordinates per point");
  }
  if (box && kind != "distance") { throw nb::value_error("twobody: a periodic box applies to distance histograms only"); }
  if (box && wa) { throw nb::value_error("twobody: weights with a periodic box are not supported by the Python package"); }
  if (b.has_value() && wa.has_value() != wb.has_value()) {
    throw nb::value_error("twobody: give weights for both point sets or for neither");
  }
  histogram_args const h{kind, scale, exact, lo, hi, bins, hi_y, bins_y, box, search_of(search)};
  if (h.search == twobody::pair_search::grid && (kind != "distance" || scale != "linear" || lo != 0.0 || exact || wa)) {
    throw nb::value_error("twobody: search='grid' takes unweighted distance histograms with linear bins from 0 (exact=False)");
  }
  auto const exec = policy_of(backend, stream);
  device_scope scope(device_of(a));
  return with_value_type(a, [&](auto t) {
    using T = decltype(t);
    if (wa) { return to_python(without_gil([&] { return histogram_typed<T, true>(a, b, wa, wb, h, exec); })); }
    return to_python(without_gil([&] { return histogram_typed<T, false>(a, b, wa, wb, h, exec); }));
  });
}

std::string plan_histogram(array const& a, std::optional<array> const& b, double hi, int bins,
                           std::optional<std::vector<double>> const& box)
{
  (void)dims_of(a, b);
  if (!gpu_usable()) { return "no usable GPU: the CPU backend (OpenMP) runs every statistic"; }
  if (bins < 1 || !(hi > 0.0) || !std::isfinite(hi)) { throw nb::value_error("twobody: need bins >= 1 and 0 < r_max"); }
  device_scope scope(device_of(a));
  return with_value_type(a, [&](auto t) { return without_gil([&] { return plan_typed<decltype(t)>(a, b, hi, bins, box); }); });
}

nb::tuple histogram_out_of_core(array const& a, std::optional<array> const& b, double hi, int bins,
                                std::optional<std::vector<double>> const& box, long long memory_budget,
                                std::optional<std::vector<int>> const& devices, long long block_points, nb::object progress)
{
  (void)dims_of(a, b);
  if (bins < 1) { throw nb::value_error("twobody: need at least one bin"); }
  if (!(hi > 0.0) || !std::isfinite(hi)) { throw nb::value_error("twobody: the bin range must be finite with 0 < hi"); }
  auto const opt = scale_options_of(a, b, memory_budget, devices, block_points, progress);
  return with_value_type(a, [&](auto t) {
    return to_python(without_gil([&] { return histogram_out_of_core_typed<decltype(t)>(a, b, hi, bins, box, opt); }));
  });
}

}  // namespace

void bind_histograms(nb::module_& m)
{
  m.def("histogram", &histogram, "points"_a, "points_b"_a.none(), "kind"_a, "scale"_a, "exact"_a, "lo"_a, "hi"_a,
        "bins"_a, "hi_y"_a, "bins_y"_a, "box"_a.none(), "weights"_a.none(), "weights_b"_a.none(), "search"_a,
        "backend"_a, "stream"_a, "Pair histogram as (counts, outside, pairs). Use twobody.histogram.");
  m.def("plan_histogram", &plan_histogram, "points"_a, "points_b"_a.none(), "hi"_a, "bins"_a, "box"_a.none(),
        "The cost model's plan of a distance histogram. Use twobody.plan.");
  m.def("histogram_out_of_core", &histogram_out_of_core, "points"_a, "points_b"_a.none(), "hi"_a, "bins"_a,
        "box"_a.none(), "memory_budget"_a, "devices"_a.none(), "block_points"_a, "progress"_a.none(),
        "Distance histogram (bins from 0) over host sets of any size. Use twobody.histogram(memory_budget=...).");
}

}  // namespace twobody_py
