// Counts, distance histograms and Gaussian kernel sums of high-dimensional rows (float32,
// float16, bfloat16; any D): the tensor-core statistics of highdim.cuh and
// highdim_per_point.cuh, exact where the library says they are.
#include "rows.cuh"

namespace twobody_py {
namespace {

nb::object row_count(array const& a, std::optional<array> const& b, double r, std::string const& backend, std::uintptr_t stream)
{
  (void)row_dims_of(a, b);
  if (!(r >= 0.0) || !std::isfinite(r)) { throw nb::value_error("twobody: r must be finite and >= 0"); }
  auto const exec = policy_of(backend, stream);
  device_scope scope(device_of(a));
  return with_row_type(a, [&](auto tag) -> nb::object {
    using T = typename decltype(tag)::type;
    return nb::cast(without_gil([&] {
      row_sets<T> const sets(a, b, exec.stream);
      return twobody::count_pairs(exec, sets.pairs(), twobody::closer_than(twobody::euclidean{}, static_cast<float>(r)));
    }));
  });
}

nb::tuple row_histogram(array const& a, std::optional<array> const& b, double lo, double hi, int bins,
                        std::string const& backend, std::uintptr_t stream)
{
  (void)row_dims_of(a, b);
  if (bins < 1) { throw nb::value_error("twobody: need at least one bin"); }
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi)) {
    throw nb::value_error("twobody: the bin range must be finite with lo < hi");
  }
  auto const exec = policy_of(backend, stream);
  device_scope scope(device_of(a));
  return with_row_type(a, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto r  = without_gil([&] {
      row_sets<T> const sets(a, b, exec.stream);
      return twobody::histogram(exec, sets.pairs(), twobody::euclidean{},
                                twobody::uniform_bins<float>(static_cast<float>(lo), static_cast<float>(hi), bins));
    });
    return nb::make_tuple(to_numpy(std::move(r.counts)), r.outside, r.pairs);
  });
}

// Per-point sums over every partner (ordered pairs of one set, or A x B); the total over the
// pairs of one set counts each pair once (half the sum of the per-point sums).
nb::object row_kernel_sum(array const& a, std::optional<array> const& b, double bandwidth, bool per_point,
                          std::string const& backend, std::uintptr_t stream)
{
  (void)row_dims_of(a, b);
  if (!(bandwidth > 0.0) || !std::isfinite(bandwidth)) { throw nb::value_error("twobody: bandwidth must be finite and > 0"); }
  auto const exec = policy_of(backend, stream);
  device_scope scope(device_of(a));
  auto sums = with_row_type(a, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return without_gil([&] {
      row_sets<T> const sets(a, b, exec.stream);
      return twobody::sum_per_point(exec, sets.partners(), twobody::gaussian_kernel(static_cast<float>(bandwidth)));
    });
  });
  if (per_point) { return nb::cast(to_numpy(std::move(sums))); }
  double total = 0.0;
  for (double s : sums) { total += s; }
  return nb::cast(b ? total : 0.5 * total);
}

}  // namespace

void bind_row_statistics(nb::module_& m)
{
  m.def("rows_count_pairs", &row_count, "points"_a, "points_b"_a.none(), "r"_a, "backend"_a, "stream"_a,
        "Pairs of rows closer than r (exact). Use twobody.count_pairs.");
  m.def("rows_histogram", &row_histogram, "points"_a, "points_b"_a.none(), "lo"_a, "hi"_a, "bins"_a, "backend"_a,
        "stream"_a, "Distance histogram of rows as (counts, outside, pairs). Use twobody.histogram.");
  m.def("rows_kernel_sum", &row_kernel_sum, "points"_a, "points_b"_a.none(), "bandwidth"_a, "per_point"_a, "backend"_a,
        "stream"_a, "Gaussian kernel sums of rows. Use twobody.kernel_sum.");
}

}  // namespace twobody_py
