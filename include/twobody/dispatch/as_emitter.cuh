/// \file as_emitter.cuh
/// \brief What a join takes for its records (emitters.cuh): an emitter as it is, a predicate as
/// emit_pairs_if of it; and the compile-time check of a record type.
#pragma once

#include <twobody/emitters.cuh>

#include <cuda/std/type_traits>
#include <cuda/std/utility>

namespace twobody {

namespace detail {

template <class X, class = void>
struct is_emitter : cuda::std::false_type {};
template <class X>
struct is_emitter<X, cuda::std::void_t<typename X::record_type>> : cuda::std::true_type {};

/// A predicate becomes emit_pairs_if; an emitter stays as it is.
template <class X>
auto as_emitter(X const& x)
{
  if constexpr (is_emitter<X>::value) {
    return x;
  } else {
    return emit_pairs_if<X>{x};
  }
}

template <class X>
using emitter_t = decltype(as_emitter(cuda::std::declval<X>()));

template <class Record>
constexpr void check_record()
{
  static_assert(cuda::std::is_trivially_copyable_v<Record>,
                "twobody::join: the record type must be trivially copyable (records are copied as bytes between "
                "device pages, drain buffers and host memory)");
}

}  // namespace detail

}  // namespace twobody
