// knn: the exact k nearest neighbours of every point (nearest_neighbors.cuh), by Euclidean or
// cosine distance, as (n, k) int32 indices and float32 distances, left where the points are.
#include "rows.cuh"

namespace twobody_py {
namespace {

// The (n, k) index and value arrays, filled by fill(indices, values) in host or device memory.
template <class Fill>
nb::tuple nearest_arrays(std::size_t n, int k, int device, Fill&& fill)
{
  std::size_t const shape[2] = {n, static_cast<std::size_t>(k)};
  std::size_t const total    = n * static_cast<std::size_t>(k);
  if (device >= 0) {
    auto [idx, idx_owner] = owned_device_array<std::int32_t>(total);
    auto [val, val_owner] = owned_device_array<float>(total);
    if (total > 0) { fill(idx, val); }
    return nb::make_tuple(wrap_array(idx, 2, shape, nullptr, idx_owner, device),
                          wrap_array(val, 2, shape, nullptr, val_owner, device));
  }
  auto* r = new twobody::neighbors_result(fill(nullptr, nullptr));
  nb::capsule owner(r, [](void* p) noexcept { delete static_cast<twobody::neighbors_result*>(p); });
  return nb::make_tuple(wrap_array(r->indices.data(), 2, shape, nullptr, owner, -1),
                        wrap_array(r->values.data(), 2, shape, nullptr, owner, -1));
}

template <class T, class Metric>
nb::tuple nearest_typed(array const& a, std::optional<array> const& b, int k, Metric metric, twobody::execution_policy exec,
                        int device)
{
  auto const n = static_cast<std::size_t>(a.shape(0));
  return nearest_arrays(n, k, device, [&](std::int32_t* d_idx, float* d_val) {
    return without_gil([&] {
      row_sets<T> const sets(a, b, exec.stream);
      if (d_idx != nullptr) {
        // Device arrays in, device arrays out, on the caller's stream (synchronized: the
        // staged sets live until here).
        twobody::nearest_neighbors(sets.partners(), metric, k, d_idx, d_val, exec.stream);
        TWOBODY_CUDA_TRY(cudaStreamSynchronize(exec.stream));
        return twobody::neighbors_result{};
      }
      return twobody::nearest_neighbors(exec, sets.partners(), metric, k);
    });
  });
}

nb::tuple knn(array const& a, std::optional<array> const& b, int k, std::string const& metric, std::string const& backend,
              std::uintptr_t stream)
{
  (void)row_dims_of(a, b);
  if (metric != "euclidean" && metric != "cosine") {
    throw nb::value_error(("twobody: metric must be 'euclidean' or 'cosine', not '" + metric + "'").c_str());
  }
  auto const partners = static_cast<long long>(b ? b->shape(0) : (a.shape(0) > 0 ? a.shape(0) - 1 : 0));
  if (k < 1 || k > partners) {
    throw nb::value_error(("twobody: k must be between 1 and the number of partners of a point (" + std::to_string(partners) +
                           "), not " + std::to_string(k))
                            .c_str());
  }
  auto const exec = policy_of(backend, stream);
  // Device results for device points on the GPU; the CPU backend reads and writes host memory.
  int const device = exec.where == twobody::backend::cpu ? -1 : device_of(a);
  device_scope scope(device_of(a));
  return with_row_type(a, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (metric == "cosine") { return nearest_typed<T>(a, b, k, twobody::cosine_distance{}, exec, device); }
    return nearest_typed<T>(a, b, k, twobody::euclidean{}, exec, device);
  });
}

}  // namespace

void bind_nearest(nb::module_& m)
{
  m.def("knn", &knn, "points"_a, "points_b"_a.none(), "k"_a, "metric"_a, "backend"_a, "stream"_a,
        "The k nearest neighbours of every point as ((n, k) int32 indices, (n, k) float32 distances). Use twobody.knn.");
}

}  // namespace twobody_py
