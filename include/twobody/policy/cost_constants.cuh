/// \file cost_constants.cuh
/// \brief The cost model's constants an input policy family gives for one GPU (`Family::h100`),
/// and the H100 constants every family shares. Each constant names the benchmark row that
/// reproduces it (`bench_cost_model --calibrate` writes the calibrated ones).
#pragma once

namespace twobody {

/// The privatized histograms' constants (model/privatization.cuh).
struct privatization_constants {
  double c_l;               ///< seconds per pair per SM without conflicts, at full issue rate (C_L)
  double c_lp;              ///< seconds per pair per SM added per conflict step (C_LP)
  double saturation_warps;  ///< resident warps per SM from which the kernel runs at full rate
};

/// Constants of the cluster-shared histogram's updates (model::cluster_latency).
struct cluster_constants {
  double local_factor;         ///< an update through the cluster window to the own block, over a plain shared atomic
  double remote;               ///< seconds per pair per SM added by a remote update, clusters of 2
  double remote_per_doubling;  ///< ... and added per doubling of the cluster beyond 2
};

/// Histograms with one global atomic per pair (output::global_atomics): seconds per pair for the
/// whole GPU, per_pair + per_pair_per_slot_inverse / slots (same-bin atomics serialize in L2).
struct global_atomic_constants {
  double per_pair;
  double per_pair_per_slot_inverse;
  /// Seconds per update when all of them hit one address (they serialize there): what bounds
  /// updates that spread over few slots.
  double one_address_per_update = 4.0e-10;
};

namespace policy {
// bench_cost_model --calibrate: SDH of 2^20 points, 256 bins, H = 16..1 (C_LP); 4096 bins, H = 8 against 4 (saturation).
inline constexpr double h100_c_lp       = 1.516e-13;
inline constexpr double h100_saturation = 9.2;
// bench_bins --explore sdh/bins:4096/cluster:*/copies:1/shuffle_tile.
inline constexpr cluster_constants h100_cluster{2.14, 1.49e-9, 0.75e-9};
// bench_bins sdh/bins:{4096,65536,131072,1048576}/global_atomics; the one-address rate: sdh/bins:65536/spill.
inline constexpr global_atomic_constants h100_global{1.09e-11, 9.29e-8, 4.0e-10};
// bench_bins sdh/bins:65536 and 262144 in passes (a pass over a window of the bins, over one pass).
inline constexpr double h100_window_pass_factor = 1.32;
// bench_bins sdh/bins:65536/spill (a spilling pass, over one pass, besides its global atomics).
inline constexpr double h100_spill_pass_factor = 2.0;
// bench_bins sdh/bins:*/ordered_passes* (scripts/lib/ordered_passes_fit.py).
inline constexpr double h100_whole_window_factor       = 1.075;
inline constexpr double h100_skipped_tile_pair_seconds = 4.1e-6;
// bench_bins sdh and rp_pi bins:*/ordered_passes* (scripts/lib/ordered_passes_fit.py --staged-only).
inline constexpr double h100_staged_tile_pair_seconds = 1.9e-5;
}  // namespace policy

/// The model's constants for one input candidate on one GPU.
struct cost_constants {
  privatization_constants histogram;  ///< privatized histograms
  double reduction_c_l;               ///< seconds per pair per SM of a pair count (registers output)
  double diagonal_cost;               ///< time of a diagonal tile pair (self mode) over an off-diagonal one
  cluster_constants cluster        = policy::h100_cluster;  ///< cluster_privatized (the same for every input)
  global_atomic_constants global   = policy::h100_global;   ///< global_atomics (the same for every input)
  double window_pass_factor        = policy::h100_window_pass_factor;         ///< warp_privatized in several passes
  double spill_pass_factor         = policy::h100_spill_pass_factor;          ///< warp_privatized spilling to global atomics
  double whole_window_factor       = policy::h100_whole_window_factor;        ///< ordered passes: tile pairs whole in a window
  double skipped_tile_pair_seconds = policy::h100_skipped_tile_pair_seconds;  ///< ordered passes: per tile pair and pass
  double staged_tile_pair_seconds  = policy::h100_staged_tile_pair_seconds;   ///< ordered passes: per staging, per 1024 tile points
};

}  // namespace twobody
