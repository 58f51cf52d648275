// Histograms of weighted double points (see histogram_run.cuh).
#include "histogram_run.cuh"

namespace twobody_py {
TWOBODY_PY_HISTOGRAM(double, true);
}  // namespace twobody_py
