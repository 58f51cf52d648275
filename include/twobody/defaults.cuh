/// \file defaults.cuh
/// \brief The input policy of the explicit forms when the caller names none.
///
/// The one-call histograms and per-point sums do not use a fixed default: the cost model
/// (model/policy.cuh) picks their input policy and private copies per problem and GPU.
#pragma once

#include <twobody/input/shared_tile.cuh>

namespace twobody {

/// Input policy of the reductions and counts (one-call and explicit) unless one is named:
/// 256 threads, 4 own points per thread.
using default_input = input::shared_tile<256, 4>;

}  // namespace twobody
