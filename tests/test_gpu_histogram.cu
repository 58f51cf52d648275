// Every input policy x every histogram output policy x self/cross/ordered x float/double
// against the CPU backend run on double copies of the same integer points.
#include "gpu_histogram_checks.cuh"

// The shared tiles (test_gpu_histogram_inputs.cu: the other inputs; test_gpu_histogram_extras.cu:
// large tiles, weights and spill windows).
INSTANTIATE_TYPED_TEST_SUITE_P(SharedTile, GpuHistogram, tbt::shared_tile_configs::types);
