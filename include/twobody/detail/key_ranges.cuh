#pragma once

/// The sorted path of band and equi-joins (band_join.cuh): each key column sorted with its row
/// indices (CUB radix sort), each row of A's range of partners in B found by two binary
/// searches, a prefix sum over the range lengths, and the candidate pairs enumerated by a
/// merge path over (row ends, outputs) so that every thread takes the same number of steps
/// however the matches are spread (one key holding most rows, or most rows matching nothing).
///
/// The merged sequence has rows + total items: item d is either an output (a candidate pair)
/// or the end of a row. Row p ends at position offsets[p + 1] + p, so the rows ended before
/// position d are found by one binary search, and from there a walker steps through outputs
/// and row ends in O(1) each.

#include <twobody/engine/engine.cuh>
#include <twobody/engine/visitors.cuh>
#include <twobody/join_result.cuh>
#include <twobody/math/band_keys.cuh>
#include <twobody/points.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/device_info.cuh>
#include <twobody/util/error.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <cuda/std/cstdint>

namespace twobody::detail {

// ---------------------------------------------------------------------------------------------
// Sorting a key column

/// Blocks for a grid-stride kernel over `items`: enough to fill the GPU, no more than needed.
inline int grid_for(unsigned long long items, int block, int cap_per_sm = 8)
{
  unsigned long long const want = (items + block - 1) / block;
  unsigned long long const cap  = static_cast<unsigned long long>(cap_per_sm) * device_info::get().sm_count;
  return static_cast<int>(want < 1 ? 1 : (want < cap ? want : cap));
}

/// perm[k] = k.
template <class Index>
__global__ void iota_kernel(Index* perm, unsigned long long n)
{
  for (unsigned long long k = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < n;
       k += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    perm[k] = static_cast<Index>(k);
  }
}

/// window = [first, last): the sorted positions whose keys are not NaN. The radix sort orders
/// NaNs with the sign bit set before every other key and the others after every other key.
template <class T>
__global__ void nan_window_kernel(T const* keys, unsigned long long n, unsigned long long* window)
{
  if (blockIdx.x != 0 || threadIdx.x != 0) { return; }
  unsigned long long first = 0, last = n;
  if constexpr (cuda::std::is_floating_point_v<T>) {
    first = partition_point(keys, 0, n, [](T k) { return key_is_nan(k) && signbit(k); });
    last  = partition_point(keys, first, n, [](T k) { return !key_is_nan(k); });
  }
  window[0] = first;
  window[1] = last;
}

/// One key column in ascending order with the row each key came from, and its non-NaN window
/// (on the device).
template <class T>
struct sorted_column {
  device_buffer keys, perm, window;
  unsigned long long rows = 0;

  T const* key_data() const { return keys.as<T const>(); }
  cuda::std::uint32_t const* perm_data() const { return perm.as<cuda::std::uint32_t const>(); }
  unsigned long long const* window_data() const { return window.as<unsigned long long const>(); }
};

template <class T>
sorted_column<T> sort_column(T const* column, unsigned long long n, cudaStream_t stream)
{
  sorted_column<T> s;
  s.rows   = n;
  s.keys   = device_buffer(n * sizeof(T), stream);
  s.perm   = device_buffer(n * sizeof(cuda::std::uint32_t), stream);
  s.window = device_buffer(2 * sizeof(unsigned long long), stream);
  device_buffer rows(n * sizeof(cuda::std::uint32_t), stream);
  iota_kernel<<<grid_for(n, 256), 256, 0, stream>>>(rows.template as<cuda::std::uint32_t>(), n);
  TWOBODY_CHECK_LAUNCH();
  std::size_t bytes = 0;
  TWOBODY_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, column, s.keys.template as<T>(),
                                                   rows.template as<cuda::std::uint32_t const>(),
                                                   s.perm.template as<cuda::std::uint32_t>(), n, 0, int(sizeof(T) * 8), stream));
  device_buffer temp(bytes, stream);
  TWOBODY_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, column, s.keys.template as<T>(),
                                                   rows.template as<cuda::std::uint32_t const>(),
                                                   s.perm.template as<cuda::std::uint32_t>(), n, 0, int(sizeof(T) * 8), stream));
  nan_window_kernel<<<1, 1, 0, stream>>>(s.key_data(), n, s.window.template as<unsigned long long>());
  TWOBODY_CHECK_LAUNCH();
  return s;
}

