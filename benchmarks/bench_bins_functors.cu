// bench_bins' functor rows (bench_bins.cu has the sdh and rp_pi rows and main; bench_bins_rows.cuh
// what both share): the functors whose relative cost the cost model takes, at a few bin counts.
#include "bench_bins_rows.cuh"

namespace bins_bench {

void register_functor_problems(int bins)
{
  register_problem<sdh_ieee_problem>("sdh_ieee", bins);
  register_problem<rdf_problem>("rdf", bins);
  register_problem<rdf_ieee_problem>("rdf_ieee", bins);
}

}  // namespace bins_bench
