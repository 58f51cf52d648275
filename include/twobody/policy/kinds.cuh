/// \file kinds.cuh
/// \brief How plans name policies: the statistics, and an input or output policy family by its
/// registered name (each policy type says which it is: `Input::kind`, `Output::kind`). Names,
/// not enumerators, so that a new policy is its header and one line in model/registry.cuh.
#pragma once

namespace twobody {

/// What is computed: the output families.
enum class statistic_kind {
  reduction,  ///< Type I: one value over all pairs (count_pairs, reduce_pairs)
  histogram,  ///< Type II: a histogram of known size (histogram)
  per_point,  ///< Type II with one value per point of A (sum_per_point)
  pair_list,  ///< Type III: a record per qualifying pair, size unknown in advance
  nearest     ///< the k nearest partners of each point of A (nearest_neighbors)
};

namespace detail {
constexpr bool same_name(char const* a, char const* b)
{
  if (a == b) { return true; }
  if (a == nullptr || b == nullptr) { return false; }
  while (*a != '\0' && *a == *b) { ++a, ++b; }
  return *a == *b;
}
}  // namespace detail

/// An input policy family (every shape of input::shared_tile is "shared_tile"): what plans,
/// candidates and TWOBODY_POLICY name. Two kinds are equal when their names are.
struct input_kind {
  char const* name;
  friend constexpr bool operator==(input_kind a, input_kind b) { return detail::same_name(a.name, b.name); }
  friend constexpr bool operator!=(input_kind a, input_kind b) { return !(a == b); }
};

/// An output policy family (the direct output buffer's page owners are one family). Two kinds
/// are equal when their names are.
struct output_kind {
  char const* name;
  friend constexpr bool operator==(output_kind a, output_kind b) { return detail::same_name(a.name, b.name); }
  friend constexpr bool operator!=(output_kind a, output_kind b) { return !(a == b); }
};

/// The statistics an output policy serves, as a bit set (`Output::statistics`).
constexpr unsigned serves(statistic_kind k) { return 1u << static_cast<unsigned>(k); }

/// The registered name of an input or output family.
constexpr char const* to_string(input_kind k) { return k.name; }
constexpr char const* to_string(output_kind k) { return k.name; }

}  // namespace twobody
