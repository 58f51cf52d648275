// pairs_within: the similarity join |a - b| <= eps as (m, 2) index pairs, left where the points
// are (device arrays give a device result, host arrays a host result).
#include "statistics.cuh"

namespace twobody_py {
namespace {

static_assert(sizeof(twobody::index_pair) == 2 * sizeof(std::uint32_t), "index pairs are read as (m, 2) uint32");

template <class T>
twobody::join_result<twobody::index_pair> join_typed(array const& a, std::optional<array> const& b, double eps,
                                                     bool sort, twobody::execution_policy exec)
{
  point_sets<T, false> const sets(a, b, std::nullopt, std::nullopt, exec.stream);
  twobody::join_options opt;
  opt.location = memory_of(a, "points") == memory::device ? twobody::result_location::device : twobody::result_location::host;
  auto r = twobody::pairs_within(exec, sets.pairs(), static_cast<T>(eps), opt);
  if (sort) { twobody::sort_by_index(r, exec.stream); }
  return r;
}

nb::object pairs_within(array const& a, std::optional<array> const& b, double eps, bool sort,
                        std::string const& backend, std::uintptr_t stream)
{
  (void)dims_of(a, b);
  if (!(eps >= 0.0) || !std::isfinite(eps)) { throw nb::value_error("twobody: eps must be finite and >= 0"); }
  auto const exec = policy_of(backend, stream);
  int const device = device_of(a);
  device_scope scope(device);
  return index_pairs_to_python(with_value_type(a, [&](auto t) {
    return without_gil([&] { return join_typed<decltype(t)>(a, b, eps, sort, exec); });
  }), device);
}

}  // namespace

nb::object index_pairs_to_python(twobody::join_result<twobody::index_pair> result, int device)
{
  auto* r = new twobody::join_result<twobody::index_pair>(std::move(result));
  nb::capsule owner(r, [](void* p) noexcept { delete static_cast<twobody::join_result<twobody::index_pair>*>(p); });
  std::size_t const shape[2] = {r->size(), 2};
  auto* data                 = reinterpret_cast<std::uint32_t*>(r->data());
  if (r->location() == twobody::result_location::device) {
    // A DLPack-capable array on the GPU; the package hands it to the caller's library.
    return nb::cast(nb::ndarray<std::uint32_t, nb::ndim<2>>(data, 2, shape, owner, nullptr, nb::dtype<std::uint32_t>(),
                                                           nb::device::cuda::value, device));
  }
  return nb::cast(nb::ndarray<nb::numpy, std::uint32_t, nb::ndim<2>>(data, 2, shape, owner));
}

void bind_joins(nb::module_& m)
{
  m.def("pairs_within", &pairs_within, "points"_a, "points_b"_a.none(), "eps"_a, "sort"_a, "backend"_a, "stream"_a,
        "Index pairs (i, j) with |a_i - b_j| <= eps as an (m, 2) uint32 array. Use twobody.pairs_within.");
}

}  // namespace twobody_py
