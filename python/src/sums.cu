// kernel_sum: Gaussian kernel sums over all pairs, or per point (kernel density at each point).
#include "statistics.cuh"

namespace twobody_py {
namespace {

template <class T>
double total_typed(array const& a, std::optional<array> const& b, double h, twobody::execution_policy exec)
{
  point_sets<T, false> const sets(a, b, std::nullopt, std::nullopt, exec.stream);
  return twobody::reduce_pairs(exec, sets.pairs(), twobody::gaussian_kernel(static_cast<T>(h)),
                               cuda::std::plus<double>{}, 0.0);
}

template <class T>
std::vector<T> per_point_typed(array const& a, std::optional<array> const& b, double h, twobody::execution_policy exec)
{
  point_sets<T, false> const sets(a, b, std::nullopt, std::nullopt, exec.stream);
  return twobody::sum_per_point(exec, sets.partners(), twobody::gaussian_kernel(static_cast<T>(h)));
}

nb::object kernel_sum(array const& a, std::optional<array> const& b, double bandwidth, bool per_point,
                      std::string const& backend, std::uintptr_t stream)
{
  (void)dims_of(a, b);
  if (!(bandwidth > 0.0) || !std::isfinite(bandwidth)) { throw nb::value_error("twobody: bandwidth must be finite and > 0"); }
  auto const exec = policy_of(backend, stream);
  device_scope scope(device_of(a));
  return with_value_type(a, [&](auto t) -> nb::object {
    using T = decltype(t);
    if (per_point) { return nb::cast(to_numpy(without_gil([&] { return per_point_typed<T>(a, b, bandwidth, exec); }))); }
    return nb::cast(without_gil([&] { return total_typed<T>(a, b, bandwidth, exec); }));
  });
}

}  // namespace

void bind_sums(nb::module_& m)
{
  m.def("kernel_sum", &kernel_sum, "points"_a, "points_b"_a.none(), "bandwidth"_a, "per_point"_a, "backend"_a,
        "stream"_a, "Gaussian kernel sum over all pairs, or per point. Use twobody.kernel_sum.");
}

}  // namespace twobody_py
