// Histograms and plans of double points without weights (see histogram_run.cuh).
#include "histogram_run.cuh"

namespace twobody_py {
TWOBODY_PY_HISTOGRAM(double, false);
TWOBODY_PY_PLAN(double);
}  // namespace twobody_py
