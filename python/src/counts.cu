// count_pairs: pairs closer than r (open or periodic box), plain or weighted.
#include "statistics.cuh"

namespace twobody_py {
namespace {

// Unweighted sets may take a grid of cell side r (search: "auto", "brute", "grid"); weighted
// ones evaluate every pair.
template <class T, bool Weighted>
twobody::pair_count_t<twobody::points<T, dims, Weighted>> count_typed(array const& a, std::optional<array> const& b, std::optional<array> const& wa,
                       std::optional<array> const& wb, double r, std::optional<std::vector<double>> const& box,
                       twobody::pair_search search, twobody::execution_policy exec)
{
  point_sets<T, Weighted> const sets(a, b, wa, wb, exec.stream);
  auto const pairs = sets.pairs();
  return with_radius_predicate<T>(r, box, sets.dims_given(), [&](auto const& pred) -> twobody::pair_count_t<twobody::points<T, dims, Weighted>> {
    if constexpr (!Weighted) {
      if (search != twobody::pair_search::brute_force) {
        return twobody::count_pairs(exec, pairs, pred, twobody::within_cutoff<T>{static_cast<T>(r), search});
      }
    }
    return twobody::count_pairs(exec, pairs, pred);
  });
}

/// The count over host sets of any size, block pair by block pair (out_of_core.cu): every pair is
/// evaluated, with the kernels of the brute-force count above.
template <class T>
unsigned long long count_out_of_core_typed(array const& a, std::optional<array> const& b, double r,
                                           std::optional<std::vector<double>> const& box,
                                           twobody::host::scale_options const& opt)
{
  point_sets<T, false> const sets(a, b, std::nullopt, std::nullopt, cudaStream_t{});
  return with_radius_predicate<T>(r, box, sets.dims_given(), [&](auto const& pred) -> unsigned long long {
    return twobody::host::count_pairs(sets.pairs(), pred, opt);
  });
}

nb::object count_out_of_core(array const& a, std::optional<array> const& b, double r,
                             std::optional<std::vector<double>> const& box, long long memory_budget,
                             std::optional<std::vector<int>> const& devices, long long block_points, nb::object progress)
{
  (void)dims_of(a, b);
  if (!(r >= 0.0) || !std::isfinite(r)) { throw nb::value_error("twobody: r must be finite and >= 0"); }
  auto const opt = scale_options_of(a, b, memory_budget, devices, block_points, progress);
  return with_value_type(a, [&](auto t) {
    return nb::cast(without_gil([&] { return count_out_of_core_typed<decltype(t)>(a, b, r, box, opt); }));
  });
}

nb::object count(array const& a, std::optional<array> const& b, double r, std::optional<std::vector<double>> const& box,
                 std::optional<array> const& wa, std::optional<array> const& wb, std::string const& search_name,
                 std::string const& backend, std::uintptr_t stream)
{
  (void)dims_of(a, b);
  auto const search = search_of(search_name);
  if (wa && search == twobody::pair_search::grid) {
    throw nb::value_error("twobody: search='grid' counts unweighted pairs; with weights use search='brute' or 'auto'");
  }
  if (!(r >= 0.0) || !std::isfinite(r)) { throw nb::value_error("twobody: r must be finite and >= 0"); }
  if (b.has_value() && wa.has_value() != wb.has_value()) {
    throw nb::value_error("twobody: give weights for both point sets or for neither");
  }
  auto const exec = policy_of(backend, stream);
  device_scope scope(device_of(a));
  return with_value_type(a, [&](auto t) -> nb::object {
    using T = decltype(t);
    if (wa) { return nb::cast(without_gil([&] { return count_typed<T, true>(a, b, wa, wb, r, box, search, exec); })); }
    return nb::cast(without_gil([&] { return count_typed<T, false>(a, b, wa, wb, r, box, search, exec); }));
  });
}

}  // namespace

void bind_counts(nb::module_& m)
{
  m.def("count_pairs", &count, "points"_a, "points_b"_a.none(), "r"_a, "box"_a.none(), "weights"_a.none(),
        "weights_b"_a.none(), "search"_a, "backend"_a, "stream"_a,
        "Pairs closer than r (int; the sum of w_i w_j with weights). Use twobody.count_pairs.");
  m.def("count_pairs_out_of_core", &count_out_of_core, "points"_a, "points_b"_a.none(), "r"_a, "box"_a.none(),
        "memory_budget"_a, "devices"_a.none(), "block_points"_a, "progress"_a.none(),
        "Pairs closer than r over host sets of any size. Use twobody.count_pairs(memory_budget=...).");
}

}  // namespace twobody_py
