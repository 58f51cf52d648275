/// \file plan.cuh
/// \brief What the cost model plans with and what it returns: the problem (sizes, family,
/// output size), an input candidate (a compiled shape and its resources), the plan
/// (policy_plan: input, output, copies, passes, occupancy, predicted time), and the
/// TWOBODY_POLICY override that forces parts of it.
#pragma once

#include <twobody/model/histogram_plan.cuh>
#include <twobody/model/privatization.cuh>
#include <twobody/model/registry.cuh>
#include <twobody/points.cuh>
#include <twobody/util/device_info.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/occupancy.cuh>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace twobody {

/// Thresholds of the decision tree (bytes).
/// Outputs up to this size stay in registers (a float4 / int4: the largest type a thread
/// keeps in registers as one value; the paper's alpha).
inline constexpr long long register_output_max_bytes = 16;

inline char const* to_string(occupancy_limit l)
{
  switch (l) {
    case occupancy_limit::threads: return "threads";
    case occupancy_limit::registers: return "registers";
    case occupancy_limit::shared_memory: return "shared memory";
    default: return "blocks";
  }
}

/// The problem to plan: sizes, family and output size.
struct problem {
  statistic_kind kind = statistic_kind::histogram;
  pair_mode mode      = pair_mode::self;
  long long n_a = 0, n_b = 0;   ///< points of A and B (B = A in self and ordered mode)
  long long output_bytes = 0;   ///< reduction: the value's size; unknown (pair_list): -1
  int slots         = 0;        ///< histogram: bins + 1 (the outside slot)
  int counter_bytes = 4;        ///< histogram: bytes of one shared-memory counter
  int value_bytes   = 4;        ///< coordinate type (4: float, 8: double)
  int dims          = 3;
  /// What one pair's functor costs relative to squared_euclidean with distance_bins (the
  /// calibration's functor): relative_pair_cost<F> (value_traits.cuh). It scales the time of the
  /// shared-memory passes, not that of global atomics, whose rate does not depend on it.
  double pair_cost = 1.0;
  /// Histograms in passes over windows of ordered points: what a pair of a tile pair whole in a
  /// window costs relative to the calibration's functor there (detail::whole_window_cost_v).
  double whole_window_cost = 1.0;

  static problem histogram_of(pair_mode mode, long long n_a, long long n_b, int slots, int counter_bytes = 4,
                              int value_bytes = 4, int dims = 3)
  {
    problem p;
    p.kind          = statistic_kind::histogram;
    p.mode          = mode;
    p.n_a           = n_a;
    p.n_b           = n_b;
    p.slots         = slots;
    p.counter_bytes = counter_bytes;
    p.output_bytes  = static_cast<long long>(slots) * counter_bytes;
    p.value_bytes   = value_bytes;
    p.dims          = dims;
    return p;
  }
  static problem reduction_of(pair_mode mode, long long n_a, long long n_b, long long value_bytes_out,
                              int value_bytes = 4, int dims = 3)
  {
    problem p;
    p.kind         = statistic_kind::reduction;
    p.mode         = mode;
    p.n_a          = n_a;
    p.n_b          = n_b;
    p.output_bytes = value_bytes_out;
    p.value_bytes  = value_bytes;
    p.dims         = dims;
    return p;
  }
};

/// One compiled input policy the planner may pick, with its kernel's resources.
struct input_candidate {
  input_kind input      = input::shared_tile<>::kind;
  int block_threads     = 256;
  int points_per_thread = 4;
  int regs_per_thread   = 0;      ///< 0: unknown (not limited)
  std::size_t static_smem = 0;    ///< the tile's shared memory
  /// Histograms: the output the candidate's kernel was compiled with (warp_privatized, or the
  /// cluster_privatized and global_atomics kernels the one-call form compiles for some inputs).
  output_kind histogram_output = output::warp_privatized::kind;
  int column_groups = 1;  ///< thread groups that share each tile pair's columns (shared_tile)
  /// The virtual architecture its kernel was compiled from (10 x major + minor); 0: unknown (a
  /// description without a GPU). Cluster kernels compiled below 90 have no cluster code.
  int compiled_arch = 0;

  /// Threads that hold a tile's own points, and the points of a tile.
  int row_threads() const { return block_threads / column_groups; }
  long long tile_points() const { return static_cast<long long>(row_threads()) * points_per_thread; }

  std::string name() const
  {
    return std::string(to_string(input)) + "<" + std::to_string(block_threads) + ", " +
           std::to_string(points_per_thread) + (column_groups > 1 ? ", groups " + std::to_string(column_groups) : "") + ">" +
           (histogram_output == output::cluster_privatized::kind ? "+cluster"
            : histogram_output == output::global_atomics::kind   ? "+global_atomics"
                                                                : "");
  }
};

/// The H100 constants of an input candidate, from its registry entry (model/registry.cuh).
/// Other GPUs use these too: the choice depends on their ratios, the predicted seconds are
/// then rough.
inline cost_constants h100_constants(input_candidate const& c)
{
  cost_constants k{};
  model::for_each_input([&](auto e) {
    if (decltype(e)::kind == c.input) { k = decltype(e)::h100(c.row_threads(), c.points_per_thread); }
  });
  return k;
}

