// bench_bins: histograms with many bins (issue "histograms at the limit"). A 2^20-point
// self-pair histogram (float, 3-D uniform in a 100^3 box) for 4 k .. 1 M bins, side by side in
// one run:
//   <problem>/bins:<b>/one_call        the one-call histogram (the cost model's choice; with
//                                       thread-block clusters on sm_90), planned before the timing
//   <problem>/bins:<b>/whole_call      twobody::histogram on device data, its planning timed too
//   <problem>/bins:<b>/no_clusters     the one-call plan without clusters (TWOBODY_POLICY=cluster=0):
//                                       fewer copies, then several passes over all pairs
//   <problem>/bins:<b>/global_atomics  one global atomic per pair (shared_tile<256, 4>)
//   <problem>/bins:<b>/spill           past shared memory: one pass, one copy of the window of bins
//                                       where a sample of the pairs falls most (and the outside
//                                       slot), the other bins' updates to global atomics
//                                       (shared_tile<256, 4>; spill_st8: shared_tile<256, 8>)
//   <problem>/bins:<b>/ordered_passes[:P<p>][:H<h>][:B<b>]/<input>   points ordered into tiles, passes
//                                       over spread windows (st4, st8: shared_tile<256, 4 | 8>;
//                                       w2, w4: shared_tile<512, 2 | 4>)
//   <problem>/bins:<b>/cluster:<C>/copies:<H>/<input>   explicit cluster_privatized layouts
// Problems: sdh (squared_euclidean + distance_bins over [0, 100 sqrt 3)) and rp_pi (2-D
// (r_p, pi) bins, rp_pi_separation + bins_2d of two uniform_bins, square: 16 x 16 .. 1024 x 1024);
// and for the functors' relative costs (4096, 65536, 262144 bins): sdh_ieee (euclidean +
// uniform_bins), rdf (periodic_squared_euclidean + distance_bins over [0, 50)) and rdf_ieee
// (periodic_euclidean + uniform_bins over [0, 50)), in the 100^3 periodic box.
// Counters: pairs_per_s, bins, predicted_s (the plan's predicted time), cluster, copies, passes.
// Each time is the median of --reps (default 5) CUDA-event intervals around one call, fewer for
// slow calls (3 when the first takes over 2 s, 1 over 10 s; counter timed_calls), after a warm-up
// on a prefix of the points; the inputs rotate over copies so that each call starts outside L2.
//
//   bench_bins [--n=1048576] [--reps=5] [--explore] --benchmark_out=bins.json --benchmark_out_format=json
#include "bench_bins_rows.cuh"

using namespace bins_bench;

int main(int argc, char** argv)
{
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (char const* v = value_of(argv[i], "--n")) {
      n_points = std::atoll(v);
    } else if (char const* r = value_of(argv[i], "--reps")) {
      reps = std::max(1, std::atoi(r));
    } else if (std::strcmp(argv[i], "--explore") == 0) {
      explore = true;
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  if (record_context()) {
    for (int b : sdh_sweep) { register_problem<sdh_problem>("sdh", b); }
    for (int side : rp_pi_sides) { register_rp_pi_problem(side); }
    for (int b : functor_sweep) {
      register_sdh_ieee_problem(b);
      register_periodic_problems(b);
    }
  }
  return run_registered(argc, argv);
}
