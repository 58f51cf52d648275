#pragma once

#include <twobody/detail/error.cuh>

#include <cstddef>
#include <vector>

namespace twobody::detail {

/// How a privatized histogram of `slots` counters is laid out in shared memory.
struct privatized_plan {
  int copies  = 1;  ///< private copies per block actually used
  int window  = 0;  ///< slots counted per pass
  int passes  = 1;  ///< passes over all pairs (more than one only past shared memory)
  std::size_t smem = 0;  ///< dynamic shared memory per block
};

/// Fits `copies_wanted` copies of `slots` counters of `counter_bytes` into `smem_limit`
/// bytes: fewer copies when they do not fit, and several passes over windows of the bin
/// range when even one copy does not fit. Host-only arithmetic (unit-tested without a GPU).
inline privatized_plan plan_privatized(int slots, int copies_wanted, std::size_t counter_bytes, std::size_t smem_limit)
{
  TWOBODY_EXPECTS(slots >= 1, "histogram: need at least one bin");
  TWOBODY_EXPECTS(copies_wanted >= 1 && copies_wanted <= 32, "warp_privatized: copies must be in [1, 32]");
  TWOBODY_EXPECTS(counter_bytes > 0 && smem_limit >= counter_bytes, "histogram: no shared memory for even one counter");
  privatized_plan p;
  std::size_t const per_copy = static_cast<std::size_t>(slots) * counter_bytes;
  if (per_copy <= smem_limit) {
    std::size_t const fit = smem_limit / per_copy;
    p.copies = static_cast<int>(fit < static_cast<std::size_t>(copies_wanted) ? fit : copies_wanted);
    p.window = slots;
    p.passes = 1;
  } else {
    p.copies = 1;
    p.window = static_cast<int>(smem_limit / counter_bytes);
    p.passes = (slots + p.window - 1) / p.window;
  }
  p.smem = static_cast<std::size_t>(p.window) * p.copies * counter_bytes;
  return p;
}

/// The layouts of H = 32, 16, 8, 4, 2, 1 copies that fit whole in `smem_limit` (one pass over
/// the pairs each), most copies first: what a planner chooses among before it falls back to
/// one copy in windows.
inline std::vector<privatized_plan> one_pass_layouts(int slots, std::size_t counter_bytes, std::size_t smem_limit)
{
  std::vector<privatized_plan> fit;
  for (int h = 32; h >= 1; h /= 2) {
    privatized_plan const layout = plan_privatized(slots, h, counter_bytes, smem_limit);
    if (layout.copies == h && layout.passes == 1) { fit.push_back(layout); }
  }
  return fit;
}

}  // namespace twobody::detail
