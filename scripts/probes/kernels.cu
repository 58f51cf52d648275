// The kernels of the library's main one-call paths, compiled (never run) for SASS comparisons
// (scripts/sass_compare.sh): the open-box SDH and the periodic RDF (tile forms, sub-tile pools,
// passes over windows), the count within r, and per-point kernel sums.
#include <twobody/twobody.cuh>

int main(int argc, char**)
{
  if (argc < 100) { return 0; }  // compiled for its kernels only
  auto const pts   = twobody::make_points(twobody::size_type{1}, (float*)nullptr, (float*)nullptr, (float*)nullptr);
  auto const pairs = twobody::self_pairs(pts);
  auto const sdh   = twobody::histogram(pairs, twobody::squared_euclidean{}, twobody::distance_bins<float>(173.2f, 256));
  auto const rdf   = twobody::histogram(pairs, twobody::make_periodic_squared_euclidean(100.f, 100.f, 100.f),
                                        twobody::distance_bins<float>(50.f, 256));
  auto const count = twobody::count_pairs(pairs, twobody::within_radius(5.f));
  auto const sums  = twobody::sum_per_point(twobody::ordered_pairs(pts), twobody::gaussian_kernel(5.f));
  return static_cast<int>(sdh.pairs + rdf.pairs + count + sums.size());
}
