#pragma once

#include <twobody/math/pass_windows.cuh>
#include <twobody/util/error.cuh>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace twobody::detail {

/// How a privatized histogram of `slots` counters is laid out in shared memory.
struct privatized_plan {
  int copies  = 1;  ///< private copies per block actually used
  int window  = 0;  ///< slots counted per pass
  int passes  = 1;  ///< passes over all pairs (more than one only past shared memory)
  std::size_t smem = 0;  ///< dynamic shared memory per block
  int cluster = 0;  ///< blocks of a thread-block cluster sharing one histogram (0: each block its own copies)
  bool spill  = false;     ///< one pass: slots window_begin .. + window in shared memory, the others to global atomics
  int window_begin = 0;    ///< spill: the first slot of the shared window
};

/// A tile pair of ordered points for the planner: bounds of its slots (tile_forms.cuh,
/// slot_bounds_of) and its pairs (a weight: a sampled tile pair stands for many).
struct tile_pair_slots {
  int lo       = 0;
  int hi       = 0;
  double pairs = 0.0;
  /// A sub-tile pair's: its tile pair's slots (the passes that stage it); -1: lo and hi.
  int tile_lo = -1;
  int tile_hi = -1;
};

/// What passes over `windows` do with tile pairs of these slots, as shares of their pairs: the
/// pairs counted whole in one window (each such tile pair is visited once), and the visits of the
/// others (each is visited by every pass whose own range meets its slots: their sum over passes).
struct pass_visits {
  double whole   = 0.0;
  double partial = 0.0;
  double staged  = 0.0;  ///< passes that stage a tile pair not whole in a window (to decide its sub-tile pairs), per pair
};
/// `by_sub_tiles`: whether the kernels decide the sub-tile pairs of tile pairs in no one window on
/// their own (else a sample's sub-tile pairs count as their tile pairs).
inline pass_visits visits_of(std::vector<tile_pair_slots> const& tile_pairs, pass_windows const& windows, bool by_sub_tiles = true)
{
  pass_visits v;
  double total = 0.0;
  for (tile_pair_slots const& t : tile_pairs) {
    total += t.pairs;
    // A sub-tile pair of a tile pair whole in a window is counted with it; of any other tile pair,
    // on its own slots, in each pass that stages the tile pair.
    bool const sub_tile = t.tile_lo >= 0;
    bool const on_own   = sub_tile && by_sub_tiles && windows.holding(t.tile_lo, t.tile_hi) < 0;
    if (on_own) { v.staged += t.pairs * windows.meeting(t.tile_lo, t.tile_hi); }
    int const lo = sub_tile && !on_own ? t.tile_lo : t.lo, hi = sub_tile && !on_own ? t.tile_hi : t.hi;
    if (windows.holding(lo, hi) >= 0) {
      v.whole += t.pairs;
    } else {
      v.partial += t.pairs * (windows.owner(hi) - windows.owner(lo) + 1);
    }
  }
  if (total > 0.0) {
    v.whole /= total;
    v.partial /= total;
    v.staged /= total;
  }
  return v;
}

/// Counters past the window that a windowed pass (passes or spill) adds: one per lane.
inline constexpr int window_spare_counters = 32;

/// The slots one copy of a window holds in `smem_limit` bytes of `counter_bytes` counters,
/// next to the lanes' spare counters (0 or less: none fits).
inline long long window_slots(std::size_t counter_bytes, std::size_t smem_limit)
{
  return static_cast<long long>(smem_limit / counter_bytes) - window_spare_counters;
}

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
    // One copy of a window per pass, and the lanes' spare counters past it (the pass's updates
    // outside its window add zero there: output/privatized_histogram.cuh).
    TWOBODY_EXPECTS(window_slots(counter_bytes, smem_limit) >= 1, "histogram: no shared memory for a window of the bins");
    p.copies = 1;
    p.window = static_cast<int>(window_slots(counter_bytes, smem_limit));
    p.passes = (slots + p.window - 1) / p.window;
  }
  p.smem = (static_cast<std::size_t>(p.window) * p.copies + (p.passes > 1 ? window_spare_counters : 0)) * counter_bytes;
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

