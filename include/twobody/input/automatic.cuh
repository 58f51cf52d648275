/// \file automatic.cuh
/// \brief input::automatic: the tag that asks the cost model for the input policy.
#pragma once

namespace twobody {

namespace input {
/// The reductions' and counts' default: the cost model picks the input policy per problem
/// among the shapes the registry compiles for reductions (a small tile for small sets, whose
/// few points would leave a large tile mostly padding and the GPU mostly idle).
struct automatic {};
}  // namespace input

}  // namespace twobody
