/// \file join_records.cuh
/// \brief The records joins emit by default: index pairs, and index pairs with a value. Device
/// code (and the run-time compiler, runtime_program.cuh) needs only these, not join_result.cuh.
#pragma once

#include <cuda/std/cstdint>

namespace twobody {

/// The default join record: the indices of a qualifying pair within A and B (self mode:
/// i < j). 32-bit indices: one join call takes fewer than 2^32 points per side.
struct index_pair {
  cuda::std::uint32_t i;
  cuda::std::uint32_t j;
};

/// A pair with a value the emitter computed (e.g. the distance of a similarity join).
template <class V>
struct index_pair_value {
  cuda::std::uint32_t i;
  cuda::std::uint32_t j;
  V value;
};

}  // namespace twobody