/// A histogram of `slots` counters spread over clusters of `cluster` blocks (each block owns
/// every cluster-th slot, in `copies` lane copies), within `smem_limit` bytes per block: one
/// pass while the cluster's shares hold every slot, else equal windows of the bin range, one
/// pass each. Host-only arithmetic (output/cluster_histogram.cuh is the device side).
inline privatized_plan plan_cluster(int slots, int cluster, int copies, std::size_t counter_bytes, std::size_t smem_limit)
{
  TWOBODY_EXPECTS(slots >= 1, "histogram: need at least one bin");
  TWOBODY_EXPECTS(cluster >= 1 && cluster <= 16, "cluster_privatized: cluster_blocks must be in [1, 16]");
  TWOBODY_EXPECTS(copies >= 1 && copies <= 32, "cluster_privatized: copies must be in [1, 32]");
  std::size_t const per_slot = static_cast<std::size_t>(copies) * counter_bytes;
  TWOBODY_EXPECTS(counter_bytes > 0 && smem_limit >= per_slot,
                  "cluster_privatized: no shared memory for one slot of the copies; use fewer copies");
  long long const share_max = static_cast<long long>(smem_limit / per_slot);
  long long const window    = std::min<long long>(slots, share_max * cluster);
  privatized_plan p;
  p.cluster = cluster;
  p.copies  = copies;
  p.passes  = static_cast<int>((slots + window - 1) / window);
  p.window  = (slots + p.passes - 1) / p.passes;  // equal windows: the smallest shares that need no more passes
  p.smem    = static_cast<std::size_t>((p.window + cluster - 1) / cluster) * per_slot;
  return p;
}

/// One pass of one copy: the `window` slots from `begin` in shared memory (`counter_bytes`
/// each, plus the lanes' spare counters), every other slot's updates to global atomics.
inline privatized_plan plan_spill(int slots, int begin, int window, std::size_t counter_bytes)
{
  TWOBODY_EXPECTS(window >= 1 && begin >= 0 && begin + window <= slots, "histogram: the spill window is not inside the slots");
  privatized_plan p;
  p.copies       = 1;
  p.window       = window;
  p.passes       = 1;
  p.spill        = true;
  p.window_begin = begin;
  p.smem         = static_cast<std::size_t>(window + window_spare_counters) * counter_bytes;
  return p;
}

/// Where a spilling pass (plan_spill) should put its window, from a sample of the slots'
/// updates (`counts`, the last slot being the outside slot, which a spilling pass always counts
/// in shared memory): the first slot of the `window` consecutive slots holding the most of
/// the other slots' counts (the earliest among equals), the share of all counts spilled to
/// global atomics, and over how many slots the spilled updates spread (1 / the probability
/// that two spilled updates share a slot, estimated without bias; at most the spilled slots):
/// global atomics on few addresses serialize.
struct spill_window {
  int begin              = 0;
  double spilled_share   = 0.0;
  double spilled_slots   = 0.0;
};
inline spill_window densest_window(std::vector<unsigned long long> const& counts, int window)
{
  TWOBODY_EXPECTS(window >= 1, "histogram: a window needs at least one slot");
  TWOBODY_EXPECTS(!counts.empty(), "histogram: no slots to place a window in");
  int const slots = static_cast<int>(counts.size());
  auto count_of   = [&](int s) { return s == slots - 1 ? 0ull : counts[s]; };  // the outside slot stays in shared memory
  unsigned long long total = 0;
  for (unsigned long long c : counts) { total += c; }
  spill_window w;
  if (window >= slots || total == 0) { return w; }
  unsigned long long in = 0;
  for (int s = 0; s < window; ++s) { in += count_of(s); }
  unsigned long long best = in;
  for (int b = 1; b + window <= slots; ++b) {
    in += count_of(b + window - 1);
    in -= count_of(b - 1);
    if (in > best) {
      best    = in;
      w.begin = b;
    }
  }
  double spilled = 0.0, pairs_of_equal = 0.0;
  long long spilled_slots = 0;
  for (int s = 0; s < slots - 1; ++s) {
    if (s >= w.begin && s < w.begin + window) { continue; }
    double const c = static_cast<double>(counts[s]);
    spilled += c;
    pairs_of_equal += c * (c - 1.0);
    ++spilled_slots;
  }
  w.spilled_share = spilled / static_cast<double>(total);
  double const spread = pairs_of_equal > 0.0 ? spilled * (spilled - 1.0) / pairs_of_equal : static_cast<double>(spilled_slots);
  w.spilled_slots     = std::max(1.0, std::min(spread, static_cast<double>(spilled_slots)));
  return w;
}

}  // namespace twobody::detail
