// Device tests of the grid index in 4 to 6 dimensions (test_gpu_grid.cu has 1 to 3 and the rest):
// counts and histograms up to a cutoff equal the CPU backend's brute force.
#include "gpu_grid_checks.cuh"

TEST(GpuGrid, CountsAndHistogramsMatchBruteForceIn4To6Dimensions)
{
  TBT_REQUIRE_GPU();
  std::int64_t const n = tbt::quick() ? 1500 : 4000;
  tbt_grid::check_dimension<4>(n, 24, 4.f);
  tbt_grid::check_dimension<5>(n, 12, 3.f);
  tbt_grid::check_dimension<6>(n, 8, 3.f);
}
