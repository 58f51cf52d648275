// bench_bins' rdf and rdf_ieee rows: the periodic functors whose relative cost the cost model takes
// (bench_bins.cu has the sdh rows and main; bench_bins_rows.cuh what the files share).
#include "bench_bins_rows.cuh"

namespace bins_bench {

void register_periodic_problems(int bins)
{
  register_problem<rdf_problem>("rdf", bins);
  register_problem<rdf_ieee_problem>("rdf_ieee", bins);
}

}  // namespace bins_bench
