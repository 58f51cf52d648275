// What the GPU tests of the out-of-core layer share (test_gpu_out_of_core.cu, test_gpu_out_of_core_workers.cu).
#pragma once

#include "common.cuh"

#include <twobody/host/out_of_core.cuh>
#include <twobody/host/out_of_core_join.cuh>
#include <twobody/cpu/backend.cuh>

#include <stdexcept>

namespace {

template <class H>
void expect_same(H const& got, H const& want)
{
  EXPECT_EQ(got.counts, want.counts);
  EXPECT_EQ(got.outside, want.outside);
  EXPECT_EQ(got.pairs, want.pairs);
}

}  // namespace
