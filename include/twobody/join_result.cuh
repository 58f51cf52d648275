/// \file join_result.cuh
/// \brief What joins return: the records (index pairs by default), the result object that owns
/// them in device or host memory, the run's statistics, the options, and a sort helper.
#pragma once

#include <twobody/join_records.cuh>
#include <twobody/util/device_array.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/error.cuh>

#include <cub/device/device_merge_sort.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace twobody {

/// Where a join's result lives.
enum class result_location {
  device,  ///< one device array (must fit in GPU memory)
  host,    ///< host memory: pages stream to the host in rounds, so results larger than the GPU work
};

/// How a band or equi-join (band_join, equi_join) finds its pairs.
enum class join_method {
  automatic,    ///< sorted where its estimated cost is below the nested loop's (model/join_method.cuh)
  nested_loop,  ///< test every pair (the tiled pair engine)
  sorted,       ///< sort the key columns, then visit only each row's range of partners
};

/// Knobs of a join. The defaults suit most calls: a pool sized from a sampled estimate of
/// the result size (so most joins finish in one round), in a quarter of free device memory.
struct join_options {
  /// Where the one-call forms put the result.
  result_location location = result_location::device;
  /// Bytes of device memory the join may use besides the inputs and a device result: the
  /// page pool, its bookkeeping and (host results) the drain buffer. 0: a quarter of the
  /// device memory free at the call.
  std::size_t device_memory_budget = 0;
  /// Capacity of the first page pool, in records; 0: from the sampled estimate.
  std::size_t pool_records = 0;
  /// Pairs evaluated to estimate the result size (hashed pseudo-random pairs).
  std::uint64_t sample_pairs = std::uint64_t(1) << 20;
  /// After a round that ran out of pages, size the next pool for the rest of the work (within
  /// the budget). false keeps the pool (tests use it to force many rounds); a pool that cannot
  /// finish even one work unit still doubles.
  bool grow_pool = true;
  /// Band and equi-joins only: sorted key ranges or the nested loop (default: the cheaper).
  join_method method = join_method::automatic;
};

/// How a join ran.
struct join_stats {
  std::uint64_t results           = 0;  ///< records produced
  std::uint64_t estimated_results = 0;  ///< the sampled estimate (0 when pool_records was given)
  std::uint64_t pool_records      = 0;  ///< capacity of the last page pool
  int rounds                      = 0;  ///< kernel rounds (1 when the first pool sufficed)
  std::uint64_t units_rolled_back = 0;  ///< work units (tile pairs) redone after the pool ran out
  join_method method              = join_method::nested_loop;  ///< sorted: a band or equi-join's key ranges
};

namespace detail {

/// Orders records by (i, j).
struct by_index_pair {
  template <class R>
  __host__ __device__ bool operator()(R const& x, R const& y) const
  {
    return x.i < y.i || (x.i == y.i && x.j < y.j);
  }
};

}  // namespace detail

/// The records of a join, owned in device or host memory. Their order is unspecified (pages
/// fill in the order warps reach them); sort_by_index() orders them by (i, j).
template <class Record>
class join_result {
 public:
  join_result() = default;
  join_result(detail::device_array<Record> d, std::size_t n, join_stats s)
    : location_(result_location::device), device_(std::move(d)), size_(n), stats_(s)
  {
  }
  join_result(std::vector<Record> h, join_stats s)
    : location_(result_location::host), host_(std::move(h)), size_(host_.size()), stats_(s)
  {
  }

  result_location location() const { return location_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  /// The records: a device pointer for result_location::device, a host pointer otherwise.
  Record* data() { return location_ == result_location::device ? device_.data() : host_.data(); }
  Record const* data() const { return location_ == result_location::device ? device_.data() : host_.data(); }
  join_stats const& stats() const { return stats_; }

  /// A host copy of the records (synchronous).
  std::vector<Record> to_host() const
  {
    if (location_ == result_location::host) { return host_; }
    std::vector<Record> h(size_);
    if (size_ != 0) { TWOBODY_CUDA_TRY(cudaMemcpy(h.data(), device_.data(), size_ * sizeof(Record), cudaMemcpyDeviceToHost)); }
    return h;
  }

 private:
  result_location location_ = result_location::device;
  detail::device_array<Record> device_;
  std::vector<Record> host_;
  std::size_t size_ = 0;
  join_stats stats_{};
};

/// Sorts records with members i and j by (i, j): on the device (CUB's merge sort, on `stream`,
/// which is synchronized) or on the host, wherever the result lives.
template <class Record>
void sort_by_index(join_result<Record>& r, cudaStream_t stream = 0)
{
  if (r.size() < 2) { return; }
  if (r.location() == result_location::device) {
    // CUB rather than thrust::sort (the same merge sort): Thrust's sort headers would add seconds
    // to the compile of every file that includes a join.
    auto const n      = static_cast<std::int64_t>(r.size());
    std::size_t bytes = 0;
    TWOBODY_CUDA_TRY(cub::DeviceMergeSort::SortKeys(nullptr, bytes, r.data(), n, detail::by_index_pair{}, stream));
    detail::device_buffer const scratch(bytes, stream);
    TWOBODY_CUDA_TRY(cub::DeviceMergeSort::SortKeys(scratch.data(), bytes, r.data(), n, detail::by_index_pair{}, stream));
    TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
  } else {
    std::sort(r.data(), r.data() + r.size(), detail::by_index_pair{});
  }
}

/// Sorts host records with members i and j by (i, j).
template <class Record>
void sort_by_index(std::vector<Record>& v)
{
  std::sort(v.begin(), v.end(), detail::by_index_pair{});
}

}  // namespace twobody
