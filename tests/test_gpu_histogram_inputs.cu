// The typed histogram test (gpu_histogram_checks.cuh) for the read-only cache, warp-shuffle and
// naive inputs against the CPU backend. Part of test_gpu_histogram (test_gpu_histogram.cu has the
// shared tiles and the extra cases).
#include "gpu_histogram_checks.cuh"

using other_input_configs =
  ::testing::Types<tbt::config<input::readonly_tile<64, 2>, float>, tbt::config<input::readonly_tile<256, 4>, double>,
                   tbt::config<input::shuffle_tile<256, 4>, float>, tbt::config<input::shuffle_tile<128, 2>, double>,
                   tbt::config<input::naive<128>, float>, tbt::config<input::naive<256>, double>>;
INSTANTIATE_TYPED_TEST_SUITE_P(OtherInputs, GpuHistogram, other_input_configs);
