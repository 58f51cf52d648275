// rdf_frames and count_frames: the distance histograms (and g(r) from them) or the pair counts
// within r of every frame of a trajectory in a periodic box that may change from frame to frame
// (frames.cuh: one launch for all frames, host trajectories in runs with their copies
// overlapped), per frame or summed.
#include "statistics.cuh"

namespace twobody_py {
namespace {

using frame_sizes = std::vector<long long>;

/// Offsets as the library reads them (F + 1 non-decreasing values; the library checks them).
std::vector<twobody::size_type> offsets_of(frame_sizes const& o, array const& x, char const* name)
{
  if (o.size() < 2) { throw nb::value_error((std::string("twobody: ") + name + " needs at least one frame (F + 1 offsets)").c_str()); }
  if (o.front() != 0 || o.back() != static_cast<long long>(x.shape(0))) {
    throw nb::value_error((std::string("twobody: ") + name + " must start at 0 and end at the number of points").c_str());
  }
  return {o.begin(), o.end()};
}

/// F x 3 box sides of T: each frame's D sides, and the longest for the zero columns past D.
template <class T>
std::vector<T> padded_boxes(std::vector<double> const& boxes, std::size_t frames, int given)
{
  if (boxes.size() != frames * static_cast<std::size_t>(given)) {
    throw nb::value_error("twobody: the boxes need one side per coordinate and frame (F x D values)");
  }
  std::vector<T> out(frames * dims);
  for (std::size_t f = 0; f < frames; ++f) { padded_box(boxes.data() + f * given, given, out.data() + f * dims); }
  return out;
}

struct frames_out {
  std::vector<double> counts;   // F x bins (per frame) or bins
  std::vector<double> outside;  // F values (per frame) or one
};

/// The frames of a call as the library takes them: the columns, the offsets and the F x 3 boxes
/// the frame sets point into.
template <class T>
struct frame_arrays {
  point_columns<T, false> a;
  std::optional<point_columns<T, false>> b;
  std::vector<twobody::size_type> oa, ob;
  std::vector<T> sides;

  frame_arrays(array const& xa, frame_sizes const& offsets, std::optional<array> const& xb,
               std::optional<frame_sizes> const& offsets_b, std::vector<double> const& boxes, cudaStream_t stream)
    : a(xa, std::nullopt, "frames", stream)
  {
    if (xb) { b.emplace(*xb, std::nullopt, "frames_b", stream); }
    oa = offsets_of(offsets, xa, "offsets");
    if (xb) {
      ob = offsets_of(*offsets_b, *xb, "offsets_b");
      if (ob.size() != oa.size()) { throw nb::value_error("twobody: both species need the same number of frames"); }
    }
    sides = padded_boxes<T>(boxes, oa.size() - 1, a.dims_given());
  }

  twobody::size_type frames() const { return static_cast<twobody::size_type>(oa.size() - 1); }

  /// Self pairs of each frame, or A x B of each frame with two species.
  auto pairs() const
  {
    auto const fa = twobody::make_frames(a.view(), oa.data(), frames()).with_boxes(sides.data());
    return b ? twobody::cross_frame_pairs(fa, twobody::make_frames(b->view(), ob.data(), frames())) : twobody::self_frame_pairs(fa);
  }

