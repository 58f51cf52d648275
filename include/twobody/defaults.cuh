/// \file defaults.cuh
/// \brief The compositions the one-call functions use when the caller names none.
#pragma once

#include <twobody/input/shared_tile.cuh>

#include <cstddef>

namespace twobody {

/// Input policy of the one-call functions: 256 threads, 4 own points per thread.
using default_input = input::shared_tile<256, 4>;

/// Shared memory the one-call histograms give their private copies (per block): small
/// enough to keep several blocks resident per SM on every GPU since Volta.
inline constexpr std::size_t default_histogram_smem_budget = 48 * 1024;

}  // namespace twobody
