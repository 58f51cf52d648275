// The typed histogram test (gpu_histogram_checks.cuh) for the read-only cache, warp-shuffle and
// naive inputs against the CPU backend. Part of test_gpu_histogram (test_gpu_histogram.cu has the
// shared tiles, test_gpu_histogram_extras.cu the extra cases).
#include "gpu_histogram_checks.cuh"

INSTANTIATE_TYPED_TEST_SUITE_P(OtherInputs, GpuHistogram, tbt::other_input_configs::types);
