// bench_frames' shape rows (bench_frames.cu has the others and main; bench_frames_rows.cuh what
// both share): the one-call RDF, count and per-point sums at 1024 and 4096 points with each small
// tile shape (column groups, private copies) named explicitly, and the per-point forms without
// column sums: what the planner's small-set choice rests on; and the batched frames with each
// frame tile shape named.
#include "bench_frames_rows.cuh"

namespace frames_bench {

/// The planned call (B = 0: the planner's tile) or a named shared_tile<B, R, M, G>.
template <per_point_kind Kind, int B = 0, int R = 1, int M = 1, int G = 1>
void other_per_point(benchmark::State& state)
{
  per_point_async<Kind>(state, [](auto const& pairs, auto f, float* d, cudaStream_t s) {
    if constexpr (B == 0) {
      twobody::sum_per_point(pairs, f, d, s);
    } else {
      twobody::sum_per_point<twobody::input::shared_tile<B, R, M, G>>(pairs, f, d, s);
    }
  });
}

/// One-call shapes at small N (asynchronous, device output, explicit input policy): the RDF
/// with state.range(1) private copies, and the count. What the planner's small-set choice
/// rests on (issue 24: the floor at 4096 points).
template <int B, int R, int M = 1, int G = 1>
void shape_rdf(benchmark::State& state)
{
  long long const n = state.range(0);
  int const copies  = static_cast<int>(state.range(1));
  auto const pairs  = twobody::self_pairs(bench::device_data<float>(n, 0));
  rdf_case const c;
  stream_holder st;
  bench::device_scratch d(sizeof(unsigned long long) * (c.bins.size() + 1));
  bench::guarded(state, [&] {
    wall_async(state, st.s, [&] {
      twobody::histogram<twobody::input::shared_tile<B, R, M, G>>(pairs, c.f, c.bins, d.as<unsigned long long>(),
                                                            twobody::output::warp_privatized{copies}, st.s);
    });
    bench::set_counters(state, bench::self_pair_count(n));
  });
}

template <int B, int R, int M = 1, int G = 1>
void shape_count(benchmark::State& state)
{
  long long const n = state.range(0);
  auto const pairs  = twobody::self_pairs(bench::device_data<float>(n, 0));
  using input       = twobody::input::shared_tile<B, R, M, G>;
  auto const pred   = twobody::within_radius(bench::radius);
  stream_holder st;
  bench::device_scratch d(sizeof(unsigned long long));
  std::size_t bytes = 0;
  twobody::count_pairs<input>(nullptr, bytes, pairs, pred, d.as<unsigned long long>(), st.s);
  bench::device_scratch temp(bytes);
  bench::guarded(state, [&] {
    wall_async(state, st.s, [&] { twobody::count_pairs<input>(temp.ptr, bytes, pairs, pred, d.as<unsigned long long>(), st.s); });
    bench::set_counters(state, bench::self_pair_count(n));
  });
}

/// The per-point Gaussian sums of floor/per_point with a named input policy (asynchronous).
template <int B, int R, int M = 1, int G = 1>
void shape_per_point(benchmark::State& state)
{
  per_point_async(state, [](auto const& pairs, auto f, float* d, cudaStream_t s) {
    twobody::sum_per_point<twobody::input::shared_tile<B, R, M, G>>(pairs, f, d, s);
  });
}


/// The summed batched RDF with the frame kernel's input policy shared_tile<B, R> (the
/// public form uses the library's choice): what the frame tile choice rests on.
template <int B, int R>
void frames_tile(benchmark::State& state)
{
  long long const n = state.range(0);
  frame_data const& d = frames_of(n);
  rdf_case const c    = rdf_in(d.side);
  stream_holder st;
  std::size_t const slots = static_cast<std::size_t>(c.bins.size()) + 1;
  bench::device_scratch out(sizeof(unsigned long long) * slots);
  auto const pairs = twobody::self_frame_pairs(d.device_frames());
  bench::guarded(state, [&] {
    wall(state, [&] {
      twobody::detail::histogram_frames_with<twobody::input::shared_tile<B, R>>(
        pairs, twobody::detail::frame_layout<twobody::points<float, 3>>(pairs, st.s), c.f, c.bins, out.as<unsigned long long>(), false, st.s);
      EXAMPLE_CUDA_CHECK(cudaStreamSynchronize(st.s));
    });
    bench::set_counters(state, bench::self_pair_count(n) * double(frame_count));
  });
}

void register_shapes(std::vector<long long> const& frame_sizes)
{
  std::vector<long long> const shape_copies{1, 4, 8, 32};
  add2("shape/rdf128/tile:32x1", shape_rdf<32, 1>, shape_sizes, shape_copies);
  add2("shape/rdf128/tile:64x1", shape_rdf<64, 1>, shape_sizes, shape_copies);
  add2("shape/rdf128/tile:128x1", shape_rdf<128, 1>, shape_sizes, shape_copies);
  add2("shape/rdf128/tile:256x1", shape_rdf<256, 1>, shape_sizes, shape_copies);
  add2("shape/rdf128/tile:64x2", shape_rdf<64, 2>, shape_sizes, shape_copies);
  add2("shape/rdf128/tile:64x1/min_blocks:16", shape_rdf<64, 1, 16>, shape_sizes, shape_copies);
  add2("shape/rdf128/tile:32x1/min_blocks:32", shape_rdf<32, 1, 32>, shape_sizes, shape_copies);
  add2("shape/rdf128/tile:128x1/min_blocks:8", shape_rdf<128, 1, 8>, shape_sizes, shape_copies);
  // Column groups: the 128-point tile in 2 groups of 128 threads (twice the warps per tile
  // pair; the one-call forms' small tile since 2026-11-26).
  add2("shape/rdf128/tile:128x1/groups:2", shape_rdf<256, 1, 4, 2>, shape_sizes, shape_copies);
  add("shape/count/tile:128x1/groups:2", shape_count<256, 1, 4, 2>, shape_sizes, async_min_time);
  add("shape/per_point/tile:128x1", shape_per_point<128, 1>, shape_sizes, async_min_time);
  add("shape/per_point/tile:128x1/groups:2", shape_per_point<256, 1, 4, 2>, shape_sizes, async_min_time);
  // Two own points per thread in 4 groups (fewer shared loads per pair, the same warps).
  add2("shape/rdf128/tile:64x2/groups:4", shape_rdf<256, 2, 4, 4>, shape_sizes, {1});
  add("shape/count/tile:64x2/groups:4", shape_count<256, 2, 4, 4>, shape_sizes, async_min_time);
  add("shape/per_point/tile:64x2/groups:4", shape_per_point<256, 2, 4, 4>, shape_sizes, async_min_time);
  // The per-point forms without column sums (cross sets, functors not declared symmetric) on
  // the symmetric form's 128-point shape (64 x 2 in 4 groups) and the one before it.
  using ppk = per_point_kind;
  add("shape/per_point_cross/planned", other_per_point<ppk::cross>, shape_sizes, async_min_time);
  add("shape/per_point_cross/tile:128x1/groups:2", other_per_point<ppk::cross, 256, 1, 4, 2>, shape_sizes, async_min_time);
  add("shape/per_point_cross/tile:64x2/groups:4", other_per_point<ppk::cross, 256, 2, 4, 4>, shape_sizes, async_min_time);
  add("shape/per_point_one_sided/planned", other_per_point<ppk::one_sided>, shape_sizes, async_min_time);
  add("shape/per_point_one_sided/tile:128x1/groups:2", other_per_point<ppk::one_sided, 256, 1, 4, 2>, shape_sizes,
      async_min_time);
  add("shape/per_point_one_sided/tile:64x2/groups:4", other_per_point<ppk::one_sided, 256, 2, 4, 4>, shape_sizes,
      async_min_time);
  // Symmetric per-point sums read a different column per lane (16 bytes of shared memory per
  // pair with one own point per thread): tiles of 128 points with more own points per thread.
  add("shape/per_point/tile:64x2/groups:2", shape_per_point<128, 2, 8, 2>, shape_sizes, async_min_time);
  add("shape/per_point/tile:32x4/groups:4", shape_per_point<128, 4, 8, 4>, shape_sizes, async_min_time);
  add("shape/per_point/tile:32x4/groups:2", shape_per_point<64, 4, 16, 2>, shape_sizes, async_min_time);
  add("shape/per_point/tile:32x2/groups:2", shape_per_point<64, 2, 16, 2>, shape_sizes, async_min_time);
  add("shape/per_point/tile:64x4/groups:4", shape_per_point<256, 4, 4, 4>, shape_sizes, async_min_time);
  add("shape/count/tile:64x1/min_blocks:16", shape_count<64, 1, 16>, shape_sizes, async_min_time);
  add("shape/count/tile:32x1/min_blocks:32", shape_count<32, 1, 32>, shape_sizes, async_min_time);
  add("shape/count/tile:32x1", shape_count<32, 1>, shape_sizes, async_min_time);
  add("shape/count/tile:64x1", shape_count<64, 1>, shape_sizes, async_min_time);
  add("shape/count/tile:128x1", shape_count<128, 1>, shape_sizes, async_min_time);
  add("shape/count/tile:256x1", shape_count<256, 1>, shape_sizes, async_min_time);
  add("shape/count/tile:64x2", shape_count<64, 2>, shape_sizes, async_min_time);
  add("frames/rdf128/tile:64x2", frames_tile<64, 2>, frame_sizes);
  add("frames/rdf128/tile:128x1", frames_tile<128, 1>, frame_sizes);
  add("frames/rdf128/tile:128x2", frames_tile<128, 2>, frame_sizes);
  add("frames/rdf128/tile:256x1", frames_tile<256, 1>, frame_sizes);
  add("frames/rdf128/tile:64x4", frames_tile<64, 4>, frame_sizes);
}

}  // namespace frames_bench