// ---------------------------------------------------------------------------------------------
// Ranges

/// For each sorted position p of A: the first sorted position of B in its band and the number
/// of them (self mode: only positions after p, so each unordered pair once).
template <class T>
__global__ void key_ranges_kernel(T const* ka, unsigned long long na, T const* kb, unsigned long long const* window,
                                  band_test<T> band, bool self, cuda::std::uint32_t* first, cuda::std::uint32_t* count)
{
  unsigned long long const lo = window[0], hi = window[1];
  for (unsigned long long p = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; p < na;
       p += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    unsigned long long begin = 0, end = 0;
    band_range(band, ka[p], kb, lo, hi, begin, end);
    if (self && begin <= p) { begin = p + 1; }
    if (end < begin) { end = begin; }
    first[p] = static_cast<cuda::std::uint32_t>(begin);
    count[p] = static_cast<cuda::std::uint32_t>(end - begin);
  }
}

/// What the enumeration kernels see of the ranges (trivially copyable).
struct range_view {
  unsigned long long rows  = 0;                  ///< sorted positions of A
  unsigned long long total = 0;                  ///< candidate pairs (outputs)
  unsigned long long const* offsets = nullptr;   ///< rows + 1: row p's outputs are [offsets[p], offsets[p + 1])
  cuda::std::uint32_t const* first  = nullptr;   ///< row p's first partner (sorted position in B)
  cuda::std::uint32_t const* perm_a = nullptr;   ///< input row of each sorted position of A
  cuda::std::uint32_t const* perm_b = nullptr;   ///< ... of B (self mode: perm_a)
  bool self = false;

  __host__ __device__ unsigned long long diagonals() const { return rows + total; }

