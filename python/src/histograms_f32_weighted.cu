// Histograms of weighted float points (see histogram_run.cuh).
#include "histogram_run.cuh"

namespace twobody_py {
TWOBODY_PY_HISTOGRAM(float, true);
}  // namespace twobody_py
