// Double rows have no tensor-core path: naming input::mma_tile for them must not compile, and
// the message must name the input they take. (tests/CMakeLists.txt expects the failure.)
#include <twobody/twobody.cuh>

unsigned long long count_double_rows_on_the_tensor_cores(double const* x, long long n)
{
  auto const pairs = twobody::self_pairs(twobody::make_rows(n, 64, x));
  return twobody::count_pairs<twobody::input::mma_tile>(twobody::exec::gpu, pairs, twobody::closer_than(twobody::euclidean{}, 1.f));
}
