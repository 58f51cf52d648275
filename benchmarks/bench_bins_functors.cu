// bench_bins' sdh_ieee rows, one of the functors whose relative cost the cost model takes
// (bench_bins.cu has the sdh rows and main; bench_bins_rows.cuh what the files share).
#include "bench_bins_rows.cuh"

namespace bins_bench {

void register_sdh_ieee_problem(int bins) { register_problem<sdh_ieee_problem>("sdh_ieee", bins); }

}  // namespace bins_bench
