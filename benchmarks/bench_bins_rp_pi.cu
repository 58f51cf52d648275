// bench_bins' rp_pi rows, square 2-D (r_p, pi) bins (bench_bins.cu has the sdh rows and main;
// bench_bins_rows.cuh what the files share).
#include "bench_bins_rows.cuh"

namespace bins_bench {

void register_rp_pi_problem(int side) { register_problem<rp_pi_problem>("rp_pi", side); }

}  // namespace bins_bench
