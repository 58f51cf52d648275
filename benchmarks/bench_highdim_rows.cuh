// What the two files of bench_highdim share (bench_highdim.cu: the half rows, the tensor-core
// peaks and main; bench_highdim_types.cu: the float, bfloat16 and double rows): the data, the
// timed bodies of twobody and the cuBLAS baselines, and the registration of a shape's rows. Two
// files so that neither compiles the kernels of every element type (in one, 295 s of Release
// sm_90a compile on one core). The machinery is in an unnamed namespace: each file instantiates
// only the element types it registers.
#pragma once

#include "bench_common.cuh"

#include <twobody/highdim.cuh>
#include <twobody/highdim_join.cuh>
#include <twobody/highdim_per_point.cuh>
#include <twobody/nearest_neighbors.cuh>

#include <cub/device/device_segmented_sort.cuh>
#include <cublas_v2.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>


namespace {

#define CUBLAS_CHECK(call)                                                                \
  do {                                                                                    \
    cublasStatus_t const s_ = (call);                                                     \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                    \
      std::fprintf(stderr, "cuBLAS error %d at %s:%d\n", int(s_), __FILE__, __LINE__);    \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

/// n x D rows on the device (and the threshold), generated once per shape.
template <class T>
struct device_rows {
  T* data = nullptr;
  long long n = 0;
  int dims = 0;
  float threshold = 0;  ///< Euclidean distance at the 1% quantile of sampled pairs
  ~device_rows() { (void)cudaFree(data); }
};

template <class T>
device_rows<T> const& rows_of(long long n, int dims, bool clustered)
{
  static std::map<std::tuple<long long, int, bool>, std::unique_ptr<device_rows<T>>> cache;
  auto& slot = cache[{n, dims, clustered}];
  if (slot) { return *slot; }
  slot = std::make_unique<device_rows<T>>();
  std::vector<T> h(static_cast<std::size_t>(n) * dims);
  std::vector<float> f(h.size());
  std::mt19937 rng(dims * 31 + (clustered ? 7 : 0));
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::normal_distribution<float> nd(0.f, 0.05f);
  std::vector<float> centres(static_cast<std::size_t>(64) * dims);
  for (auto& c : centres) { c = u(rng); }
  for (long long i = 0; i < n; ++i) {
    std::size_t const blob = static_cast<std::size_t>(rng() % 64);
    for (int k = 0; k < dims; ++k) {
      float const v = clustered ? centres[blob * dims + k] + nd(rng) : u(rng);
      h[static_cast<std::size_t>(i) * dims + k] = twobody::detail::row_element<T>(v);
      f[static_cast<std::size_t>(i) * dims + k] = twobody::detail::as_double(h[static_cast<std::size_t>(i) * dims + k]);
    }
  }
  std::vector<float> sample(20000);
  for (auto& s : sample) {
    std::size_t const i = rng() % n, j = rng() % n;
    double d = 0;
    for (int k = 0; k < dims; ++k) {
      double const x = f[i * dims + k] - f[j * dims + k];
      d += x * x;
    }
    s = static_cast<float>(std::sqrt(d));
  }
  std::nth_element(sample.begin(), sample.begin() + 200, sample.end());
  slot->threshold = sample[200];
  slot->n = n;
  slot->dims = dims;
  EXAMPLE_CUDA_CHECK(cudaMalloc(&slot->data, sizeof(T) * h.size()));
  EXAMPLE_CUDA_CHECK(cudaMemcpy(slot->data, h.data(), sizeof(T) * h.size(), cudaMemcpyHostToDevice));
  return *slot;
}

inline void set_rates(benchmark::State& state, double pairs, int dims)
{
  state.counters["pairs_per_s"] = benchmark::Counter(pairs * double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["TFLOPS"]      = benchmark::Counter(pairs * 2.0 * dims * 1e-12 * double(state.iterations()),
                                                     benchmark::Counter::kIsRate);
}

template <class T, class Input = twobody::input::automatic>
void BM_twobody_count(benchmark::State& state, long long n, int dims, bool clustered, float threshold_scale)
{
  auto const& r = rows_of<T>(n, dims, clustered);
  auto const pairs = twobody::self_pairs(twobody::make_rows(r.n, r.dims, static_cast<T const*>(r.data)));
  auto const pred  = twobody::closer_than(twobody::euclidean{}, r.threshold * threshold_scale);
  unsigned long long* refined = nullptr;
  EXAMPLE_CUDA_CHECK(cudaMalloc(&refined, sizeof(unsigned long long)));
  bench::gpu_timer timer;
  unsigned long long count = 0;
  timer.run(state, [&](cudaStream_t s, long long it) {
    auto p = pairs;
    if (it < 0) { p.a.size = p.b.size = std::min<long long>(n, 4096); }
    EXAMPLE_CUDA_CHECK(cudaMemsetAsync(refined, 0, sizeof(unsigned long long), s));
    count = twobody::detail::count_rows_gpu<Input>(p, pred, s, refined);
  });
  unsigned long long h_refined = 0;
  EXAMPLE_CUDA_CHECK(cudaMemcpy(&h_refined, refined, sizeof h_refined, cudaMemcpyDeviceToHost));
  (void)cudaFree(refined);
  double const npairs = double(n) * double(n - 1) / 2;
  set_rates(state, npairs, dims);
  state.counters["refined"] = double(h_refined) / npairs;
  state.counters["count"]   = double(count);
}

/// A histogram of the rows' squared distances: 64 bins from 0 to 4 times the square of the 1%
/// quantile's distance (the privatized shared-memory histogram of the tensor-core traversal).
template <class T>
void BM_twobody_histogram(benchmark::State& state, long long n, int dims, bool clustered)
{
  auto const& r    = rows_of<T>(n, dims, clustered);
  auto const pairs = twobody::self_pairs(twobody::make_rows(r.n, r.dims, static_cast<T const*>(r.data)));
  twobody::uniform_bins<float> const bins(0.f, 4.f * r.threshold * r.threshold, 64);
  bench::gpu_timer timer;
  double inside = 0;
  timer.run(state, [&](cudaStream_t s, long long it) {
    auto p = pairs;
    if (it < 0) { p.a.size = p.b.size = std::min<long long>(n, 4096); }
    auto const h = twobody::detail::histogram_rows_gpu<twobody::input::automatic, T, false, twobody::squared_euclidean>(p, bins, s);
    inside       = 0;
    for (auto const c : h.counts) { inside += double(c); }
  });
  set_rates(state, double(n) * double(n - 1) / 2, dims);
  state.counters["inside"] = inside;
}

/// The GEMM baseline's output and norms: FP32, FP64 for double rows (DGEMM).
template <class T>
using gemm_out_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

/// Squared norms of the rows (the GEMM baseline's |a|^2) in O.
template <class T, class O>
__global__ void norms_kernel(T const* x, long long n, int dims, O* out)
{
  long long const i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  O s = 0;
  for (int k = 0; k < dims; ++k) {
    O const v = static_cast<O>(x[i * dims + k]);
    s         = v * v + s;
  }
  out[i] = s;
}

/// The count pass over a chunk of C (column-major, N x rows): pairs (i, j), j > i, with
/// |a_i|^2 + |a_j|^2 - 2 C < t^2.
template <class O>
__global__ void count_pass_kernel(O const* c, long long n, long long first_row, long long rows, O const* norms, O t2,
                                  unsigned long long* count)
{
  unsigned long long mine = 0;
  long long const total   = rows * n;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x) {
    long long const i = first_row + e / n, j = e % n;
    if (j > i && norms[i] + norms[j] - O(2) * c[e] < t2) { ++mine; }
  }
  for (int o = 16; o > 0; o /= 2) { mine += __shfl_down_sync(0xffffffffu, mine, o); }
  if ((threadIdx.x & 31) == 0 && mine != 0) { atomicAdd(count, mine); }
}

/// C (nn x rows, column-major, FP32) = the inner products of the first nn rows with rows
/// first .. first + rows - 1, by cuBLAS GemmEx (TF32 for float rows). Column-major view: the
/// rows are a D x n matrix X, and C = X^T X[:, first:first+rows].
template <class T>
void gemm_chunk(cublasHandle_t handle, T const* x, int dims, long long nn, long long first, long long rows, gemm_out_t<T>* c)
{
  if constexpr (std::is_same_v<T, double>) {
    double const alpha = 1.0, beta = 0.0;
    CUBLAS_CHECK(cublasDgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(nn), int(rows), dims, &alpha, x, dims, x + first * dims, dims, &beta,
                             c, int(nn)));
  } else {
    cudaDataType_t const type = std::is_same_v<T, float> ? CUDA_R_32F : std::is_same_v<T, __half> ? CUDA_R_16F : CUDA_R_16BF;
    cublasComputeType_t const compute = std::is_same_v<T, float> ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    float const alpha = 1.f, beta = 0.f;
    CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(nn), int(rows), dims, &alpha, x, type, dims, x + first * dims, type,
                              dims, &beta, c, CUDA_R_32F, int(nn), compute, CUBLAS_GEMM_DEFAULT));
  }
}

