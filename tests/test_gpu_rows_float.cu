// The typed GPU tests of rows (gpu_rows_typed.cuh) for float rows.
#include "gpu_rows_typed.cuh"

INSTANTIATE_TYPED_TEST_SUITE_P(Float, GpuRows, ::testing::Types<float>);
