/// \file runtime_device.cuh
/// \brief The device side of the library, as the run-time compiler (NVRTC) sees it: the one
/// header a runtime_program's source includes, so every pair kernel of the one-call forms can
/// be instantiated there with a run-time functor (the engine, the traversals, the input and
/// output policies, the bin maps, the join emitters and kernels). Everything it includes compiles under __CUDACC_RTC__.
#pragma once

#include <twobody/binning.cuh>
#include <twobody/detail/join_kernels.cuh>
#include <twobody/detail/tile_traversal.cuh>
#include <twobody/emitters.cuh>
#include <twobody/engine/visitors.cuh>
#include <twobody/functors.cuh>
#include <twobody/input/naive.cuh>
#include <twobody/input/readonly_tile.cuh>
#include <twobody/input/shared_tile.cuh>
#include <twobody/input/shuffle_tile.cuh>
#include <twobody/output/cluster_histogram.cuh>
#include <twobody/output/direct_output_buffer.cuh>
#include <twobody/output/global_atomics.cuh>
#include <twobody/output/per_point.cuh>
#include <twobody/output/privatized_histogram.cuh>
#include <twobody/output/registers.cuh>
#include <twobody/runtime_functor.cuh>