template <class T>
void BM_cublas_count(benchmark::State& state, long long n, int dims, bool clustered)
{
  auto const& r = rows_of<T>(n, dims, clustered);
  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));
  using O = gemm_out_t<T>;
  long long const chunk = std::min<long long>(n, (512ll << 20) / (static_cast<long long>(sizeof(O)) * n));  // C chunks of at most 512 MB
  O *c = nullptr, *norms = nullptr;
  unsigned long long* count = nullptr;
  EXAMPLE_CUDA_CHECK(cudaMalloc(&c, sizeof(O) * chunk * n));
  EXAMPLE_CUDA_CHECK(cudaMalloc(&norms, sizeof(O) * n));
  EXAMPLE_CUDA_CHECK(cudaMalloc(&count, sizeof(unsigned long long)));
  O const t2 = O(r.threshold) * O(r.threshold);
  bench::gpu_timer timer;
  CUBLAS_CHECK(cublasSetStream(handle, timer.stream));
  unsigned long long h_count = 0;
  timer.run(state, [&](cudaStream_t s, long long it) {
    long long const nn = it < 0 ? std::min<long long>(n, 4096) : n;
    EXAMPLE_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(unsigned long long), s));
    norms_kernel<<<unsigned((nn + 255) / 256), 256, 0, s>>>(r.data, nn, dims, norms);
    for (long long first = 0; first < nn; first += chunk) {
      long long const rows = std::min(chunk, nn - first);
      gemm_chunk(handle, r.data, dims, nn, first, rows, c);
      count_pass_kernel<<<132 * 8, 256, 0, s>>>(c, nn, first, rows, norms, t2, count);
    }
    EXAMPLE_CUDA_CHECK(cudaMemcpyAsync(&h_count, count, sizeof h_count, cudaMemcpyDeviceToHost, s));
  });
  set_rates(state, double(n) * double(n - 1) / 2, dims);
  state.counters["count"] = double(h_count);
  (void)cudaFree(c);
  (void)cudaFree(norms);
  (void)cudaFree(count);
  cublasDestroy(handle);
}