  /// Rows ended before merged position d: the p with offsets[p + 1] + p < d.
  __device__ unsigned long long rows_before(unsigned long long d) const
  {
    unsigned long long lo = d > total ? d - total : 0, hi = d < rows ? d : rows;
    while (lo < hi) {
      unsigned long long const mid = lo + (hi - lo) / 2;
      if (__ldg(offsets + mid + 1) + mid < d) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
};

/// A position in the merged sequence: row p, output k, and row p's output range.
struct range_walker {
  unsigned long long p, k, begin, end;

  __device__ static range_walker at(range_view const& v, unsigned long long d)
  {
    range_walker w;
    w.p     = v.rows_before(d);
    w.k     = d - w.p;
    w.begin = w.p < v.rows ? __ldg(v.offsets + w.p) : v.total;
    w.end   = w.p < v.rows ? __ldg(v.offsets + w.p + 1) : v.total;
    return w;
  }
  /// The item here is an output (else the end of row p).
  __device__ bool at_output() const { return k < end; }
  /// B's sorted position of the output here.
  __device__ unsigned long long partner(range_view const& v) const { return __ldg(v.first + p) + (k - begin); }
  __device__ void advance(range_view const& v)
  {
    if (k < end) {
      ++k;
    } else {
      ++p;
      begin = end;
      end   = p < v.rows ? __ldg(v.offsets + p + 1) : end;
    }
  }
};

/// The merged position of output k (for a chunk of outputs [k, k')): written to *d.
template <class View>
__global__ void diagonal_of_output_kernel(View v, unsigned long long k, unsigned long long* d)
{
  if (blockIdx.x != 0 || threadIdx.x != 0) { return; }
  // rows with offsets[p + 1] <= k have all ended before output k
  unsigned long long lo = 0, hi = v.rows;
  while (lo < hi) {
    unsigned long long const mid = lo + (hi - lo) / 2;
    if (v.offsets[mid + 1] <= k) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  *d = k + lo;
}

/// The index pair of row p's output at partner position q: input indices, self mode i < j.
__device__ __forceinline__ index_pair index_pair_of(range_view const& v, unsigned long long p, unsigned long long q)
{
  cuda::std::uint32_t const i = __ldg(v.perm_a + p), j = __ldg(v.perm_b + q);
  return v.self && j < i ? index_pair{j, i} : index_pair{i, j};
}

/// The exact path: every candidate pair is a result. Writes the outputs of merged positions
/// [d_begin, d_end) to out[k - k_begin], staged per block in shared memory so the stores are
/// coalesced (a block's B x ITEMS positions hold at most B x ITEMS outputs).
template <int B, int ITEMS>
__global__ void __launch_bounds__(B)
  expand_ranges_kernel(range_view v, unsigned long long d_begin, unsigned long long d_end, unsigned long long k_begin,
                       index_pair* out)
{
  __shared__ index_pair stage[B * ITEMS];
  __shared__ unsigned long long span[2];
  constexpr unsigned long long per_block = static_cast<unsigned long long>(B) * ITEMS;
  for (unsigned long long d0 = d_begin + static_cast<unsigned long long>(blockIdx.x) * per_block; d0 < d_end;
       d0 += static_cast<unsigned long long>(gridDim.x) * per_block) {
    unsigned long long d          = d0 + static_cast<unsigned long long>(threadIdx.x) * ITEMS;
    unsigned long long const stop = d + ITEMS < d_end ? d + ITEMS : d_end;
    range_walker w                = range_walker::at(v, d < d_end ? d : d_end);
    if (threadIdx.x == 0) { span[0] = w.k; }
    __syncthreads();
    unsigned long long const k0 = span[0];
    for (; d < stop; ++d) {
      if (w.at_output()) { stage[w.k - k0] = index_pair_of(v, w.p, w.partner(v)); }
      w.advance(v);
    }
    if (threadIdx.x == B - 1) { span[1] = w.k; }  // the last thread ends where the block does
    __syncthreads();
    unsigned long long const n = span[1] - k0;
    index_pair* dst            = out + (k0 - k_begin);
    for (unsigned long long t = threadIdx.x; t < n; t += B) { dst[t] = stage[t]; }
    __syncthreads();
  }
}

// ---------------------------------------------------------------------------------------------
// Engine traversal: the candidate pairs as work units, for joins with a further predicate

/// Engine traversal (engine.cuh) over the candidate pairs of the key ranges: unit u is merged
/// positions [u x B x ITEMS, (u + 1) x B x ITEMS), ITEMS consecutive ones per thread. Each
/// candidate goes to the visitor as (row i of A, row j of B, i, j) with input indices (self
/// mode: i < j, rows in that order), one pair at a time (visit(): the lanes diverge where rows
/// change).
template <int B, int ITEMS, class Points>
struct key_range_traversal {
  static constexpr int block_threads            = B;
  static constexpr int min_blocks_per_sm        = 0;
  static constexpr unsigned long long unit_size = static_cast<unsigned long long>(B) * ITEMS;

  struct params {
    range_view v;
    Points a;
    Points b;  ///< self mode: a
  };
  struct temp_storage {};

  params const& p;

  __device__ key_range_traversal(params const& p_, temp_storage&) : p(p_) {}

  static unsigned long long units(range_view const& v) { return (v.diagonals() + unit_size - 1) / unit_size; }

  template <class Source, class Visitor>
  __device__ void run(Source& units, Visitor& out)
  {
    range_view const& v = p.v;
    for (unsigned long long unit = 0; units.next(unit);) {
      out.begin_unit();
      unsigned long long d          = unit * unit_size + static_cast<unsigned long long>(threadIdx.x) * ITEMS;
      unsigned long long const stop = d + ITEMS < v.diagonals() ? d + ITEMS : v.diagonals();
      if (d < stop) {
        range_walker w = range_walker::at(v, d);
        unsigned long long row = ~0ull;
        cuda::std::uint32_t i  = 0;
        typename Points::point_type a{};
        for (; d < stop; ++d) {
          if (w.at_output()) {
            if (w.p != row) {  // a thread's items mostly share one row: load it once
              row = w.p;
              i   = __ldg(v.perm_a + row);
              a   = p.a.load_readonly(i);
            }
            cuda::std::uint32_t const j = __ldg(v.perm_b + w.partner(v));
            auto const b                = p.b.load_readonly(j);
            if (v.self && j < i) {
              out.visit(0, b, a, j, i, unweighted{}, true);
            } else {
              out.visit(0, a, b, i, j, unweighted{}, true);
            }
          }
          w.advance(v);
        }
      }
      if (!end_unit(out, units, unit, 0)) { break; }
    }
  }
};

}  // namespace twobody::detail
