// bench_suite's RDF rows (the periodic box; bench_suite.cu has the counts, kernel sums and main,
// bench_suite_histograms.cu the SDH rows, bench_suite_rows.cuh what they share): each input x
// output composition and the one-call form. A file of their own: the periodic functor's kernels
// are a set of their own.
#include "bench_suite_rows.cuh"

namespace suite {

void register_gpu_rdf()
{
  rdf_problem const rdf;
  add("rdf256/shared_tile8+warp_privatized32", kind::gpu, [=](benchmark::State& s) { bench_histogram<st8>(s, rdf.f, rdf.bins, wp{32}); });
  add("rdf256/shared_tile8_minblocks4+warp_privatized32", kind::gpu, [=](benchmark::State& s) { bench_histogram<st8b4>(s, rdf.f, rdf.bins, wp{32}); });
  add("rdf256/shared_tile+warp_privatized32", kind::gpu, [=](benchmark::State& s) { bench_histogram<st4>(s, rdf.f, rdf.bins, wp{32}); });
  add("rdf256/shuffle_tile+warp_privatized32", kind::gpu, [=](benchmark::State& s) { bench_histogram<sh4>(s, rdf.f, rdf.bins, wp{32}); });
  add("rdf256/one_call", kind::gpu, [=](benchmark::State& s) { bench_histogram<void>(s, rdf.f, rdf.bins); });
}

}  // namespace suite
