// The typed GPU tests of rows (gpu_rows_typed.cuh) for __nv_bfloat16 rows.
#include "gpu_rows_typed.cuh"

INSTANTIATE_TYPED_TEST_SUITE_P(Bfloat16, GpuRows, ::testing::Types<__nv_bfloat16>);
