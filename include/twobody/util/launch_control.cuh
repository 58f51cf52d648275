/// \file launch_control.cuh
/// \brief What a kernel of a GPU call with a progress callback shares with the calling thread
/// (util/gpu_progress.cuh): the work units taken, and a flag that stops them. Compiles under
/// NVRTC (the engine includes it).
#pragma once

namespace twobody::detail {

/// Device memory a controlled launch shares with the calling thread.
struct launch_control {
  unsigned long long units;  ///< work units taken so far (all launches of the call, in steps of control_step)
  unsigned int stop;         ///< nonzero: take no more units
};

/// Units between two looks at a launch_control: a block reads the stop flag and adds to the count
/// once per control_step units it takes, so a controlled launch costs one barrier and one atomic
/// per control_step units (a tile pair is tens of thousands of pairs).
inline constexpr unsigned long long control_step = 8;

}  // namespace twobody::detail
