// The typed GPU tests of rows (gpu_rows_typed.cuh) for __half rows.
#include "gpu_rows_typed.cuh"

INSTANTIATE_TYPED_TEST_SUITE_P(Half, GpuRows, ::testing::Types<__half>);
