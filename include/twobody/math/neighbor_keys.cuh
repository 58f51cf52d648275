#pragma once

/// The entries of a k-nearest-neighbour list, the same on the CPU and the GPU: (score, index)
/// packed in 64 bits whose unsigned order is the lists' order, smaller score first and equal
/// scores by smaller index. The score is the metric's value for distances and its negation
/// for similarities (dot_product, cosine_similarity: larger is nearer), so that smaller is
/// nearer everywhere. An empty slot is ~0, above every entry (a memset of 0xff bytes).

#include <twobody/math/row_metric_kind.cuh>
#include <twobody/results.cuh>
#include <twobody/row_metrics.cuh>

#include <cuda/std/bit>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

#include <cstdint>
#include <vector>

namespace twobody::detail {

using neighbor_key                         = unsigned long long;
inline constexpr neighbor_key empty_neighbor = ~0ull;

/// Metrics whose larger values are nearer (their neighbours are the most similar points).
template <class Metric>
inline constexpr bool larger_is_nearer =
  cuda::std::is_same_v<Metric, dot_product> || cuda::std::is_same_v<Metric, cosine_similarity>;

__host__ __device__ constexpr bool larger_is_nearer_kind(row_metric_kind m)
{
  return m == row_metric_kind::dot_product || m == row_metric_kind::cosine_similarity;
}

/// Float bits mapped so that unsigned order is float order (-0 and +0 are one value).
__host__ __device__ inline std::uint32_t orderable_bits(float x)
{
  std::uint32_t const u = cuda::std::bit_cast<std::uint32_t>(x == 0.0f ? 0.0f : x);
  return (u & 0x80000000u) != 0 ? ~u : (u | 0x80000000u);
}

__host__ __device__ inline float from_orderable_bits(std::uint32_t o)
{
  return cuda::std::bit_cast<float>((o & 0x80000000u) != 0 ? (o & 0x7fffffffu) : ~o);
}

/// The key of partner j at `score` (not NaN: a pair with a NaN value is never a neighbour).
__host__ __device__ inline neighbor_key make_neighbor_key(float score, std::uint32_t j)
{
  return (static_cast<neighbor_key>(orderable_bits(score)) << 32) | j;
}

/// The partner's index; -1 for an empty slot.
__host__ __device__ inline std::int32_t neighbor_index(neighbor_key k)
{
  return k == empty_neighbor ? -1 : static_cast<std::int32_t>(static_cast<std::uint32_t>(k));
}

/// The score; +inf for an empty slot.
__host__ __device__ inline float neighbor_score(neighbor_key k)
{
  return k == empty_neighbor ? cuda::std::numeric_limits<float>::infinity()
                             : from_orderable_bits(static_cast<std::uint32_t>(k >> 32));
}

/// The metric value a key stands for (an empty slot: +inf, or -inf where larger is nearer).
__host__ __device__ inline float neighbor_value(neighbor_key k, bool larger_nearer)
{
  float const s = neighbor_score(k);
  return larger_nearer ? -s : s;
}

/// Indices and values of a size x k array of keys.
inline neighbors_result decode_neighbors(std::vector<neighbor_key> const& keys, size_type size, int k, bool larger_nearer)
{
  neighbors_result r;
  r.size = size;
  r.k    = k;
  r.indices.resize(keys.size());
  r.values.resize(keys.size());
  for (std::size_t q = 0; q < keys.size(); ++q) {
    r.indices[q] = neighbor_index(keys[q]);
    r.values[q]  = neighbor_value(keys[q], larger_nearer);
  }
  return r;
}

}  // namespace twobody::detail