/// twobody's exact k nearest neighbours of every row among the others (ordered pairs).
template <class T>
void BM_twobody_knn(benchmark::State& state, long long n, int dims, bool clustered, int k)
{
  auto const& r = rows_of<T>(n, dims, clustered);
  auto const rows = twobody::make_rows(r.n, r.dims, static_cast<T const*>(r.data));
  std::int32_t* idx = nullptr;
  float* val = nullptr;
  unsigned long long* refined = nullptr;
  EXAMPLE_CUDA_CHECK(cudaMalloc(&idx, sizeof(std::int32_t) * n * k));
  EXAMPLE_CUDA_CHECK(cudaMalloc(&val, sizeof(float) * n * k));
  EXAMPLE_CUDA_CHECK(cudaMalloc(&refined, sizeof(unsigned long long)));
  bench::gpu_timer timer;
  timer.run(state, [&](cudaStream_t s, long long it) {
    auto x = rows;
    if (it < 0) { x.size = std::min<long long>(n, 4096); }
    EXAMPLE_CUDA_CHECK(cudaMemsetAsync(refined, 0, sizeof(unsigned long long), s));
    twobody::detail::nearest_rows_gpu<T, false, twobody::euclidean>(twobody::ordered_pairs(x), k, idx, val, s, refined);
  });
  unsigned long long h_refined = 0;
  EXAMPLE_CUDA_CHECK(cudaMemcpy(&h_refined, refined, sizeof h_refined, cudaMemcpyDeviceToHost));
  float last = 0;
  EXAMPLE_CUDA_CHECK(cudaMemcpy(&last, val + (n * k - 1), sizeof last, cudaMemcpyDeviceToHost));
  double const npairs = double(n) * double(n - 1);
  set_rates(state, npairs, dims);
  state.counters["refined"]   = double(h_refined) / npairs;
  state.counters["kth_value"] = last;
  (void)cudaFree(idx);
  (void)cudaFree(val);
  (void)cudaFree(refined);
}

