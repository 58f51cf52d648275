// pairs_within for high-dimensional rows: the exact similarity join value <= eps (Euclidean
// distance or cosine distance), as (m, 2) index pairs and the pairs' values, left where the
// points are (device arrays give device results).
#include "rows.cuh"

namespace twobody_py {
namespace {

using record = twobody::index_pair_value<float>;

// The records' indices into ij (m x 2) and their values into v.
__global__ void split_records(record const* r, std::size_t m, std::uint32_t* ij, float* v)
{
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < m; e += std::size_t(gridDim.x) * blockDim.x) {
    ij[2 * e]     = r[e].i;
    ij[2 * e + 1] = r[e].j;
    v[e]          = r[e].value;
  }
}

template <class T>
twobody::join_result<record> join_typed(array const& a, std::optional<array> const& b, double eps, std::string const& metric,
                                        twobody::execution_policy exec)
{
  row_sets<T> const sets(a, b, exec.stream);
  twobody::join_options opt;
  opt.location = memory_of(a, "points") == memory::device ? twobody::result_location::device : twobody::result_location::host;
  auto const e = static_cast<float>(eps);
  if (metric == "cosine") { return twobody::pairs_within(exec, sets.pairs(), e, twobody::cosine_distance{}, opt); }
  return twobody::pairs_within(exec, sets.pairs(), e, twobody::euclidean{}, opt);
}

nb::tuple row_pairs_within(array const& a, std::optional<array> const& b, double eps, std::string const& metric, bool sort,
                           std::string const& backend, std::uintptr_t stream)
{
  (void)row_dims_of(a, b);
  if (!(eps >= 0.0) || !std::isfinite(eps)) { throw nb::value_error("twobody: eps must be finite and >= 0"); }
  if (metric != "euclidean" && metric != "cosine") {
    throw nb::value_error(("twobody: metric must be 'euclidean' or 'cosine', not '" + metric + "'").c_str());
  }
  auto const exec  = policy_of(backend, stream);
  int const device = device_of(a);
  device_scope scope(device);
  auto r = with_row_type(a, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return without_gil([&] {
      auto j = join_typed<T>(a, b, eps, metric, exec);
      if (sort) { twobody::sort_by_index(j, exec.stream); }
      return j;
    });
  });
  std::size_t const m = r.size();
  std::size_t const pair_shape[2] = {m, 2};
  std::size_t const value_shape[1] = {m};
  if (r.location() == twobody::result_location::device) {
    auto [ij, ij_owner] = owned_device_array<std::uint32_t>(2 * m);
    auto [v, v_owner]   = owned_device_array<float>(m);
    if (m > 0) {
      auto const s      = exec.stream;
      auto const blocks = static_cast<unsigned>(std::min<std::size_t>((m + 255) / 256, 65535));
      split_records<<<blocks, 256, 0, s>>>(r.data(), m, ij, v);
      TWOBODY_CHECK_LAUNCH();
      TWOBODY_CUDA_TRY(cudaStreamSynchronize(s));  // r's records are freed on return
    }
    return nb::make_tuple(wrap_array(ij, 2, pair_shape, nullptr, ij_owner, device),
                          wrap_array(v, 1, value_shape, nullptr, v_owner, device));
  }
  auto* ij = new std::vector<std::uint32_t>(2 * m);
  nb::capsule ij_owner(ij, [](void* p) noexcept { delete static_cast<std::vector<std::uint32_t>*>(p); });
  auto* v = new std::vector<float>(m);
  nb::capsule v_owner(v, [](void* p) noexcept { delete static_cast<std::vector<float>*>(p); });
  record const* rec = r.data();
  for (std::size_t e = 0; e < m; ++e) {
    (*ij)[2 * e]     = rec[e].i;
    (*ij)[2 * e + 1] = rec[e].j;
    (*v)[e]          = rec[e].value;
  }
  return nb::make_tuple(wrap_array(ij->data(), 2, pair_shape, nullptr, ij_owner, -1),
                        wrap_array(v->data(), 1, value_shape, nullptr, v_owner, -1));
}

}  // namespace

void bind_row_joins(nb::module_& m)
{
  m.def("rows_pairs_within", &row_pairs_within, "points"_a, "points_b"_a.none(), "eps"_a, "metric"_a, "sort"_a,
        "backend"_a, "stream"_a,
        "Pairs of rows with metric value <= eps as ((m, 2) uint32 indices, (m,) float32 values). Use twobody.pairs_within.");
}

}  // namespace twobody_py
