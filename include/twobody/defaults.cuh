/// \file defaults.cuh
/// \brief The input and join output policies of the explicit forms when the caller names none.
///
/// The one-call histograms, per-point sums, reductions and counts do not use a fixed default:
/// the cost model (model/policy.cuh) picks their input policy (and a histogram's private
/// copies) per problem and GPU.
#pragma once

#include <twobody/input/automatic.cuh>
#include <twobody/input/shared_tile.cuh>
#include <twobody/output/direct_output_buffer.cuh>

namespace twobody {

/// Input policy of the joins unless one is named: 256 threads, 4 own points per thread.
using default_input = input::shared_tile<256, 4>;

/// The default join output: pages of 128 records per warp (a warp's records land side by side
/// and one atomic serves 128 records; bench_join selfjoin/dob_warp128 against dob_thread32).
using default_join_output = output::direct_output_buffer<128, output::page_owner::warp>;

}  // namespace twobody
