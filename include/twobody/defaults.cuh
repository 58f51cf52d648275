/// \file defaults.cuh
/// \brief The compositions the one-call functions use when the caller names none.
#pragma once

#include <twobody/input/shared_tile.cuh>

#include <cstddef>

namespace twobody {

/// Input policy of the one-call reductions and counts: 256 threads, 4 own points per thread.
using default_input = input::shared_tile<256, 4>;

/// Input policy of the one-call histograms and per-point sums: 8 own points per thread for
/// float points of up to 4 dimensions (each shared-memory load feeds 8 pairs: SDH +5% and
/// kernel sums +8% over 4 on the H100, bench_suite), 4 otherwise to spare registers.
template <class Points>
using default_input_for =
  input::shared_tile<256, (sizeof(typename Points::value_type) == 4 && Points::dims <= 4) ? 8 : 4>;

/// Shared memory the one-call histograms give their private copies (per block): small
/// enough to keep several blocks resident per SM on every GPU since Volta.
inline constexpr std::size_t default_histogram_smem_budget = 48 * 1024;

}  // namespace twobody
