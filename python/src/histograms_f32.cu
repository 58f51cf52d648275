// Histograms and plans of float points without weights (see histogram_run.cuh).
#include "histogram_run.cuh"

namespace twobody_py {
TWOBODY_PY_HISTOGRAM(float, false);
TWOBODY_PY_PLAN(float);
}  // namespace twobody_py