/// Similarity self-join of the rows within the count's threshold (about 1% of the pairs), records
/// {i, j, distance} into device memory (the public one-call form; its pool starts at a sampled
/// estimate). Counters: pairs/s over all pairs, records/s and bytes/s of records written.
template <class T, class Output>
void BM_twobody_join(benchmark::State& state, long long n, int dims, bool clustered)
{
  auto const& r = rows_of<T>(n, dims, clustered);
  auto const pairs = twobody::self_pairs(twobody::make_rows(r.n, r.dims, static_cast<T const*>(r.data)));
  auto const pred  = twobody::closer_than(twobody::euclidean{}, r.threshold);
  bench::gpu_timer timer;
  std::size_t records = 0;
  int rounds          = 0;
  timer.run(state, [&](cudaStream_t s, long long it) {
    auto p = pairs;
    if (it < 0) { p.a.size = p.b.size = std::min<long long>(n, 4096); }
    auto const result = twobody::join<Output>(twobody::exec::gpu.on(s), p, pred);
    records           = result.size();
    rounds            = result.stats().rounds;
  });
  double const npairs = double(n) * double(n - 1) / 2;
  set_rates(state, npairs, dims);
  state.counters["records"]       = double(records);
  state.counters["rounds"]        = rounds;
  state.counters["records_per_s"] = benchmark::Counter(double(records) * double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["bytes_per_s"]   = benchmark::Counter(double(records) * sizeof(twobody::index_pair_value<float>) * double(state.iterations()),
                                                     benchmark::Counter::kIsRate);
}

/// Gaussian kernel sums of every row over all the others (ordered pairs; each pair serves both
/// of its rows), bandwidth h = the count's threshold, into device memory (double).
template <class T>
void BM_twobody_kernel_sum(benchmark::State& state, long long n, int dims, bool clustered)
{
  auto const& r = rows_of<T>(n, dims, clustered);
  auto const rows = twobody::make_rows(r.n, r.dims, static_cast<T const*>(r.data));
  double* out = nullptr;
  EXAMPLE_CUDA_CHECK(cudaMalloc(&out, sizeof(double) * n));
  bench::gpu_timer timer;
  timer.run(state, [&](cudaStream_t s, long long it) {
    auto x = rows;
    if (it < 0) { x.size = std::min<long long>(n, 4096); }
    twobody::sum_per_point(twobody::ordered_pairs(x), twobody::gaussian_kernel(r.threshold), out, s);
  });
  double first = 0;
  EXAMPLE_CUDA_CHECK(cudaMemcpy(&first, out, sizeof first, cudaMemcpyDeviceToHost));
  (void)cudaFree(out);
  double const npairs = double(n) * double(n - 1);
  set_rates(state, npairs, dims);
  state.counters["sum_of_row_0"] = first;
}

/// Keys (distance, j) of a chunk of C for the baseline's sort: |a_i|^2 + |a_j|^2 - 2 C, the
/// point itself last.
__global__ void knn_keys_kernel(float const* c, long long n, long long first_row, long long rows, float const* norms,
                                unsigned long long* keys)
{
  long long const total = rows * n;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x) {
    long long const i = first_row + e / n, j = e % n;
    float const d     = i == j ? INFINITY : fmaxf(norms[i] + norms[j] - 2.f * c[e], 0.f);
    keys[e]           = twobody::detail::make_neighbor_key(d, static_cast<std::uint32_t>(j));
  }
}

/// The first k keys of every sorted row of the chunk into the result.
__global__ void knn_take_kernel(unsigned long long const* sorted, long long n, long long first_row, long long rows, int k,
                                std::int32_t* idx, float* val)
{
  long long const total = rows * k;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x) {
    long long const r = e / k, q = e % k;
    unsigned long long const key = sorted[r * n + q];
    idx[(first_row + r) * k + q] = twobody::detail::neighbor_index(key);
    val[(first_row + r) * k + q] = sqrtf(twobody::detail::neighbor_score(key));
  }
}

