// High-dimensional rows (issue 22): pair counts within a Euclidean threshold over n x D rows,
//  - twobody: count_pairs on rows (tensor cores, input::mma_tile, exact answers), half / bf16 / float;
//    double rows on their default core (FP32 on the CUDA cores, input::simt_rows);
//  - cuBLAS GemmEx (C = A B^T in row chunks, FP32 out; FP64 for double rows) plus a count pass
//    over C with the norms, the way users write it today (approximate: no refinement near the
//    threshold);
//  - the tensor cores' own peak, a plain loop of independent mma.sync in the same run;
//  - k nearest neighbours (k = 10, 100) of every row among the others: twobody (exact), and
//    cuBLAS GemmEx chunks plus a CUB segmented sort of each row's (distance, index) keys;
//  - the similarity self-join within the same threshold (records {i, j, distance}) and Gaussian
//    kernel sums over the ordered pairs (bandwidth: the threshold), beside the count.
// Data: uniform in [0, 1)^D, or 64 Gaussian blobs (sigma 0.05 around uniform centres); the
// threshold is the 1% quantile of a sample of pair distances. Counters: pairs/s, TFLOPS
// (2 D flops per pair), refined (fraction of pairs recomputed exactly), count.
#include "bench_highdim_rows.cuh"

namespace {

/// The tensor cores' peak: every warp issues independent mma.sync (8 accumulators) in a loop.
template <bool TF32>
__global__ void mma_peak_kernel(int iters, float* sink)
{
  float acc[8][4] = {};
  unsigned a[4] = {threadIdx.x, threadIdx.x + 1, threadIdx.x + 2, threadIdx.x + 3}, b[2] = {threadIdx.x ^ 5, threadIdx.x ^ 9};
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      if constexpr (TF32) {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(acc[k][0]), "+f"(acc[k][1]), "+f"(acc[k][2]), "+f"(acc[k][3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
      } else {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(acc[k][0]), "+f"(acc[k][1]), "+f"(acc[k][2]), "+f"(acc[k][3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
      }
    }
  }
  float s = 0;
  for (auto& k : acc) { s += k[0] + k[1] + k[2] + k[3]; }
  if (s == 12345.f) { sink[0] = s; }
}

template <bool TF32>
void BM_mma_peak(benchmark::State& state)
{
  int const iters = 20000, blocks = 132 * 4, threads = 256;
  float* sink = nullptr;
  EXAMPLE_CUDA_CHECK(cudaMalloc(&sink, sizeof(float)));
  bench::gpu_timer timer;
  timer.run(state, [&](cudaStream_t s, long long) { mma_peak_kernel<TF32><<<blocks, threads, 0, s>>>(iters, sink); });
  double const flops_per_mma = TF32 ? 2.0 * 16 * 8 * 8 : 2.0 * 16 * 8 * 16;
  double const flops = double(blocks) * (threads / 32) * iters * 8 * flops_per_mma;
  state.counters["TFLOPS"] = benchmark::Counter(flops * 1e-12 * double(state.iterations()), benchmark::Counter::kIsRate);
  (void)cudaFree(sink);
}

/// The wgmma peak (sm_90a): every warpgroup issues the library's m64n64k16 (two for the 128
/// columns) from a fixed 128-byte-swizzled tile of shared memory, 16 per commit group, with two
/// blocks of two warpgroups per SM. (The results of 2026-11-26 measured one m64n128k16 instead: 844.)
__global__ void wgmma_peak_kernel(int iters, float* sink)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  namespace ptx = twobody::detail::ptx;
  __shared__ alignas(1024) unsigned char tile[2 * 128 * 128];
  for (int i = static_cast<int>(threadIdx.x); i < 2 * 128 * 128; i += blockDim.x) { tile[i] = static_cast<unsigned char>(i * 7 + 3) & 0x3f; }
  __syncthreads();
  unsigned const at = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  float d0[32], d1[32];
  for (int i = 0; i < 32; ++i) { d0[i] = d1[i] = 0.0f; }
  for (int it = 0; it < iters; ++it) {
    ptx::wgmma_fence(d0);
    ptx::wgmma_fence(d1);
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      std::uint64_t const a = ptx::wgmma_descriptor(at + 32u * (k & 3));
      ptx::wgmma_m64n64k16<__half>(d0, a, ptx::wgmma_descriptor(at + 16384u + 32u * (k & 3)), true);
      ptx::wgmma_m64n64k16<__half>(d1, a, ptx::wgmma_descriptor(at + 16384u + 8192u + 32u * (k & 3)), true);
    }
    ptx::wgmma_commit_group();
    ptx::wgmma_wait_group<0>();
  }
  ptx::wgmma_pin(d0);
  ptx::wgmma_pin(d1);
  float s = 0;
  for (int i = 0; i < 32; ++i) { s += d0[i] + d1[i]; }
  if (s == 12345.f) { sink[0] = s; }
  if (threadIdx.x == 0 && blockIdx.x == 0) { sink[1] = 1.0f; }  // compiled with wgmma
#else
  (void)iters;
  (void)sink;
#endif
}

void BM_wgmma_peak(benchmark::State& state)
{
  int const iters = 20000, blocks = 132 * 2, threads = 256;
  float* sink = nullptr;
  EXAMPLE_CUDA_CHECK(cudaMalloc(&sink, 2 * sizeof(float)));
  EXAMPLE_CUDA_CHECK(cudaMemset(sink, 0, 2 * sizeof(float)));
  bench::gpu_timer timer;
  timer.run(state, [&](cudaStream_t s, long long) { wgmma_peak_kernel<<<blocks, threads, 0, s>>>(iters, sink); });
  float compiled = 0.0f;
  EXAMPLE_CUDA_CHECK(cudaMemcpy(&compiled, sink + 1, sizeof(float), cudaMemcpyDeviceToHost));
  if (compiled != 1.0f) { state.SkipWithError("not compiled for sm_90a: no wgmma"); }
  double const flops = double(blocks) * (threads / 128) * iters * 8 * (2.0 * 64 * 128 * 16);
  state.counters["TFLOPS"] = benchmark::Counter(flops * 1e-12 * double(state.iterations()), benchmark::Counter::kIsRate);
  (void)cudaFree(sink);
}

}  // namespace

