/// \file defaults.cuh
/// \brief The input policy of the explicit forms when the caller names none.
///
/// The one-call histograms, per-point sums, reductions and counts do not use a fixed default:
/// the cost model (model/policy.cuh) picks their input policy (and a histogram's private
/// copies) per problem and GPU.
#pragma once

#include <twobody/input/shared_tile.cuh>

namespace twobody {

/// Input policy of the joins unless one is named: 256 threads, 4 own points per thread.
using default_input = input::shared_tile<256, 4>;

namespace input {
/// The reductions' and counts' default: the cost model picks the input policy per problem
/// among the shapes the registry compiles for reductions (a small tile for small sets, whose
/// few points would leave a large tile mostly padding and the GPU mostly idle).
struct automatic {};
}  // namespace input

}  // namespace twobody
