// The kernels that press hardest on a block's resources, instantiated so that ptxas checks them
// for each architecture the build supports (tests/CMakeLists.txt: kernel_resources_sm_*):
// the largest registered tile of each point type with the widest shared window (double and
// weighted points, up to 16 dimensions), every output of the one-call histogram (privatized
// copies, passes, spills, global atomics, the cluster histogram where the architecture has
// clusters, the cells of a periodic box), per-point sums, joins, frames, the grid index, and
// the rows on the tensor cores where the architecture has them. Nothing here runs: it compiles
// (ptxas refuses a kernel that declares more static shared memory than the architecture allows,
// engine.cuh's static_assert refuses one past 48 KiB on any).
#include <twobody/twobody.cuh>

#include <cuda_fp16.h>

namespace stress {

template <class T, int D, bool Weighted>
auto make(T const* const* c, T const* w)
{
  if constexpr (Weighted) {
    if constexpr (D == 3) {
      return twobody::make_weighted_points(1000, w, c[0], c[1], c[2]);
    } else {
      return twobody::make_weighted_points(1000, w, c[0], c[1], c[2], c[3]);
    }
  } else if constexpr (D == 3) {
    return twobody::make_points(1000, c[0], c[1], c[2]);
  } else {
    return twobody::make_points(1000, c[0], c[1], c[2], c[3]);
  }
}

/// The one-call histograms and sums of points<T, D, Weighted>: every registered shape that fits them.
template <class T, int D, bool Weighted>
void points_statistics(T const* const* c, T const* w)
{
  auto const pairs = twobody::self_pairs(make<T, D, Weighted>(c, w));
  (void)twobody::histogram(pairs, twobody::squared_euclidean{}, twobody::distance_bins<T>(T(30), 4096));
  (void)twobody::histogram(pairs, twobody::euclidean{}, twobody::uniform_bins<T>(T(0), T(30), 1 << 20));
  (void)twobody::count_pairs(pairs, twobody::within_radius(T(5)));
  if constexpr (!Weighted) { (void)twobody::sum_per_point(pairs, twobody::gaussian_kernel(T(2))); }  // (unweighted only)
}

void periodic_and_joins(double const* const* c)
{
  auto const pairs = twobody::self_pairs(twobody::make_points(1000, c[0], c[1], c[2]));
  twobody::periodic_squared_euclidean<double, 3> const box{{20.0, 20.0, 20.0}};
  (void)twobody::histogram(pairs, box, twobody::distance_bins<double>(9.0, 4096));  // the cells of a box
  (void)twobody::pairs_within(pairs, 1.5);
  auto const frames = twobody::make_frames(twobody::make_points(1000, c[0], c[1], c[2]), static_cast<twobody::size_type const*>(nullptr), 1);
  (void)twobody::histogram_frames(twobody::self_frame_pairs(frames), box, twobody::distance_bins<double>(9.0, 4096));
}

void sixteen_dimensions(double const* x, double const* w)
{
  double const* c[16];
  for (auto& p : c) { p = x; }
  auto const pts = twobody::make_weighted_points(1000, w, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10],
                                                 c[11], c[12], c[13], c[14], c[15]);
  (void)twobody::histogram(twobody::self_pairs(pts), twobody::squared_euclidean{}, twobody::distance_bins<double>(30.0, 4096));
}

void rows(__half const* h, float const* f)
{
  auto const half_rows  = twobody::self_pairs(twobody::make_rows(1000, 1024, h));
  auto const float_rows = twobody::self_pairs(twobody::make_rows(1000, 1024, f));
  (void)twobody::count_pairs(half_rows, twobody::at_least(twobody::cosine_similarity{}, 0.9f));
  (void)twobody::count_pairs(float_rows, twobody::closer_than(twobody::euclidean{}, 3.f));
  (void)twobody::join(half_rows, twobody::at_least(twobody::cosine_similarity{}, 0.9f));
  (void)twobody::nearest_neighbors(twobody::ordered_pairs(twobody::make_rows(1000, 1024, h)), twobody::cosine_similarity{}, 32);
  (void)twobody::sum_per_point(twobody::ordered_pairs(twobody::make_rows(1000, 1024, f)), twobody::gaussian_kernel(8.f));
}

}  // namespace stress

// Each instantiation once, so that the compiler emits its kernels.
template void stress::points_statistics<float, 3, false>(float const* const*, float const*);
template void stress::points_statistics<float, 4, true>(float const* const*, float const*);
template void stress::points_statistics<double, 3, false>(double const* const*, double const*);
template void stress::points_statistics<double, 3, true>(double const* const*, double const*);