/// What choose_policy decided, and why.
struct policy_plan {
  input_candidate input;
  output_kind output   = output::registers::kind;
  int copies           = 0;   ///< warp_privatized: private copies per block; cluster_privatized: per share
  int passes           = 1;   ///< histograms: passes over all pairs (windows of the bin range)
  int window           = 0;   ///< histograms: slots counted per pass
  int cluster          = 0;   ///< cluster_privatized: blocks per thread-block cluster
  bool spill           = false;  ///< warp_privatized in one pass: slots window_begin .. + window in shared
                                 ///< memory, the others' updates to global atomics
  int window_begin     = 0;   ///< spill: the first slot of the shared window
  /// warp_privatized{1} in one pass over the cells of a periodic box (detail/cell_list_traversal.cuh):
  /// small self sets of a short-range statistic; `input` is then the tile plan it replaces.
  bool cell_list = false;
  std::size_t dynamic_smem = 0;
  occupancy occ;
  long long rounds          = 0;
  double predicted_seconds  = 0.0;
  bool forced               = false;  ///< TWOBODY_POLICY restricted the choice
  std::string reason;

  std::string to_string() const
  {
    std::ostringstream s;
    s << "input " << (cell_list ? std::string("cell_list") : input.name()) << ", output " << twobody::to_string(output);
    if (output == output::warp_privatized::kind) { s << "{" << copies << "}"; }
    if (output == output::cluster_privatized::kind) { s << "{" << cluster << " blocks, " << copies << " copies}"; }
    if (passes > 1) { s << " in " << passes << " passes of " << window << " slots"; }
    if (spill) { s << " over slots " << window_begin << ".." << window_begin + window - 1 << ", the others spilled to global atomics"; }
    if (cell_list) {  // (occupancy and prediction are the replaced tile plan's)
      s << "; " << reason;
      return s.str();
    }
    s << "; " << occ.blocks_per_sm << " blocks/SM (limited by " << twobody::to_string(occ.limit) << "), " << rounds
      << " rounds, predicted " << predicted_seconds * 1e3 << " ms" << (forced ? " [forced by TWOBODY_POLICY]" : "")
      << "; " << reason;
    return s.str();
  }
  friend std::ostream& operator<<(std::ostream& os, policy_plan const& p) { return os << p.to_string(); }
};

namespace model {

/// Parsed TWOBODY_POLICY (0 / unset: free).
struct policy_override {
  int copies            = 0;
  int points_per_thread = 0;
  int cluster           = -1;  ///< -1: free; 0: no clusters; 1..16: clusters of that many blocks
  bool has_input        = false;
  input_kind input      = input::shared_tile<>::kind;
  bool any() const { return copies != 0 || points_per_thread != 0 || cluster >= 0 || has_input; }
};

inline policy_override parse_policy_override(char const* text)
{
  policy_override o;
  if (text == nullptr || *text == '\0') { return o; }
  std::string s(text);
  std::size_t pos = 0;
  while (pos <= s.size()) {
    std::size_t const end = s.find(',', pos);
    std::string const item = s.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? s.size() + 1 : end + 1;
    if (item.empty()) { continue; }
    std::size_t const eq = item.find('=');
    TWOBODY_EXPECTS(eq != std::string::npos, ("TWOBODY_POLICY: expected key=value, got '" + item + "'").c_str());
    std::string const key = item.substr(0, eq), value = item.substr(eq + 1);
    auto as_int = [&](int lo, int hi) {
      char* endp  = nullptr;
      long const v = std::strtol(value.c_str(), &endp, 10);
      TWOBODY_EXPECTS(endp != value.c_str() && *endp == '\0' && v >= lo && v <= hi,
                      ("TWOBODY_POLICY: " + key + " must be an integer in [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "], got '" + value + "'").c_str());
      return static_cast<int>(v);
    };
    if (key == "copies") {
      o.copies = as_int(1, 32);
    } else if (key == "cluster") {
      o.cluster = as_int(0, 16);
    } else if (key == "points_per_thread") {
      o.points_per_thread = as_int(1, 64);
    } else if (key == "input") {
      o.has_input = true;
      bool known  = false;
      std::string names;
      model::for_each_input([&](auto e) {
        names += (names.empty() ? "" : ", ") + std::string(decltype(e)::name);
        if (value == decltype(e)::name) {
          o.input = decltype(e)::kind;
          known   = true;
        }
      });
      TWOBODY_EXPECTS(known, ("TWOBODY_POLICY: input must be one of " + names + ", got '" + value + "'").c_str());
    } else {
      TWOBODY_EXPECTS(false, ("TWOBODY_POLICY: unknown key '" + key + "' (known: input, points_per_thread, copies, cluster)").c_str());
    }
  }
  return o;
}

}  // namespace model
}  // namespace twobody
