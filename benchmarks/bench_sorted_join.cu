// Band and equi-joins (Google Benchmark): the sorted path of band_join against a plain Thrust
// baseline written here (sort_by_key, lower_bound / upper_bound, scan, a for_each that writes
// each row's range) and against the nested loop (at the sizes it finishes), on N x N int32 keys:
//   equi_uniform: keys uniform in [0, N) on both sides (about 1 match per row);
//   equi_zipf1.0, equi_zipf1.5: A holds every key of [0, N) once, B's keys are Zipf-distributed
//             over 2^20 ranks (s = 1.0, 1.5): exactly N results, but one row of A matches a
//             large share of B (the skew a sort-merge join must spread over threads);
//   band10, band1000: keys uniform in [0, N), the band [0, m - 1] (about m matches per row).
// Each timed call is a whole join on device data, as a user makes it (device result; CUDA
// events on a private stream; median of 5). Counters: rows_per_s (both inputs),
// result_pairs_per_s, output_bytes_per_s, results.
//
//   bench_sorted_join [--sizes=1048576,4194304,16777216,67108864] [--nested_max=1048576]
#include "bench_common.cuh"

#include <twobody/band_join.cuh>

#include <thrust/binary_search.h>
#include <thrust/device_vector.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace {

using namespace bench;

struct config {
  std::vector<long long> sizes{1ll << 20, 1ll << 22, 1ll << 24, 1ll << 26};
  long long nested_max = 1ll << 20;
} cfg;

__host__ __device__ inline unsigned long long mix(unsigned long long x)  // splitmix64
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct uniform_key {
  unsigned long long seed, n;
  __device__ int operator()(long long i) const { return static_cast<int>(mix(seed * 0x100000001b3ull + i) % n); }
};
/// Every key of [0, n) once (n a power of two: an odd multiplier permutes the residues).
struct unique_key {
  unsigned long long n;
  __device__ int operator()(long long i) const
  {
    return static_cast<int>((static_cast<unsigned long long>(i) * 0x9e3779b1ull + 12345) & (n - 1));
  }
};
struct zipf_key {
  double const* cdf;
  int ranks;
  unsigned long long seed, n;
  __device__ int operator()(long long i) const
  {
    double const u = static_cast<double>(mix(seed * 0x100000001b3ull + i) >> 11) * (1.0 / 9007199254740992.0);
    int lo = 0, hi = ranks - 1;
    while (lo < hi) {  // first rank with cdf >= u
      int const mid = (lo + hi) / 2;
      if (cdf[mid] < u) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return unique_key{n}(lo);  // rank -> one of A's keys
  }
};

struct key_column {
  thrust::device_vector<int> key;
  twobody::table<int, 1> view() const
  {
    return twobody::make_points<int>(static_cast<twobody::size_type>(key.size()), thrust::raw_pointer_cast(key.data()));
  }
};

/// The two key columns of a case at size n (generated on the device, cached).
std::pair<key_column const*, key_column const*> tables(std::string const& kind, long long n)
{
  static std::map<std::pair<std::string, long long>, std::unique_ptr<key_column>> cache;
  auto make = [&](std::string const& what, auto gen) -> key_column const* {
    for (auto it = cache.begin(); it != cache.end();) {  // one size at a time: 2^26-row tables are 256 MB each
      it = it->first.second != n ? cache.erase(it) : std::next(it);
    }
    auto& slot = cache[{what, n}];
    if (!slot) {
      slot = std::make_unique<key_column>();
      slot->key.resize(static_cast<std::size_t>(n));
      thrust::transform(thrust::counting_iterator<long long>(0), thrust::counting_iterator<long long>(n),
                        slot->key.begin(), gen);
    }
    return slot.get();
  };
  auto const un = static_cast<unsigned long long>(n);
  if (kind.rfind("equi_zipf", 0) == 0) {
    double const s = kind == "equi_zipf1.0" ? 1.0 : 1.5;
    int const ranks = 1 << 20;
    static thrust::device_vector<double> cdf;
    static double cdf_s = 0;
    if (cdf_s != s) {
      std::vector<double> h(ranks);
      double sum = 0;
      for (int r = 0; r < ranks; ++r) { h[r] = (sum += std::pow(double(r + 1), -s)); }
      for (double& c : h) { c /= sum; }
      cdf   = h;
      cdf_s = s;
    }
    key_column const* b = make(kind + "/b", zipf_key{thrust::raw_pointer_cast(cdf.data()), ranks, 2, un});
    key_column const* a = make("unique/a", unique_key{un});
    return {a, b};
  }
  key_column const* b = make("uniform/b", uniform_key{2, un});
  key_column const* a = make("uniform/a", uniform_key{1, un});
  return {a, b};
}

int band_width(std::string const& kind)
{
  if (kind == "band10") { return 10; }
  if (kind == "band1000") { return 1000; }
  return 1;
}

void set_join_counters(benchmark::State& state, double rows, double results)
{
  double const it = double(state.iterations());
  state.counters["rows_per_s"]         = benchmark::Counter(rows * it, benchmark::Counter::kIsRate);
  state.counters["result_pairs_per_s"] = benchmark::Counter(results * it, benchmark::Counter::kIsRate);
  state.counters["output_bytes_per_s"] =
    benchmark::Counter(results * sizeof(twobody::index_pair) * it, benchmark::Counter::kIsRate);
  state.counters["results"] = results;
}

void bench_twobody(benchmark::State& state, std::string const& kind, twobody::join_method m)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const ab = tables(kind, n);
    key_column const *a = ab.first, *b = ab.second;
    int const w       = band_width(kind);
    twobody::join_options opt;
    opt.method = m;
    gpu_timer t;
    double results = 0;
    t.run(state, [&](cudaStream_t s, long long it) {
      auto av = a->view(), bv = b->view();
      if (it < 0) { av.size = bv.size = 8192; }
      auto r = twobody::band_join(twobody::cross_pairs(av, bv), 0, 0, w - 1, opt, s);
      if (it >= 0) { results = double(r.size()); }
    });
    set_join_counters(state, 2.0 * double(n), results);
    if (m == twobody::join_method::nested_loop) {
      state.counters["pairs_per_s"] =
        benchmark::Counter(double(n) * double(n) * double(state.iterations()), benchmark::Counter::kIsRate);
    }
  });
}