/// What a user writes without twobody: cuBLAS GEMM for a chunk of rows, distances, a CUB
/// segmented sort of each row's (distance, index) keys, the first k (approximate: the GEMM's
/// FP32/TF32 accumulation decides the order).
template <class T>
void BM_cublas_knn(benchmark::State& state, long long n, int dims, bool clustered, int k)
{
  auto const& r = rows_of<T>(n, dims, clustered);
  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));
  long long const chunk = std::min<long long>(n, (1024ll << 20) / (20 * n));  // C, keys, sorted: 20 bytes per pair
  float *c = nullptr, *norms = nullptr, *val = nullptr;
  unsigned long long *keys = nullptr, *sorted = nullptr;
  std::int32_t* idx = nullptr;
  EXAMPLE_CUDA_CHECK(cudaMalloc(&c, sizeof(float) * chunk * n));
  EXAMPLE_CUDA_CHECK(cudaMalloc(&keys, sizeof(unsigned long long) * chunk * n));
  EXAMPLE_CUDA_CHECK(cudaMalloc(&sorted, sizeof(unsigned long long) * chunk * n));
  EXAMPLE_CUDA_CHECK(cudaMalloc(&norms, sizeof(float) * n));
  EXAMPLE_CUDA_CHECK(cudaMalloc(&idx, sizeof(std::int32_t) * n * k));
  EXAMPLE_CUDA_CHECK(cudaMalloc(&val, sizeof(float) * n * k));
  auto offsets = thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0), twobody::detail::times_fn{n});
  std::size_t temp_bytes = 0;
  EXAMPLE_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, temp_bytes, keys, sorted, chunk * n, chunk, offsets, offsets + 1));
  void* temp = nullptr;
  EXAMPLE_CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
  bench::gpu_timer timer;
  CUBLAS_CHECK(cublasSetStream(handle, timer.stream));
  timer.run(state, [&](cudaStream_t s, long long it) {
    long long const nn = it < 0 ? std::min<long long>(n, 4096) : n;
    norms_kernel<<<unsigned((nn + 255) / 256), 256, 0, s>>>(r.data, nn, dims, norms);
    for (long long first = 0; first < nn; first += chunk) {
      long long const rows = std::min(chunk, nn - first);
      gemm_chunk(handle, r.data, dims, nn, first, rows, c);
      knn_keys_kernel<<<132 * 8, 256, 0, s>>>(c, nn, first, rows, norms, keys);
      auto off = thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0), twobody::detail::times_fn{nn});
      std::size_t bytes = temp_bytes;
      EXAMPLE_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(temp, bytes, keys, sorted, rows * nn, rows, off, off + 1, s));
      knn_take_kernel<<<132 * 4, 256, 0, s>>>(sorted, nn, first, rows, k, idx, val);
    }
  });
  set_rates(state, double(n) * double(n - 1), dims);
  (void)cudaFree(c);
  (void)cudaFree(keys);
  (void)cudaFree(sorted);
  (void)cudaFree(norms);
  (void)cudaFree(idx);
  (void)cudaFree(val);
  (void)cudaFree(temp);
  cublasDestroy(handle);
}


template <class T>
char const* type_name()
{
  return std::is_same_v<T, float> ? "float" : std::is_same_v<T, __half> ? "half" : std::is_same_v<T, double> ? "double" : "bf16";
}

