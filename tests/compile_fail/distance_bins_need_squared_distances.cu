// distance_bins takes squared distances: pairing it with euclidean (a distance) must not
// compile, and the message must name the fix. (tests/CMakeLists.txt expects the failure.)
#include <twobody/twobody.cuh>

void bin_distances_with_a_squared_distance_map(float const* x, float const* y, float const* z, long long n)
{
  auto const pairs = twobody::self_pairs(twobody::make_points(n, x, y, z));
  auto h = twobody::histogram(twobody::exec::cpu, pairs, twobody::euclidean{}, twobody::distance_bins<float>(10.f, 8));
  (void)h;
}
