// twobody._core: the nanobind module under the Python package (python/twobody/__init__.py
// gives it keyword arguments, docstrings and arrays of the caller's library).
#include "rows.cuh"

namespace nb = nanobind;
using namespace nb::literals;

NB_MODULE(_core, m)
{
  m.doc() = "twobody's compiled core; use the functions of the twobody package.";
  nb::exception<twobody::error>(m, "Error", PyExc_RuntimeError);
  twobody_py::bind_counts(m);
  twobody_py::bind_histograms(m);
  twobody_py::bind_joins(m);
  twobody_py::bind_sums(m);
  twobody_py::bind_frames(m);
  twobody_py::bind_functors(m);
  twobody_py::bind_row_statistics(m);
  twobody_py::bind_row_joins(m);
  twobody_py::bind_nearest(m);

  // The library's estimators (twobody/estimators.cuh), on host vectors.
  m.def("radial_distribution",
        [](std::vector<double> counts, double r_max, int bins, std::vector<double> const& box, long long n_a,
           long long n_b) {
          twobody::histogram_result<double> h;
          h.counts = std::move(counts);
          twobody::distance_bins<double> const edges(r_max, bins);
          return n_b < 0 ? twobody::radial_distribution(h, edges, box, n_a)
                         : twobody::radial_distribution(h, edges, box, n_a, n_b);
        },
        "counts"_a, "r_max"_a, "bins"_a, "box"_a, "n_a"_a, "n_b"_a);
  m.def("self_pair_total", [](long long n) { return twobody::self_pair_total(n); }, "n"_a);
  m.def("self_pair_total_weighted", [](std::vector<double> const& w) { return twobody::self_pair_total(w); }, "weights"_a);
  m.def("xi_natural", &twobody::xi_natural, "dd"_a, "rr"_a);
  m.def("xi_landy_szalay", &twobody::xi_landy_szalay, "dd"_a, "dr"_a, "rr"_a);

  m.def("gpu_available", &twobody_py::gpu_usable, "True when a usable CUDA GPU is there (the 'auto' backend then runs on it).");
}