/// The plain Thrust sort-merge join a user would write.
struct plus_const {
  int c;
  __device__ int operator()(int k) const { return k + c; }
};
struct write_range {
  unsigned int const* b_rows;
  unsigned int const* lo;
  unsigned int const* count;
  unsigned long long const* offset;
  twobody::index_pair* out;
  __device__ void operator()(unsigned int i) const
  {
    for (unsigned int t = 0; t < count[i]; ++t) { out[offset[i] + t] = {i, b_rows[lo[i] + t]}; }
  }
};

void bench_thrust(benchmark::State& state, std::string const& kind)
{
  guarded(state, [&] {
    long long const n = state.range(0);
    auto const ab = tables(kind, n);
    key_column const *a = ab.first, *b = ab.second;
    int const w       = band_width(kind);
    gpu_timer t;
    double results = 0;
    t.run(state, [&](cudaStream_t s, long long it) {
      std::size_t const na = it < 0 ? 8192 : a->key.size(), nb = it < 0 ? 8192 : b->key.size();
      auto const pol = thrust::cuda::par.on(s);
      thrust::device_vector<int> bk(b->key.begin(), b->key.begin() + nb);
      thrust::device_vector<unsigned int> brow(nb), lo(na), hi(na);
      thrust::sequence(pol, brow.begin(), brow.end());
      thrust::sort_by_key(pol, bk.begin(), bk.end(), brow.begin());
      thrust::lower_bound(pol, bk.begin(), bk.end(), thrust::make_transform_iterator(a->key.begin(), plus_const{0}),
                          thrust::make_transform_iterator(a->key.begin() + na, plus_const{0}), lo.begin());
      thrust::upper_bound(pol, bk.begin(), bk.end(), thrust::make_transform_iterator(a->key.begin(), plus_const{w - 1}),
                          thrust::make_transform_iterator(a->key.begin() + na, plus_const{w - 1}), hi.begin());
      thrust::transform(pol, hi.begin(), hi.end(), lo.begin(), hi.begin(), thrust::minus<unsigned int>());  // counts
      thrust::device_vector<unsigned long long> off(na);
      thrust::exclusive_scan(pol, hi.begin(), hi.end(), off.begin(), 0ull);
      unsigned long long const total = na == 0 ? 0 : static_cast<unsigned long long>(off.back()) + hi.back();
      thrust::device_vector<twobody::index_pair> out(total);
      thrust::for_each(pol, thrust::counting_iterator<unsigned int>(0), thrust::counting_iterator<unsigned int>(na),
                       write_range{thrust::raw_pointer_cast(brow.data()), thrust::raw_pointer_cast(lo.data()),
                                   thrust::raw_pointer_cast(hi.data()), thrust::raw_pointer_cast(off.data()),
                                   thrust::raw_pointer_cast(out.data())});
      EXAMPLE_CUDA_CHECK(cudaStreamSynchronize(s));
      if (it >= 0) { results = double(total); }
    });
    set_join_counters(state, 2.0 * double(n), results);
  });
}

void add(std::string const& name, std::vector<long long> const& sizes, std::function<void(benchmark::State&)> fn)
{
  if (sizes.empty()) { return; }
  auto* b = benchmark::RegisterBenchmark(name.c_str(), fn);
  b->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true)->UseManualTime()->Iterations(1);
  for (long long n : sizes) { b->Arg(n); }
}

void register_gpu()
{
  std::vector<long long> up_to_2_22, nested;
  for (long long n : cfg.sizes) {
    if (n <= (1ll << 22)) { up_to_2_22.push_back(n); }
    if (n <= cfg.nested_max) { nested.push_back(n); }
  }
  for (std::string const kind : {"equi_uniform", "equi_zipf1.0", "equi_zipf1.5", "band10", "band1000"}) {
    // band1000 writes 1000 N records: 8 GB at 2^20, so it stops at 2^22
    auto const& sizes = kind == "band1000" ? up_to_2_22 : cfg.sizes;
    add(kind + "/sorted", sizes, [kind](benchmark::State& s) { bench_twobody(s, kind, twobody::join_method::sorted); });
    add(kind + "/thrust", sizes, [kind](benchmark::State& s) { bench_thrust(s, kind); });
    if (kind == "equi_uniform" || kind == "band10") {
      add(kind + "/nested_loop", nested,
          [kind](benchmark::State& s) { bench_twobody(s, kind, twobody::join_method::nested_loop); });
    }
  }
}

bool parse_own_flags(int& argc, char** argv)
{
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (char const* v = value_of(argv[i], "--sizes")) {
      if (!parse_sizes(v, cfg.sizes)) { return false; }
      for (long long n : cfg.sizes) {
        if ((n & (n - 1)) != 0) {
          std::fprintf(stderr, "--sizes: powers of two only (the unique keys are a multiplicative permutation)\n");
          return false;
        }
      }
    } else if (char const* v = value_of(argv[i], "--nested_max")) {
      cfg.nested_max = std::atoll(v);
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  return true;
}

}  // namespace

int main(int argc, char** argv)
{
  if (!parse_own_flags(argc, argv)) { return 1; }
  if (record_context()) { register_gpu(); }
  return run_registered(argc, argv);
}
