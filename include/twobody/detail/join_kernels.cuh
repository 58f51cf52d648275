#pragma once

#include <twobody/detail/tile_traversal.cuh>
#include <twobody/output/direct_output_buffer.cuh>
#include <twobody/points.cuh>

#include <cub/block/block_reduce.cuh>

#include <cuda/std/cstdint>

namespace twobody::detail {

/// Result-size estimate: evaluates `samples` pseudo-random pairs of the set (hashed indices,
/// self mode i < j) and adds the number that pass to *hits.
template <int B, class Points, class Emitter, class Record>
__global__ void __launch_bounds__(B)
  join_sample_kernel(kernel_inputs<Points> in, Emitter e, unsigned long long samples, unsigned long long* hits)
{
  auto mix = [](unsigned long long x) {  // splitmix64 finalizer
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  auto const na = static_cast<unsigned long long>(in.a.size);
  auto const nb = static_cast<unsigned long long>(in.b.size);
  unsigned long long mine = 0;
  Record rec{};
  for (unsigned long long s = static_cast<unsigned long long>(blockIdx.x) * B + threadIdx.x; s < samples;
       s += static_cast<unsigned long long>(gridDim.x) * B) {
    unsigned long long const h = mix(s);
    unsigned long long i = ((h >> 32) * na) >> 32;
    unsigned long long j = ((h & 0xffffffffull) * nb) >> 32;
    if (in.mode != pair_mode::cross) {
      if (i == j) { j = j + 1 == nb ? 0 : j + 1; }
      if (in.mode == pair_mode::self && j < i) {
        unsigned long long const t = i;
        i                          = j;
        j                          = t;
      }
    }
    mine += e(in.a.load_readonly(static_cast<size_type>(i)), in.b.load_readonly(static_cast<size_type>(j)),
              static_cast<size_type>(i), static_cast<size_type>(j), rec)
              ? 1u
              : 0u;
  }
  using reduce = cub::BlockReduce<unsigned long long, B>;
  __shared__ typename reduce::TempStorage temp;
  unsigned long long const sum = reduce(temp).Sum(mine);
  if (threadIdx.x == 0 && sum != 0) { atomicAdd(hits, sum); }
}

/// Drain: copies the filled part of each page to dst, page p from page_end[p] - page_count[p] on
/// (page_end: the inclusive prefix sum of the counts).
template <class Record, int PS>
__global__ void gather_pages_kernel(Record const* records, cuda::std::uint32_t const* page_count,
                                    unsigned long long const* page_end, unsigned long long pages, Record* dst)
{
  unsigned long long const slots = pages * PS;
  for (unsigned long long t = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; t < slots;
       t += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    unsigned long long const p = t / PS;
    unsigned const k           = static_cast<unsigned>(t - p * PS);
    unsigned const c           = page_count[p];
    if (k < c) { dst[page_end[p] - c + k] = records[t]; }
  }
}

/// Counts the records a join would emit (size estimates of the grid, sorted and row joins over
/// sampled work units).
template <class Record>
struct record_counter {
  static constexpr bool can_fail = false;
  struct params {
    unsigned long long* hits;
  };
  params p;
  unsigned long long n = 0;
  __device__ explicit record_counter(params const& p_) : p(p_) {}
  __device__ void begin_unit() {}
  __device__ void push(Record const&) { ++n; }
  template <int R, class Rebuild>
  __device__ void emit_mask(unsigned mask, Rebuild&&)
  {
    n += static_cast<unsigned>(__popc(mask));
  }
  __device__ bool failed() const { return false; }
  __device__ void rollback() {}
  __device__ void finish()
  {
    if (n != 0) { atomicAdd(p.hits, n); }
  }
};

}  // namespace twobody::detail
