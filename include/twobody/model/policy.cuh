/// \file policy.cuh
/// \brief Automatic policy choice: the decision tree of Pitaksirianan et al. (Fig. 9) with
/// the number of private copies and the tile shape from the cost model.
///
///     auto plan = twobody::choose_policy(twobody::problem::histogram_of(twobody::pair_mode::self, n, n, 257));
///     std::cout << plan;   // input, output, copies, occupancy, rounds, predicted time
///
/// The one-call histogram and sum_per_point plan this way with the real register and
/// shared-memory figures of their compiled kernels (plan_histogram, plan_sum_per_point);
/// the reductions compile one input, the one this tree picks for them. For experiments, the
/// environment variable TWOBODY_POLICY forces parts of the choice, e.g.
/// `TWOBODY_POLICY=copies=8`, `TWOBODY_POLICY=input=shuffle_tile,copies=4` or
/// `TWOBODY_POLICY=points_per_thread=4` (keys: input, points_per_thread, copies, and cluster:
/// 0 keeps histograms off thread-block clusters, 1..16 forces clusters of that many blocks).
#pragma once

#include <twobody/model/histogram_plan.cuh>
#include <twobody/model/plan.cuh>
#include <twobody/model/privatization.cuh>
#include <twobody/model/registry.cuh>
#include <twobody/points.cuh>
#include <twobody/util/device_info.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/memo.cuh>
#include <twobody/util/occupancy.cuh>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace twobody {
namespace model {

/// Work items (tile pairs) of a problem for tiles of `tile` points, and pairs per item.
inline long long tile_pairs(problem const& p, long long tile)
{
  long long const ra = (p.n_a + tile - 1) / tile;
  long long const rb = p.mode == pair_mode::cross ? (p.n_b + tile - 1) / tile : ra;
  return p.mode == pair_mode::self ? ra * (ra + 1) / 2 : ra * rb;
}

/// Pairs of a problem.
inline double pair_count(problem const& p)
{
  double const a = static_cast<double>(p.n_a), b = static_cast<double>(p.n_b);
  return p.mode == pair_mode::self ? a * (a - 1) / 2 : p.mode == pair_mode::ordered ? a * (a - 1) : a * b;
}

/// Extra rounds on the critical path from a diagonal tile pair (self mode only).
inline double diagonal_extra(problem const& p, cost_constants const& k)
{
  return p.mode == pair_mode::self ? k.diagonal_cost - 1.0 : 0.0;
}

/// What a histogram layout's predicted time starts from on candidate `c`: its constants, its
/// tile (points per block) and the tile pairs of `p`.
struct layout_basis {
  cost_constants k;
  long long tile;
  long long items;
  std::size_t counter_bytes;
  std::size_t smem_left;  ///< dynamic shared memory a block may take next to the kernel's own
};
inline layout_basis layout_basis_of(problem const& p, device_info const& dev, input_candidate const& c)
{
  long long const tile = c.tile_points();
  return {h100_constants(c), tile, tile_pairs(p, tile), static_cast<std::size_t>(p.counter_bytes),
          dev.smem_per_block_optin > c.static_smem ? dev.smem_per_block_optin - c.static_smem : 0};
}

/// Pairs a tiled launch evaluates: every pair, or more where the tile's padding takes part
/// (small sets: the padding's pairs take their updates too).
inline double visited_pairs(problem const& p, long long tile, long long items)
{
  return std::max(pair_count(p), static_cast<double>(items) * static_cast<double>(tile * tile) *
                                   (p.mode == pair_mode::self ? 0.5 : 1.0));
}

/// The cluster-shared histogram layout (output::cluster_privatized) of least predicted time for
/// candidate `c` (a cluster kernel): clusters of 2, 4, 8 or 16 blocks (or `cluster` when not 0)
/// and 1..32 copies per share (or `copies` when not 0), in as few passes as the cluster's shared
/// memory allows. A plan with infinite predicted time when nothing fits.
inline policy_plan choose_cluster_layout(problem const& p, device_info const& dev, input_candidate const& c, int cluster = 0,
                                         int copies = 0)
{
  policy_plan best;
  best.predicted_seconds = std::numeric_limits<double>::infinity();
  auto const [k, tile, items, counter_bytes, smem_left] = layout_basis_of(p, dev, c);
  for (int cl : {2, 4, 8, 16, 1}) {
    if (cluster != 0 ? cl != cluster : cl == 1) { continue; }
    for (int h = 1; h <= 32; h *= 2) {
      if ((copies != 0 && h != copies) || smem_left < h * counter_bytes) { continue; }
      detail::privatized_plan const layout = detail::plan_cluster(p.slots, cl, h, counter_bytes, smem_left);
      occupancy const occ = blocks_per_sm(dev, {c.block_threads, c.regs_per_thread, c.static_smem, layout.smem});
      if (occ.blocks_per_sm == 0) { continue; }
      long long const resident = cluster_resident_blocks(dev, occ.blocks_per_sm, cl);
      if (resident == 0) { continue; }
      double const lat = cluster_latency(layout.window, cl, h, k.histogram, k.cluster) * p.pair_cost;
      double const t   = layout.passes * predicted_seconds(items, tile * tile, occ, c.block_threads, dev.sm_count, lat,
                                                           k.histogram, diagonal_extra(p, k), resident);
      if (t < best.predicted_seconds) {
        best                   = policy_plan{};
        best.input             = c;
        best.output            = output::cluster_privatized::kind;
        best.cluster           = cl;
        best.copies            = h;
        best.passes            = layout.passes;
        best.window            = layout.window;
        best.dynamic_smem      = layout.smem;
        best.occ               = occ;
        best.rounds            = layout.passes * ((items + resident - 1) / resident);
        best.predicted_seconds = t;
        std::ostringstream why;
        why << p.slots << " slots x " << p.counter_bytes << " B over the shared memory of " << cl
            << " blocks (a thread-block cluster), " << (cl - 1) << " of " << cl << " updates remote";
        best.reason = why.str();
      }
    }
  }
  return best;
}

/// The shared memory a block of candidate `c` may take for its counters when `blocks` blocks
/// share an SM (0 where not even that fits).
inline std::size_t smem_for_blocks(device_info const& dev, input_candidate const& c, int blocks)
{
  std::size_t const per_block = dev.smem_per_sm / static_cast<std::size_t>(blocks);
  std::size_t const taken     = dev.reserved_smem_per_block + c.static_smem;
  std::size_t const fit       = per_block > taken ? per_block - taken : 0;
  return std::min(fit, dev.smem_per_block_optin > c.static_smem ? dev.smem_per_block_optin - c.static_smem : 0);
}

/// The layout of `copies` copies of the widest window that `blocks` blocks per SM hold (window 0
/// where none fits).
inline detail::privatized_plan ordered_passes_layout(problem const& p, device_info const& dev, input_candidate const& c, int copies,
                                                     int blocks)
{
  std::size_t const counter_bytes = static_cast<std::size_t>(p.counter_bytes);
  long long const window =
    (static_cast<long long>(smem_for_blocks(dev, c, blocks) / counter_bytes) - detail::window_spare_counters) / copies;
  detail::privatized_plan layout;
  layout.copies = copies;
  layout.window = static_cast<int>(std::max(0ll, std::min<long long>(window, p.slots)));
  layout.passes = layout.window > 0 ? static_cast<int>((p.slots + layout.window - 1) / layout.window) : 0;
  layout.smem   = (static_cast<std::size_t>(layout.window) * copies + detail::window_spare_counters) * counter_bytes;
  return layout;
}

/// The predicted time of passes over spread windows (`layout`: copies, window, passes) on ordered
/// points whose tile pairs the passes visit as `v` says (see choose_ordered_passes); infinite
/// where the layout does not fit. `occ_out`: the occupancy.
inline double ordered_passes_seconds(problem const& p, device_info const& dev, input_candidate const& c,
                                     detail::privatized_plan const& layout, detail::pass_visits const& v, occupancy* occ_out = nullptr)
{
  auto const [k, tile, items, counter_bytes, smem_left] = layout_basis_of(p, dev, c);
  (void)counter_bytes;
  occupancy const occ = blocks_per_sm(dev, {c.block_threads, c.regs_per_thread, c.static_smem, layout.smem});
  if (occ_out != nullptr) { *occ_out = occ; }
  if (occ.blocks_per_sm == 0 || layout.window < 1 || layout.smem > smem_left) { return std::numeric_limits<double>::infinity(); }
  double const lat    = privatized_latency(layout.window, layout.copies, k.histogram) * p.pair_cost;
  double const t_pass = predicted_seconds(items, tile * tile, occ, c.block_threads, dev.sm_count, lat, k.histogram,
                                          diagonal_extra(p, k), 0, copies_setup(layout.copies, layout.window, k.histogram));
  double const per_block = static_cast<double>(items) / (static_cast<double>(occ.blocks_per_sm) * dev.sm_count);
  double const scan      = per_block * k.skipped_tile_pair_seconds;
  double const staging   = per_block * v.staged * k.staged_tile_pair_seconds * static_cast<double>(tile) / 1024.0;
  return t_pass * (v.whole * k.whole_window_factor * p.whole_window_cost + v.partial * k.window_pass_factor) +
         layout.passes * scan + staging;
}

/// Passes over spread windows of the bins on points ordered into tiles (detail::pass_windows): of
/// the layouts of 1, 2 or 4 copies of a window that one or two blocks per SM hold, in as many
/// passes as fit and more, up to twice as many and 4 (more passes overlap the windows more, so
/// that more tile pairs lie whole in one), the one of least predicted time. `visits(windows)` says what share of the pairs
/// such windows count whole in one pass and how many times the others are visited
/// (detail::visits_of on the tile pairs' sampled slots). A whole tile pair costs what one pass
/// of the layout costs per pair (its slots need no window test); the others cost a windowed
/// pass's (window_pass_factor); each pass also looks at every tile pair. Infinite when nothing fits.
template <class Visits>
policy_plan choose_ordered_passes(problem const& p, device_info const& dev, input_candidate const& c, Visits&& visits)
{
  policy_plan best;
  best.predicted_seconds = std::numeric_limits<double>::infinity();
  long long const items  = tile_pairs(p, c.tile_points());
  for (int blocks : {1, 2}) {
    for (int h : {1, 2, 4}) {
      detail::privatized_plan layout = ordered_passes_layout(p, dev, c, h, blocks);
      if (layout.window < 1 || layout.window >= p.slots) { continue; }
      int const fewest = layout.passes;
      // (Each count of passes is a pass over the sample on the host: the planner's time.)
      for (int passes = std::max(2, fewest); passes <= std::min(2 * fewest + 4, 64); ++passes) {
        layout.passes               = passes;
        detail::pass_visits const v = visits(detail::pass_windows{p.slots, layout.window, passes});
        occupancy occ{};
        double const t = ordered_passes_seconds(p, dev, c, layout, v, &occ);
        if (t < best.predicted_seconds) {
          best                   = policy_plan{};
          best.input             = c;
          best.output            = output::warp_privatized::kind;
          best.copies            = layout.copies;
          best.passes            = passes;
          best.window            = layout.window;
          best.dynamic_smem      = layout.smem;
          best.occ               = occ;
          best.rounds            = passes * rounds(items, occ.blocks_per_sm, dev.sm_count);
          best.predicted_seconds = t;
          std::ostringstream why;
          why << p.slots << " slots x " << p.counter_bytes << " B on ordered tiles: " << passes << " windows of " << layout.window
              << " slots hold " << 100.0 * v.whole << "% of the pairs' tile pairs whole; the others are visited "
              << v.partial << " times per pair";
          best.reason = why.str();
        }
      }
    }
  }
  return best;
}

/// The spilling layout (one copy of `window` slots from `begin` in shared memory, the other
/// slots' updates to global atomics, one pass) on candidate `c` (a spill kernel), where a share
/// `spilled_share` of the updates goes to global atomics, spread over `spilled_slots` slots
/// (both sampled: detail::densest_window): the one-pass time of a one-copy window plus the
/// global atomics of the spilled pairs, at the global-atomics rate for these bins or, where
/// they spread over few slots, at the rate of updates serialized on those slots.
/// Infinite when nothing fits.
inline policy_plan choose_spill_layout(problem const& p, device_info const& dev, input_candidate const& c, int begin,
                                       int window, double spilled_share, double spilled_slots)
{
  policy_plan best;
  best.predicted_seconds = std::numeric_limits<double>::infinity();
  auto const [k, tile, items, counter_bytes, smem_left] = layout_basis_of(p, dev, c);
  detail::privatized_plan const layout = detail::plan_spill(p.slots, begin, window, counter_bytes);
  if (layout.smem > smem_left) { return best; }
  occupancy const occ = blocks_per_sm(dev, {c.block_threads, c.regs_per_thread, c.static_smem, layout.smem});
  if (occ.blocks_per_sm == 0) { return best; }
  double const lat      = privatized_latency(layout.window, 1, k.histogram) * k.spill_pass_factor;
  double const t_shared = predicted_seconds(items, tile * tile, occ, c.block_threads, dev.sm_count, lat, k.histogram,
                                            diagonal_extra(p, k), 0, copies_setup(1, layout.window, k.histogram));
  double const visited  = visited_pairs(p, tile, items);
  // Spread updates cost what global atomics over these bins do; updates on few slots serialize.
  double const per_update = std::max(k.global.per_pair + k.global.per_pair_per_slot_inverse / p.slots,
                                     k.global.one_address_per_update / std::max(1.0, spilled_slots));
  double const t_global   = spilled_share * visited * per_update;
  // The global atomics are fire-and-forget: a functor dearer than the calibration's runs its
  // extra arithmetic while the L2 takes them ((r_p, pi) at 262144 bins: 4.04 s measured against
  // 5.2 s for the sum; SDH, cost 1: the sum).
  double const t_spill    = std::max(t_shared * p.pair_cost, t_shared + t_global);
  best.input             = c;
  best.output            = output::warp_privatized::kind;
  best.copies            = 1;
  best.window            = layout.window;
  best.window_begin      = begin;
  best.spill             = true;
  best.dynamic_smem      = layout.smem;
  best.occ               = occ;
  best.rounds            = rounds(items, occ.blocks_per_sm, dev.sm_count);
  best.predicted_seconds = t_spill;
  std::ostringstream why;
  why << p.slots << " slots x " << p.counter_bytes << " B: " << layout.window << " and the outside slot in shared memory hold "
      << 100.0 * (1.0 - spilled_share) << "% of a sample of the pairs, the rest spill to global atomics";
  best.reason = why.str();
  return best;
}

}  // namespace model

