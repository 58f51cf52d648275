// Row kernels compiled (never run) for SASS comparisons: the half-row count, histogram, kernel sums and knn.
#include <twobody/twobody.cuh>
#include <cuda_fp16.h>

int main(int argc, char**)
{
  if (argc < 100) { return 0; }
  auto const r = twobody::make_rows(std::int64_t{1}, 128, (__half const*)nullptr);
  auto const c = twobody::count_pairs(twobody::exec::gpu, twobody::self_pairs(r), twobody::closer_than(twobody::squared_euclidean{}, 1.f));
  return static_cast<int>(c);
}
