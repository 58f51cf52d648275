/// \file privatization.cuh
/// \brief The latency model of H private histogram copies (Pitaksirianan et al., Eqs. 2-5)
/// and the run-time prediction built from it and the occupancy model.
///
/// With H copies per block, lane l updates copy l % H, so k = 32 / H lanes of a warp share
/// one copy. The birthday problem gives the chance that those k lanes hit distinct slots,
/// p_k = exp(-k(k-1) / (2 S)), and the latency of one update is
///     L(1, C) = C,   L(k, C) = p_k C + (1 - p_k) L(k - 1, C + C_LP),   L = L(k, C_L).
///
/// Bank layout: twobody stores the copies bin-major (counter (bin, copy) at word
/// bin * H + copy, output/privatized_histogram.cuh), so copy c lives only in the 32 / H banks
/// b with b % H == c. Two lanes of one copy then conflict when their bins agree modulo
/// 32 / H (same bank), not only when the bins are equal, and lanes of different copies never
/// conflict. S is therefore min(H_S, 32 / H), not H_S: with H = 1 the 32 lanes compete for
/// 32 banks whatever the number of bins.
#pragma once

#include <twobody/model/histogram_plan.cuh>
#include <twobody/policy/cost_constants.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/occupancy.cuh>

#include <algorithm>
#include <cmath>