/// The candidates the one-call forms compile for a problem (model/registry.cuh: the shapes
/// each input policy registers for the statistic and the point type), with the registers
/// their sm_90 kernels use, for planning without a GPU.
inline std::vector<input_candidate> default_candidates(problem const& p)
{
  unsigned const use = p.kind == statistic_kind::histogram   ? policy::for_histogram
                       : p.kind == statistic_kind::per_point ? policy::for_per_point
                                                             : policy::for_reduction;
  std::size_t const point_bytes = static_cast<std::size_t>(p.value_bytes) * (p.dims <= 3 ? 4 : p.dims);
  std::vector<input_candidate> c;
  model::for_each_input([&](auto e) {
    using entry = decltype(e);
    policy::for_each_shape(typename entry::one_call{}, [&](auto shape) {
      using S = decltype(shape);
      if (!policy::fits(S::fit, p.value_bytes, p.dims)) { return; }
      std::size_t const tile_bytes =
        entry::tile_in_shared_memory
          ? static_cast<std::size_t>(S::block_threads / S::column_groups) * S::points_per_thread * point_bytes
          : 0;
      auto add = [&](output_kind out) {
        c.push_back({entry::kind, S::block_threads, S::points_per_thread, S::sm90_registers, tile_bytes, out, S::column_groups});
      };
      if ((S::uses & use) != 0) { add(output::warp_privatized::kind); }
      if (p.kind == statistic_kind::histogram && (S::uses & policy::for_cluster_histogram) != 0) {
        add(output::cluster_privatized::kind);
      }
      if (p.kind == statistic_kind::histogram && (S::uses & policy::for_global_histogram) != 0) {
        add(output::global_atomics::kind);
      }
    });
  });
  return c;
}

