/// \file twobody.cuh
/// \brief Umbrella header: everything public in twobody.
#pragma once

#include <twobody/band_join.cuh>
#include <twobody/binning.cuh>
#include <twobody/cpu/backend.cuh>
#include <twobody/defaults.cuh>
#include <twobody/emitters.cuh>
#include <twobody/error.cuh>
#include <twobody/estimators.cuh>
#include <twobody/execution.cuh>
#include <twobody/functors.cuh>
#include <twobody/grid.cuh>
#include <twobody/grid_index.cuh>
#include <twobody/grid_join.cuh>
#include <twobody/histogram.cuh>
#include <twobody/input/naive.cuh>
#include <twobody/input/readonly_tile.cuh>
#include <twobody/input/shared_tile.cuh>
#include <twobody/input/shuffle_tile.cuh>
#include <twobody/join.cuh>
#include <twobody/join_result.cuh>
#include <twobody/model/device_info.cuh>
#include <twobody/model/occupancy.cuh>
#include <twobody/model/policy.cuh>
#include <twobody/model/privatization.cuh>
#include <twobody/output/direct_output_buffer.cuh>
#include <twobody/output/global_atomics.cuh>
#include <twobody/output/per_point.cuh>
#include <twobody/output/privatized_histogram.cuh>
#include <twobody/output/registers.cuh>
#include <twobody/per_point.cuh>
#include <twobody/points.cuh>
#include <twobody/reduce.cuh>
#include <twobody/results.cuh>
#include <twobody/value_traits.cuh>