namespace twobody {

namespace model {

/// p_k: probability that k lanes hit k distinct slots out of `slots` (Eq. 5).
inline double p_distinct(int k, double slots)
{
  TWOBODY_EXPECTS(k >= 1 && slots >= 1.0, "privatization model: need k >= 1 and at least one slot");
  return std::exp(-static_cast<double>(k) * (k - 1) / (2.0 * slots));
}

/// The exact birthday product of Eq. 4 (for tests of the approximation).
inline double p_distinct_exact(int k, double slots)
{
  double p = 1.0;
  for (int i = 1; i < k; ++i) { p *= std::max(0.0, (slots - i) / slots); }
  return p;
}

/// L(k, C): latency of one update when k lanes share a copy of `slots` bank-distinct slots (Eqs. 2-3).
inline double update_latency(int k, double slots, double c, double c_lp)
{
  if (k <= 1) { return c; }
  double const p = p_distinct(k, slots);
  return p * c + (1.0 - p) * update_latency(k - 1, slots, c + c_lp, c_lp);
}

/// Lanes of a warp that share one copy when a block keeps `copies` copies (1..32).
inline int lanes_per_copy(int copies) { return (32 + copies - 1) / copies; }

/// Slots among which the lanes of one copy can collide, given the bin-major layout: a
/// power-of-two H leaves each copy 32 / H banks (see the file comment).
inline double conflict_slots(int histogram_slots, int copies)
{
  bool const pow2 = copies > 0 && (copies & (copies - 1)) == 0;
  double const banks = pow2 ? 32.0 / copies : 32.0;  // other H: copies overlap in banks
  return std::min(static_cast<double>(histogram_slots), banks);
}

/// Latency of one update with `copies` copies of a histogram of `histogram_slots` slots.
inline double privatized_latency(int histogram_slots, int copies, privatization_constants const& k)
{
  return update_latency(lanes_per_copy(copies), conflict_slots(histogram_slots, copies), k.c_l, k.c_lp);
}

/// The private copies of a histogram of `slots` counters for kernel `k` (its registers and static
/// shared memory; k.dynamic_smem is ignored) whose time per pair is not modelled otherwise (the
/// grid traversal): among the H in {32, 16, ..., 1} whose copies fit in one pass, the least
/// update latency divided by the share of the full issue rate the resident warps reach, so
/// that copies which cost resident blocks only win when they save more conflicts than the lost
/// warps cost. Past shared memory: one copy in windows (several passes).
inline detail::privatized_plan choose_copies(int slots, std::size_t counter_bytes, kernel_resources k, device_info const& dev,
                                             privatization_constants const& c)
{
  TWOBODY_EXPECTS(dev.smem_per_block_optin > k.static_smem + counter_bytes, "histogram: no shared memory left for a counter");
  std::size_t const smem_left = dev.smem_per_block_optin - k.static_smem;
  detail::privatized_plan best = detail::plan_privatized(slots, 1, counter_bytes, smem_left);
  double best_cost             = -1.0;
  for (detail::privatized_plan const& layout : detail::one_pass_layouts(slots, counter_bytes, smem_left)) {
    k.dynamic_smem      = layout.smem;
    occupancy const occ = blocks_per_sm(dev, k);
    if (occ.blocks_per_sm == 0) { continue; }
    double const rate = std::min(1.0, occ.warps_per_sm(k.block_threads) / c.saturation_warps);
    double const cost = privatized_latency(layout.window, layout.copies, c) / rate;
    if (best_cost < 0.0 || cost < best_cost) {
      best      = layout;
      best_cost = cost;
    }
  }
  return best;
}

/// Blocks resident at once when the launch is made of clusters of `cluster` blocks (a cluster
/// runs whole or not at all; the grid is whole clusters).
inline long long cluster_resident_blocks(device_info const& dev, int blocks_per_sm, int cluster)
{
  long long const all = static_cast<long long>(blocks_per_sm) * dev.sm_count;
  return cluster > 1 ? all / cluster * cluster : all;
}

/// Latency of one update of a histogram shared by a cluster of `cluster` blocks, `copies` lane
/// copies per share (output/cluster_histogram.cuh): an update through the cluster window costs
/// local_factor times a block-private one, and the (cluster - 1) / cluster of the updates that
/// go to another SM's shared memory add remote + remote_per_doubling x log2(cluster / 2) each.
inline double cluster_latency(int window, int cluster, int copies, privatization_constants const& k,
                              cluster_constants const& cc)
{
  int const lanes    = std::max(1, lanes_per_copy(copies) / std::max(1, cluster));
  double const slots = conflict_slots((window + cluster - 1) / cluster, copies);
  double const local = cc.local_factor * update_latency(lanes, slots, k.c_l, k.c_lp);
  if (cluster <= 1) { return local; }
  double const remote = cc.remote + cc.remote_per_doubling * std::log2(cluster / 2.0);
  return local + (cluster - 1.0) / cluster * remote;
}

/// Predicted run time (seconds): rounds x the time one SM needs for one tile pair per
/// resident block (Eq. 1 and 2). Each SM shares its issue rate among its resident blocks,
/// so a round takes blocks x tile_pairs_points^2 x L, divided by the fraction of the full rate
/// that `warps` resident warps reach (min(1, warps / saturation_warps)).
///
/// With fewer work items than resident blocks (small sets), an SM holds only
/// ceil(items / SMs) blocks and the rate is that of their warps: the time is then the latency
/// of one block's pairs, which favours small tiles and many threads (a 2048-point tile leaves a
/// 256-point set one block).
///
/// `critical_extra` adds work items to the critical path: in self mode a block that holds a
/// diagonal tile pair takes (diagonal cost - 1) rounds longer (a diagonal tile pairs each own
/// point with different partners, so no shared load feeds several pairs), which decides the
/// tile shape when there are only a few rounds. `setup` is each block's fixed work in the
/// same units as pairs x latency (zeroing and flushing its private copies).
inline double predicted_seconds(long long work_items, long long pairs_per_item, occupancy const& occ, int block_threads,
                                int sm_count, double latency, privatization_constants const& k,
                                double critical_extra = 0.0, long long resident_blocks = 0, double setup = 0.0)
{
  if (work_items <= 0) { return 0.0; }
  TWOBODY_EXPECTS(occ.blocks_per_sm > 0, "privatization model: the kernel does not fit on an SM");
  long long const busy = std::min<long long>(occ.blocks_per_sm, (work_items + sm_count - 1) / sm_count);
  double const warps   = static_cast<double>(busy) * ((block_threads + 31) / 32);
  double const rate    = std::min(1.0, warps / k.saturation_warps);
  // resident_blocks: fewer than blocks_per_sm x sm_count where clusters leave SMs out.
  long long const r = resident_blocks > 0 ? (work_items + resident_blocks - 1) / resident_blocks
                                          : rounds(work_items, occ.blocks_per_sm, sm_count);
  return static_cast<double>(busy) *
         ((static_cast<double>(r) + critical_extra) * static_cast<double>(pairs_per_item) * latency + setup) / rate;
}

/// A block's fixed work with `copies` private copies of `window` counters, in pair-update
/// units of C_L: every counter is zeroed once and read once by the flush.
inline double copies_setup(int copies, int window, privatization_constants const& k)
{
  return 2.0 * copies * window * k.c_l;
}

}  // namespace model
}  // namespace twobody