  /// A functor of type F with frame 0's box (each frame's replaces it in the launch).
  template <class F>
  F with_first_box(F f) const
  {
    for (int d = 0; d < dims; ++d) { f.box[d] = sides[d]; }
    return f;
  }
};

/// The frame sets of a call: the same dimension on both sides, and frames_b with offsets_b.
void check_frame_sets(array const& a, std::optional<array> const& b, std::optional<frame_sizes> const& offsets_b)
{
  (void)dims_of(a, b);
  if (b.has_value() != offsets_b.has_value()) { throw nb::value_error("twobody: give frames_b with offsets_b"); }
}

/// Runs of host frames of at most chunk_points points (0: the library's default), with
/// `progress` (None, or a callable) called between runs.
twobody::frames_options frames_options_of(long long chunk_points, nb::object const& progress)
{
  twobody::frames_options opt;
  if (chunk_points > 0) { opt.chunk_points = chunk_points; }
  if (!progress.is_none()) {
    nb::handle fn = progress;
    opt.progress  = [fn](twobody::size_type done, twobody::size_type total) { report_progress(fn, done, total); };
  }
  return opt;
}

template <class T>
frames_out rdf_frames_typed(array const& a, frame_sizes const& offsets, std::optional<array> const& b,
                            std::optional<frame_sizes> const& offsets_b, std::vector<double> const& boxes, double r_max,
                            int bins, bool per_frame, bool exact, twobody::frames_options const& opt,
                            twobody::execution_policy exec)
{
  frame_arrays<T> const in(a, offsets, b, offsets_b, boxes, exec.stream);
  auto const pairs = in.pairs();

  frames_out out;
  auto take = [&](auto const& results) {
    for (auto const& h : results) {
      out.counts.insert(out.counts.end(), h.counts.begin(), h.counts.end());
      out.outside.push_back(static_cast<double>(h.outside));
    }
  };
  auto run = [&](auto f0, auto const& edges) {
    auto const f = in.with_first_box(f0);
    if (per_frame) {
      take(twobody::histogram_per_frame(exec, pairs, f, edges, opt));
    } else {
      take(std::vector{twobody::histogram_frames(exec, pairs, f, edges, opt)});
    }
  };
  T const hi = static_cast<T>(r_max);
  if (exact) {
    run(twobody::periodic_euclidean<T, dims>{}, twobody::uniform_bins<T>(T(0), hi, bins));
  } else {
    run(twobody::periodic_squared_euclidean<T, dims>{}, twobody::distance_bins<T>(hi, bins));
  }
  return out;
}

nb::tuple rdf_frames(array const& a, frame_sizes const& offsets, std::optional<array> const& b,
                     std::optional<frame_sizes> const& offsets_b, std::vector<double> const& boxes, double r_max, int bins,
                     bool per_frame, bool exact, long long chunk_points, nb::object progress, std::string const& backend,
                     std::uintptr_t stream)
{
  check_frame_sets(a, b, offsets_b);
  if (bins < 1) { throw nb::value_error("twobody: need at least one bin"); }
  if (!(r_max > 0.0) || !std::isfinite(r_max)) { throw nb::value_error("twobody: r_max must be finite and > 0"); }
  twobody::frames_options const opt = frames_options_of(chunk_points, progress);
  auto const exec = policy_of(backend, stream);
  device_scope scope(device_of(a));
  auto out = with_value_type(a, [&](auto t) {
    return without_gil(
      [&] { return rdf_frames_typed<decltype(t)>(a, offsets, b, offsets_b, boxes, r_max, bins, per_frame, exact, opt, exec); });
  });
  return nb::make_tuple(to_numpy(std::move(out.counts)), to_numpy(std::move(out.outside)));
}

/// Pairs closer than r (minimum image in each frame's box) in every frame: F counts, or their sum.
template <class T>
nb::object count_frames_typed(array const& a, frame_sizes const& offsets, std::optional<array> const& b,
                              std::optional<frame_sizes> const& offsets_b, std::vector<double> const& boxes, double r,
                              bool per_frame, twobody::frames_options const& opt, twobody::execution_policy exec)
{
  using metric = twobody::periodic_squared_euclidean<T, dims>;
  frame_arrays<T> const in(a, offsets, b, offsets_b, boxes, exec.stream);
  twobody::within<metric, T> const close{in.with_first_box(metric{}), twobody::within_radius(static_cast<T>(r)).r2};
  auto const pairs = in.pairs();
  if (per_frame) {
    auto const counts = without_gil([&] { return twobody::count_per_frame(exec, pairs, close, opt); });
    return nb::cast(to_numpy(std::vector<std::int64_t>(counts.begin(), counts.end())));
  }
  return nb::cast(without_gil([&] { return twobody::count_frames(exec, pairs, close, opt); }));
}

nb::object count_frames(array const& a, frame_sizes const& offsets, std::optional<array> const& b,
                        std::optional<frame_sizes> const& offsets_b, std::vector<double> const& boxes, double r, bool per_frame,
                        long long chunk_points, nb::object progress, std::string const& backend, std::uintptr_t stream)
{
  check_frame_sets(a, b, offsets_b);
  if (!(r > 0.0) || !std::isfinite(r)) { throw nb::value_error("twobody: r must be finite and > 0"); }
  twobody::frames_options const opt = frames_options_of(chunk_points, progress);
  auto const exec = policy_of(backend, stream);
  device_scope scope(device_of(a));
  return with_value_type(a, [&](auto t) {
    return count_frames_typed<decltype(t)>(a, offsets, b, offsets_b, boxes, r, per_frame, opt, exec);
  });
}

/// g(r) of each frame from its histogram (F x bins counts), box (F x D sides) and sizes (n_b
/// empty: one species); frames without pairs get NaN.
nb::ndarray<nb::numpy, double, nb::ndim<1>> radial_distribution_frames(std::vector<double> const& counts, double r_max, int bins,
                                                                       std::vector<double> const& boxes, int dims_given,
                                                                       frame_sizes const& n_a, frame_sizes const& n_b)
{
  std::size_t const frames = n_a.size();
  if (bins < 1 || counts.size() != frames * static_cast<std::size_t>(bins) || boxes.size() != frames * dims_given ||
      (!n_b.empty() && n_b.size() != frames)) {
    throw nb::value_error("twobody: radial_distribution_frames: sizes of counts, boxes and frames disagree");
  }
  twobody::distance_bins<double> const edges(r_max, bins);
  std::vector<double> g(counts.size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t f = 0; f < frames; ++f) {
    bool const has_pairs = n_b.empty() ? n_a[f] >= 2 : (n_a[f] >= 1 && n_b[f] >= 1);
    if (!has_pairs) { continue; }
    twobody::histogram_result<double> h;
    h.counts.assign(counts.begin() + static_cast<std::ptrdiff_t>(f * bins), counts.begin() + static_cast<std::ptrdiff_t>((f + 1) * bins));
    std::vector<double> const box(boxes.begin() + static_cast<std::ptrdiff_t>(f * dims_given),
                                  boxes.begin() + static_cast<std::ptrdiff_t>((f + 1) * dims_given));
    auto const gf = n_b.empty() ? twobody::radial_distribution(h, edges, box, n_a[f])
                                : twobody::radial_distribution(h, edges, box, n_a[f], n_b[f]);
    std::copy(gf.begin(), gf.end(), g.begin() + static_cast<std::ptrdiff_t>(f * bins));
  }
  return to_numpy(std::move(g));
}

}  // namespace

void bind_frames(nb::module_& m)
{
  m.def("rdf_frames", &rdf_frames, "frames"_a, "offsets"_a, "frames_b"_a.none(), "offsets_b"_a.none(), "boxes"_a,
        "r_max"_a, "bins"_a, "per_frame"_a, "exact"_a, "chunk_points"_a, "progress"_a.none(), "backend"_a, "stream"_a,
        "Distance histograms of trajectory frames as (counts, outside). Use twobody.rdf_frames.");
  m.def("count_frames", &count_frames, "frames"_a, "offsets"_a, "frames_b"_a.none(), "offsets_b"_a.none(), "boxes"_a,
        "r"_a, "per_frame"_a, "chunk_points"_a, "progress"_a.none(), "backend"_a, "stream"_a,
        "Pairs closer than r in each frame (or summed). Use twobody.count_frames.");
  m.def("radial_distribution_frames", &radial_distribution_frames, "counts"_a, "r_max"_a, "bins"_a, "boxes"_a, "dims"_a,
        "n_a"_a, "n_b"_a, "g(r) of each frame from its histogram. Use twobody.rdf_frames.");
}

}  // namespace twobody_py
