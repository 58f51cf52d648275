// Histograms, plans and out-of-core histograms of float points without weights (see histogram_run.cuh).
#include "histogram_run.cuh"

namespace twobody_py {
TWOBODY_PY_HISTOGRAM(float, false);
TWOBODY_PY_PLAN(float);
TWOBODY_PY_OUT_OF_CORE(float);
}  // namespace twobody_py
