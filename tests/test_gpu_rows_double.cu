// The typed GPU tests of rows (gpu_rows_typed.cuh) for double rows.
#include "gpu_rows_typed.cuh"

INSTANTIATE_TYPED_TEST_SUITE_P(Double, GpuRows, ::testing::Types<double>);
