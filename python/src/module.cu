// twobody._core: the nanobind module under the Python package (python/twobody/__init__.py
// gives it keyword arguments, docstrings and arrays of the caller's library).
#include "rows.cuh"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

/// A library message in Python terms: backends as backend="...", functions as twobody.f.
std::string python_message(std::string m)
{
  auto replace_all = [&m](std::string const& from, std::string const& to) {
    for (std::size_t at = m.find(from); at != std::string::npos; at = m.find(from, at + to.size())) {
      m.replace(at, from.size(), to);
    }
  };
  replace_all("pass twobody::exec::cpu (or twobody::exec::automatic) as the first argument of the one-call forms",
              "pass backend=\"cpu\" (or backend=\"auto\")");
  replace_all("pass twobody::exec::cpu, or twobody::exec::automatic, as the first argument of a one-call form",
              "pass backend=\"cpu\" (or backend=\"auto\")");
  replace_all("twobody::exec::automatic", "backend=\"auto\"");
  replace_all("twobody::exec::cpu", "backend=\"cpu\"");
  replace_all("twobody::exec::gpu", "backend=\"gpu\"");
  replace_all("exec::cpu", "backend=\"cpu\"");
  replace_all("exec::gpu", "backend=\"gpu\"");
  replace_all("twobody::", "twobody.");
  return m;
}

PyObject* error_type    = nullptr;  // twobody.Error (RuntimeError)
PyObject* argument_type = nullptr;  // twobody.ArgumentError (Error and ValueError)

/// Raises `type` with the library's message in Python terms; the source location of the check
/// stays on the exception as `where` (for bug reports), out of the message.
void raise_library_error(PyObject* type, twobody::error const& e)
{
  PyObject* exc = PyObject_CallFunction(type, "s", python_message(e.message()).c_str());
  if (exc == nullptr) { return; }
  PyObject* where = PyUnicode_FromString(e.where().c_str());
  if (where != nullptr) {
    PyObject_SetAttrString(exc, "where", where);
    Py_DECREF(where);
  }
  PyErr_SetObject(type, exc);
  Py_DECREF(exc);
}

}  // namespace

NB_MODULE(_core, m)
{
  m.doc() = "twobody's compiled core; use the functions of the twobody package.";
  error_type = PyErr_NewExceptionWithDoc(
    "twobody.Error",
    "A failure the library found: a CUDA error, too little GPU memory, a run-time functor that does not "
    "compile, or (as its subclass ArgumentError) an argument its checks refused. The message says what "
    "to change; `where` holds the file and line of the check, for bug reports.",
    PyExc_RuntimeError, nullptr);
  PyObject* argument_bases = PyTuple_Pack(2, error_type, PyExc_ValueError);
  argument_type            = PyErr_NewExceptionWithDoc(
    "twobody.ArgumentError",
    "An argument the library's checks refused before any work (a twobody.Error and a ValueError).",
    argument_bases, nullptr);
  Py_XDECREF(argument_bases);
  m.attr("Error")         = nb::handle(error_type);
  m.attr("ArgumentError") = nb::handle(argument_type);
  nb::register_exception_translator([](std::exception_ptr const& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (twobody::invalid_argument const& e) {
      raise_library_error(argument_type, e);
    } catch (twobody::error const& e) {
      raise_library_error(error_type, e);
    }
  });
  m.def("gpu_reason", [] { return twobody::detail::current_gpu_status().reason; },
        "Why no usable CUDA GPU is there (empty when there is one).");
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

  m.def("set_progress", &twobody_py::set_progress, "fn"_a.none(),
        "Sets this thread's progress(done, total) callable for the calls it makes next (None: none).");
  m.def("gpu_available", &twobody_py::gpu_usable, "True when a usable CUDA GPU is there (the 'auto' backend then runs on it).");
}