/// Plans `p` on `dev` among `candidates` (the input policies compiled for it).
///  1. Unknown output size (Type III) -> direct output buffer.
///  2. Output of at most register_output_max_bytes (Type I) -> registers; per-point
///     statistics -> per-point register sums. Input: the candidate with the least predicted
///     time (the tile shape matters for small N, where few tile pairs leave SMs idle).
///  3. Histograms -> warp_privatized with the (input, copies) of least predicted time:
///     H in {32, 16, 8, 4, 2, 1} where the copies fit next to the input's tile; one copy in
///     several passes when even one copy does not fit. The shared tile wins while tile plus
///     copies leave the occupancy at its register limit; the shuffle tile (no shared memory)
///     when the copies need the tile's shared memory.
inline policy_plan choose_policy(problem const& p, device_info const& dev, std::vector<input_candidate> candidates)
{
  TWOBODY_EXPECTS(p.n_a >= 0 && p.n_b >= 0, "choose_policy: negative sizes");
  TWOBODY_EXPECTS(dev.sm_count > 0, "choose_policy: incomplete device description");
  model::policy_override const force = model::parse_policy_override(std::getenv("TWOBODY_POLICY"));
  std::vector<input_candidate> allowed;
  for (auto const& c : candidates) {
    if (force.has_input && c.input != force.input) { continue; }
    if (force.points_per_thread != 0 && c.points_per_thread != force.points_per_thread) { continue; }
    allowed.push_back(c);
  }
  std::string const available = [&] {
    std::string s;
    for (auto const& c : candidates) { s += (s.empty() ? "" : ", ") + c.name(); }
    return s;
  }();
  TWOBODY_EXPECTS(!candidates.empty(), "choose_policy: no input candidates");
  TWOBODY_EXPECTS(!allowed.empty(),
                  ("TWOBODY_POLICY asks for an input this call was not compiled with (available: " + available + ")").c_str());

  policy_plan best;
  best.forced            = force.any();
  best.predicted_seconds = std::numeric_limits<double>::infinity();

  if (p.kind == statistic_kind::pair_list || p.output_bytes < 0) {
    // The first candidate that launches on this GPU (a large tile may not: a T4's 64 KiB).
    for (auto const& c : allowed) {
      occupancy const occ = model::blocks_per_sm(dev, {c.block_threads, c.regs_per_thread, c.static_smem, 0});
      if (occ.blocks_per_sm > 0) {
        best.input = c;
        best.occ   = occ;
        break;
      }
    }
    TWOBODY_EXPECTS(best.occ.blocks_per_sm > 0, "choose_policy: no input candidate fits on this GPU");
    best.output = output::direct_output_buffer<>::kind;
    best.predicted_seconds = 0.0;
    best.reason = "output size unknown: pages of a direct output buffer";
    return best;
  }

  if (p.kind != statistic_kind::histogram) {
    TWOBODY_EXPECTS(p.kind == statistic_kind::per_point || p.output_bytes <= register_output_max_bytes,
                    "choose_policy: a reduction's value must fit in registers (at most 16 bytes); "
                    "larger outputs are histograms");
    for (auto const& c : allowed) {
      occupancy const occ = model::blocks_per_sm(dev, {c.block_threads, c.regs_per_thread, c.static_smem, 0});
      if (occ.blocks_per_sm == 0) { continue; }
      long long const tile  = c.tile_points();
      long long const items = model::tile_pairs(p, tile);
      cost_constants const k = h100_constants(c);
      privatization_constants const rk{k.reduction_c_l * p.pair_cost, 0.0, k.histogram.saturation_warps};
      double const t = model::predicted_seconds(items, tile * tile, occ, c.block_threads, dev.sm_count, rk.c_l, rk,
                                                model::diagonal_extra(p, k));
      if (t < best.predicted_seconds) {
        best.input             = c;
        best.occ               = occ;
        best.rounds            = model::rounds(items, occ.blocks_per_sm, dev.sm_count);
        best.predicted_seconds = t;
      }
    }
    TWOBODY_EXPECTS(best.occ.blocks_per_sm > 0, "choose_policy: no input candidate fits on this GPU");
    best.output = p.kind == statistic_kind::per_point ? output::per_point_sum::kind : output::registers::kind;
    best.reason = p.kind == statistic_kind::per_point ? "one value per point: per-thread register sums"
                                                      : "output of at most 16 bytes: registers";
    return best;
  }

  TWOBODY_EXPECTS(p.slots >= 1 && p.counter_bytes >= 1, "choose_policy: a histogram needs slots and counter bytes");
  auto const counter_bytes = static_cast<std::size_t>(p.counter_bytes);
  bool const clusters      = dev.cc_major >= 9 && force.cluster != 0;
  for (auto const& c : allowed) {
    if (c.histogram_output == output::cluster_privatized::kind) {
      if (!clusters || (c.compiled_arch != 0 && c.compiled_arch < 90)) { continue; }
      policy_plan const plan = model::choose_cluster_layout(p, dev, c, force.cluster > 0 ? force.cluster : 0, force.copies);
      if (plan.predicted_seconds < best.predicted_seconds) { best = plan; }
      continue;
    }
    if (force.cluster > 0) { continue; }
    cost_constants const k = h100_constants(c);
    if (c.histogram_output == output::global_atomics::kind) {
      occupancy const occ = model::blocks_per_sm(dev, {c.block_threads, c.regs_per_thread, c.static_smem, 0});
      if (force.copies != 0 || occ.blocks_per_sm == 0) { continue; }
      // One L2 atomic per pair: the whole GPU's atomic rate, lower where few bins take them all.
      // Small sets pay for the tile's padding too (the padding's pairs take their atomics).
      long long const tile_g = c.tile_points();
      double const visited   = model::visited_pairs(p, tile_g, model::tile_pairs(p, tile_g));
      double const t = visited * (k.global.per_pair + k.global.per_pair_per_slot_inverse / p.slots);
      if (t < best.predicted_seconds) {
        best                   = policy_plan{};
        best.input             = c;
        best.output            = output::global_atomics::kind;
        best.window            = p.slots;
        best.occ               = occ;
        best.rounds            = model::rounds(model::tile_pairs(p, c.tile_points()), occ.blocks_per_sm, dev.sm_count);
        best.predicted_seconds = t;
        best.reason = std::to_string(p.slots) + " slots: one global atomic per pair beats passes over windows of the bins";
      }
      continue;
    }
    long long const tile   = c.tile_points();
    long long const items  = model::tile_pairs(p, tile);
    std::size_t const smem_left = dev.smem_per_block_optin > c.static_smem ? dev.smem_per_block_optin - c.static_smem : 0;
    if (smem_left < counter_bytes) { continue; }
    // The layouts come from the rule the launch itself applies (detail::plan_privatized).
    auto consider = [&](detail::privatized_plan const& layout) {
      occupancy const occ = model::blocks_per_sm(dev, {c.block_threads, c.regs_per_thread, c.static_smem, layout.smem});
      if (occ.blocks_per_sm == 0) { return; }
      // Passes over windows (one copy, past shared memory) run slower per pair than one pass of the
      // same layout (measured: policy::h100_window_pass_factor).
      double const lat = model::privatized_latency(layout.window, layout.copies, k.histogram) *
                         (layout.passes > 1 ? k.window_pass_factor : 1.0) * p.pair_cost;
      double const t   = layout.passes * model::predicted_seconds(items, tile * tile, occ, c.block_threads, dev.sm_count,
                                                                  lat, k.histogram, model::diagonal_extra(p, k), 0,
                                                                  model::copies_setup(layout.copies, layout.window, k.histogram));
      if (t < best.predicted_seconds) {
        best                   = policy_plan{};
        best.input             = c;
        best.output            = output::warp_privatized::kind;
        best.copies            = layout.copies;
        best.passes            = layout.passes;
        best.window            = layout.window;
        best.dynamic_smem      = layout.smem;
        best.occ               = occ;
        best.rounds            = layout.passes * model::rounds(items, occ.blocks_per_sm, dev.sm_count);
        best.predicted_seconds = t;
        std::ostringstream why;
        why << p.slots << " slots x " << p.counter_bytes << " B: " << model::lanes_per_copy(layout.copies)
            << " lanes per copy over " << model::conflict_slots(layout.window, layout.copies) << " bank-distinct slots";
        best.reason = why.str();
      }
    };
    bool any_fit = false;
    for (detail::privatized_plan const& layout : detail::one_pass_layouts(p.slots, counter_bytes, smem_left)) {
      if (force.copies != 0 && layout.copies != force.copies) { continue; }
      any_fit = true;
      consider(layout);
    }
    if (!any_fit && (force.copies == 0 || force.copies == 1)) {
      // Past shared memory: one copy, the bin range in windows, one pass over all pairs each.
      consider(detail::plan_privatized(p.slots, 1, counter_bytes, smem_left));
    }
  }
  TWOBODY_EXPECTS(best.occ.blocks_per_sm > 0,
                  force.cluster > 0 && dev.cc_major < 9 ? "TWOBODY_POLICY: cluster needs compute capability 9.0 or newer"
                  : force.cluster > 0                   ? "TWOBODY_POLICY: no cluster layout of that size fits, or no input was compiled for clusters"
                  : force.copies != 0 ? "TWOBODY_POLICY: the forced number of copies does not fit in shared memory"
                                      : "choose_policy: no composition fits on this GPU");
  best.forced = force.any();
  return best;
}

namespace model {

/// The bytes of a problem, a device ordinal and TWOBODY_POLICY: what a plan cache is keyed by.
inline std::string problem_key(problem const& p, int device, char const* policy_env)
{
  return twobody::detail::key_bytes(p.kind, p.mode, p.n_a, p.n_b, p.output_bytes, p.slots, p.counter_bytes, p.value_bytes, p.dims,
                           p.pair_cost, device) +
         (policy_env != nullptr ? policy_env : "");
}

}  // namespace model

/// Plans `p` on `dev` with the library's default candidates.
inline policy_plan choose_policy(problem const& p, device_info const& dev = device_info::get())
{
  return choose_policy(p, dev, default_candidates(p));
}

}  // namespace twobody
