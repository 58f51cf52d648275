// Histograms, plans and out-of-core histograms of double points without weights (see histogram_run.cuh).
#include "histogram_run.cuh"

namespace twobody_py {
TWOBODY_PY_HISTOGRAM(double, false);
TWOBODY_PY_PLAN(double);
TWOBODY_PY_OUT_OF_CORE(double);
}  // namespace twobody_py