int main(int argc, char** argv)
{
  benchmark::Initialize(&argc, argv);
  (void)bench::record_context();  // the commit (TWOBODY_COMMIT) and the GPU in the results file
  benchmark::RegisterBenchmark("peak/mma_f16", BM_mma_peak<false>)->UseManualTime()->Iterations(3);
  benchmark::RegisterBenchmark("peak/mma_tf32", BM_mma_peak<true>)->UseManualTime()->Iterations(3);
  benchmark::RegisterBenchmark("peak/wgmma_f16", BM_wgmma_peak)->UseManualTime()->Iterations(3);
  // float rows go through TF32, whose margin (2^-10 relative) sends a growing share of the pairs
  // to the exact recomputation as D grows: measured at D <= 256 only for now (docs/highdim.md).
  long long const n = 1ll << 16;
  for (int dims : {32, 128, 256, 960, 4096}) { register_shape<__half>(n, dims, false); }
  highdim_bench::register_float_shapes(n);
  for (int dims : {128, 960}) {
    register_shape<__half>(n, dims, true);
    highdim_bench::register_bf16_shape(n, dims);
  }
  for (int dims : {32, 128, 960}) { register_knn<__half>(n, dims, false, dims != 32); }
  register_knn<__half>(n, 128, true, false);
  highdim_bench::register_float_knn(n);
  // double rows: FP32 products on the CUDA cores (their default core), against DGEMM + pass.
  highdim_bench::register_double_rows(n);
  for (long long big : {1ll << 18, 1ll << 20}) {
    register_scale<__half>(big, 128, true);
    register_scale<__half>(big, 960, big == (1ll << 18));
  }
  // Small sets, where the segments of B per tile of A (nearest_segments) spread the work.
  for (long long small : {1ll << 12, 1ll << 14}) { register_knn<__half>(small, 128, false, false); }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