template <class T>
void register_shape(long long n, int dims, bool clustered)
{
  std::string const tag = std::string(type_name<T>()) + "/" + (clustered ? "clustered" : "uniform") + "/N:" + std::to_string(n) +
                          "/D:" + std::to_string(dims);
  benchmark::RegisterBenchmark(("count/twobody/" + tag).c_str(), BM_twobody_count<T>, n, dims, clustered, 1.0f)
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(false);
  benchmark::RegisterBenchmark(("count/cublas_gemm_pass/" + tag).c_str(), BM_cublas_count<T>, n, dims, clustered)
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(false);
  // The same count with the threshold at half the 1% quantile: no pair is near it, so none is
  // recomputed; the difference to count/twobody is the price of the exact recomputations.
  if (dims >= 960) {
    benchmark::RegisterBenchmark(("count/twobody_no_refine/" + tag).c_str(), BM_twobody_count<T>, n, dims, clustered, 0.5f)
      ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(false);
  }
  // twobody's own FP32 CUDA-core path (input::simt_rows): the same exact count without tensor
  // cores (for double rows that is count/twobody itself).
  if constexpr (!std::is_same_v<T, double>) {
    benchmark::RegisterBenchmark(("count/twobody_simt/" + tag).c_str(), BM_twobody_count<T, twobody::input::simt_rows>, n, dims, clustered,
                                 1.0f)
      ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(false);
  }
  using twobody::output::direct_output_buffer;
  using twobody::output::page_owner;
  benchmark::RegisterBenchmark(("join/twobody/" + tag).c_str(), BM_twobody_join<T, twobody::default_row_join_output>, n, dims, clustered)
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(false);
  if constexpr (!std::is_same_v<T, double>) {
    benchmark::RegisterBenchmark(("join/twobody_thread32/" + tag).c_str(), BM_twobody_join<T, direct_output_buffer<32, page_owner::thread>>,
                                 n, dims, clustered)
      ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(false);
    benchmark::RegisterBenchmark(("join/twobody_warp128/" + tag).c_str(), BM_twobody_join<T, direct_output_buffer<128, page_owner::warp>>,
                                 n, dims, clustered)
      ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(false);
  }
  benchmark::RegisterBenchmark(("kernel_sum/twobody/" + tag).c_str(), BM_twobody_kernel_sum<T>, n, dims, clustered)
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(false);
  benchmark::RegisterBenchmark(("histogram/twobody/" + tag).c_str(), BM_twobody_histogram<T>, n, dims, clustered)
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(false);
}

/// Larger sets (issue 22 asks for N = 2^16..2^20): the count beside cuBLAS GEMM + pass, and
/// knn with k = 10 and 32, each N^2 work.
template <class T>
void register_scale(long long n, int dims, bool knn)
{
  std::string const tag = std::string(type_name<T>()) + "/uniform/N:" + std::to_string(n) + "/D:" + std::to_string(dims);
  benchmark::RegisterBenchmark(("count/twobody/" + tag).c_str(), BM_twobody_count<T>, n, dims, false, 1.0f)
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(false);
  benchmark::RegisterBenchmark(("count/cublas_gemm_pass/" + tag).c_str(), BM_cublas_count<T>, n, dims, false)
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(false);
  if (knn) {
    for (int k : {10, 32}) {
      benchmark::RegisterBenchmark(("knn/twobody/" + tag + "/k:" + std::to_string(k)).c_str(), BM_twobody_knn<T>, n, dims, false, k)
        ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(false);
    }
  }
}

template <class T>
void register_knn(long long n, int dims, bool clustered, bool baseline)
{
  std::string const tag = std::string(type_name<T>()) + "/" + (clustered ? "clustered" : "uniform") + "/N:" + std::to_string(n) +
                          "/D:" + std::to_string(dims);
  for (int k : {10, 32, 100}) {
    benchmark::RegisterBenchmark(("knn/twobody/" + tag + "/k:" + std::to_string(k)).c_str(), BM_twobody_knn<T>, n, dims, clustered, k)
      ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(false);
  }
  if constexpr (!std::is_same_v<T, double>) {  // (its GEMM chunks are FP32)
    if (baseline) {  // the same work for every k: sorts every row
      benchmark::RegisterBenchmark(("knn/cublas_sort/" + tag + "/k:10").c_str(), BM_cublas_knn<T>, n, dims, clustered, 10)
        ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(3)->ReportAggregatesOnly(false);
    }
  }
}

}  // namespace

namespace highdim_bench {
// The rows of bench_highdim_types.cu, each registered at its place in main's order.
void register_float_shapes(long long n);                 ///< float rows, D = 32, 128, 256
void register_bf16_shape(long long n, int dims);         ///< bfloat16 rows, uniform
void register_float_knn(long long n);                    ///< kNN of float rows, D = 128
void register_double_rows(long long n);                  ///< double rows, D = 128 and 960, and their kNN
}  // namespace highdim_bench
