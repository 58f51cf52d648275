// bench_highdim's float, bfloat16 and double rows (bench_highdim.cu has the half rows and main;
// bench_highdim_rows.cuh what both share).
#include "bench_highdim_rows.cuh"

namespace highdim_bench {

void register_float_shapes(long long n)
{
  for (int dims : {32, 128, 256}) { register_shape<float>(n, dims, false); }
}

void register_bf16_shape(long long n, int dims) { register_shape<__nv_bfloat16>(n, dims, false); }

void register_float_knn(long long n) { register_knn<float>(n, 128, false, false); }

void register_double_rows(long long n)
{
  for (int dims : {128, 960}) { register_shape<double>(n, dims, false); }
  register_knn<double>(n, 128, false, false);
}

}  // namespace highdim_bench
