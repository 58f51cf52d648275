/// \file grid_index.cuh
/// \brief The class twobody::grid_index, which the public grid_index.cuh documents and
/// exports: the build (sort by cell id, run-length encode, prefix sum) and the device view the
/// grid traversal reads. It lives below dispatch/, which plans grid statistics over it.
#pragma once

#include <twobody/detail/grid_kernels.cuh>
#include <twobody/math/grid_geometry.cuh>
#include <twobody/points.cuh>
#include <twobody/util/device_array.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/device_info.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/staging.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>

#include <cuda/std/array>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace twobody {

template <class T, int D>
class grid_index {
  static_assert(cuda::std::is_floating_point_v<T>, "twobody::grid_index: coordinates must be float or double");

 public:
  /// Indexes `pts` (host or device memory) with cells of side >= cutoff over their bounding box.
  grid_index(points<T, D> const& pts, T cutoff, cudaStream_t stream = 0) { build(pts, cutoff, nullptr, stream); }

  /// Indexes `pts` in the periodic box [0, box_d) (every coordinate must lie in it).
  grid_index(points<T, D> const& pts, T cutoff, cuda::std::array<T, D> const& box, cudaStream_t stream = 0)
  {
    build(pts, cutoff, &box, stream);
  }

  T cutoff() const { return cutoff_; }
  size_type size() const { return n_; }
  long long cell_count() const { return cells_; }
  bool periodic() const { return geo_.periodic; }
  /// The periodic box's side lengths (periodic indexes; zeros otherwise).
  cuda::std::array<T, D> const& box() const { return box_; }
  detail::grid_geometry<D> const& geometry() const { return geo_; }

  /// The points in cell order (device memory).
  points<T, D> sorted_points() const
  {
    points<T, D> p;
    for (int d = 0; d < D; ++d) { p.coords[d] = coords_[d].data(); }
    p.size = n_;
    return p;
  }
  /// Input index of each sorted position (device memory, size() entries).
  std::uint32_t const* permutation() const { return perm_.data(); }

  detail::grid_view<T, D> view() const
  {
    return {geo_, sorted_points(), perm_.data(), cell_id_.data(), cell_begin_.data(), cells_};
  }

  /// Points per non-empty cell, in id order (host copy; for tests and diagnostics).
  std::vector<std::uint32_t> cell_sizes() const
  {
    std::vector<std::uint32_t> begin(static_cast<std::size_t>(cells_) + 1);
    if (n_ == 0) { return {}; }
    TWOBODY_CUDA_TRY(cudaMemcpy(begin.data(), cell_begin_.data(), begin.size() * sizeof(std::uint32_t),
                                cudaMemcpyDeviceToHost));
    std::vector<std::uint32_t> sizes(static_cast<std::size_t>(cells_));
    for (std::size_t c = 0; c < sizes.size(); ++c) { sizes[c] = begin[c + 1] - begin[c]; }
    return sizes;
  }

 private:
  void build(points<T, D> const& pts, T cutoff, cuda::std::array<T, D> const* box, cudaStream_t stream)
  {
    TWOBODY_EXPECTS(pts.size >= 0 && pts.size < (size_type(1) << 32) - 1,
                    "grid_index: the point set needs fewer than 2^32 - 1 points");
    TWOBODY_EXPECTS(!(cutoff != cutoff) && cutoff > T(0) && cutoff < std::numeric_limits<T>::infinity(),
                    "grid_index: the cutoff must be finite and > 0");
    cutoff_ = cutoff;
    n_      = pts.size;
    detail::staged_points<points<T, D>> staged(pts, stream);
    points<T, D> const in = staged.view();

    // Bounding box (also checks coordinates: NaN and inf cannot be indexed).
    double lo[D], hi[D];
    bounds(in, lo, hi, stream);
    if (box != nullptr) {
      double side[D];
      for (int d = 0; d < D; ++d) {
        side[d] = static_cast<double>((*box)[d]);
        TWOBODY_EXPECTS(n_ == 0 || (lo[d] >= 0 && hi[d] < side[d]),
                        ("grid_index: periodic coordinates must lie in [0, box) (dimension " + std::to_string(d) +
                         " spans [" + std::to_string(lo[d]) + ", " + std::to_string(hi[d]) + "])")
                          .c_str());
      }
      geo_ = detail::make_periodic_grid_geometry<D>(side, static_cast<double>(cutoff));
      box_ = *box;
    } else {
      if (n_ == 0) {
        for (int d = 0; d < D; ++d) { lo[d] = hi[d] = 0; }
      }
      geo_ = detail::make_grid_geometry<D>(lo, hi, static_cast<double>(cutoff));
    }
    if (n_ == 0) { return; }

    std::size_t const n = static_cast<std::size_t>(n_);
    int const threads   = 256;
    int const blocks    = static_cast<int>(std::min<std::size_t>((n + threads - 1) / threads,
                                                                 8u * device_info::get().sm_count));
    detail::device_buffer keys(n * sizeof(unsigned long long), stream), keys_sorted(n * sizeof(unsigned long long), stream);
    detail::device_buffer index(n * sizeof(std::uint32_t), stream);
    perm_ = detail::device_array<std::uint32_t>(n);
    detail::device_buffer bad(sizeof(int), stream);
    TWOBODY_CUDA_TRY(cudaMemsetAsync(bad.data(), 0, sizeof(int), stream));
    detail::grid_keys_kernel<T, D><<<blocks, threads, 0, stream>>>(in, geo_, keys.as<unsigned long long>(),
                                                                   index.as<std::uint32_t>(), bad.as<int>());
    TWOBODY_CHECK_LAUNCH();

    // Sort by cell id (only the bits the ids use).
    int end_bit = 1;
    while (end_bit < 64 && (geo_.total() - 1) >> end_bit != 0) { ++end_bit; }
    std::size_t sort_bytes = 0;
    TWOBODY_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys.as<unsigned long long>(),
                                                     keys_sorted.as<unsigned long long>(), index.as<std::uint32_t>(),
                                                     perm_.data(), static_cast<long long>(n), 0, end_bit, stream));
    {
      detail::device_buffer temp(sort_bytes, stream);
      TWOBODY_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp.data(), sort_bytes, keys.as<unsigned long long>(),
                                                       keys_sorted.as<unsigned long long>(), index.as<std::uint32_t>(),
                                                       perm_.data(), static_cast<long long>(n), 0, end_bit, stream));
    }

    // Runs of equal ids: the non-empty cells and their sizes; a prefix sum gives their ranges.
    detail::device_buffer unique(n * sizeof(unsigned long long), stream);
    detail::device_buffer counts((n + 1) * sizeof(std::uint32_t), stream);
    detail::device_buffer runs(sizeof(long long), stream);
    std::size_t rle_bytes = 0;
    TWOBODY_CUDA_TRY(cub::DeviceRunLengthEncode::Encode(nullptr, rle_bytes, keys_sorted.as<unsigned long long>(),
                                                        unique.as<unsigned long long>(), counts.as<std::uint32_t>(),
                                                        runs.as<long long>(), static_cast<long long>(n), stream));
    {
      detail::device_buffer temp(rle_bytes, stream);
      TWOBODY_CUDA_TRY(cub::DeviceRunLengthEncode::Encode(temp.data(), rle_bytes, keys_sorted.as<unsigned long long>(),
                                                          unique.as<unsigned long long>(), counts.as<std::uint32_t>(),
                                                          runs.as<long long>(), static_cast<long long>(n), stream));
    }
    int bad_host = 0;
    TWOBODY_CUDA_TRY(cudaMemcpyAsync(&cells_, runs.data(), sizeof(long long), cudaMemcpyDeviceToHost, stream));
    TWOBODY_CUDA_TRY(cudaMemcpyAsync(&bad_host, bad.data(), sizeof(int), cudaMemcpyDeviceToHost, stream));
    TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
    TWOBODY_EXPECTS(bad_host == 0, "grid_index: coordinates must be finite (NaN or infinite coordinates cannot be indexed)");
    std::size_t const c = static_cast<std::size_t>(cells_);
    cell_id_    = detail::device_array<unsigned long long>(c);
    cell_begin_ = detail::device_array<std::uint32_t>(c + 1);
    TWOBODY_CUDA_TRY(cudaMemcpyAsync(cell_id_.data(), unique.data(), c * sizeof(unsigned long long),
                                     cudaMemcpyDeviceToDevice, stream));
    TWOBODY_CUDA_TRY(cudaMemsetAsync(counts.as<std::uint32_t>() + c, 0, sizeof(std::uint32_t), stream));
    std::size_t scan_bytes = 0;
    TWOBODY_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.as<std::uint32_t>(), cell_begin_.data(),
                                                   static_cast<long long>(c + 1), stream));
    {
      detail::device_buffer temp(scan_bytes, stream);
      TWOBODY_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp.data(), scan_bytes, counts.as<std::uint32_t>(),
                                                     cell_begin_.data(), static_cast<long long>(c + 1), stream));
    }

    // The points in cell order.
    cuda::std::array<T*, D> out{};
    for (int d = 0; d < D; ++d) {
      coords_[d] = detail::device_array<T>(n);
      out[d]     = coords_[d].data();
    }
    detail::grid_gather_kernel<T, D><<<blocks, threads, 0, stream>>>(in, perm_.data(), out);
    TWOBODY_CHECK_LAUNCH();
    TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
  }

  static void bounds(points<T, D> const& in, double (&lo)[D], double (&hi)[D], cudaStream_t stream)
  {
    if (in.size == 0) { return; }
    detail::device_buffer result(2 * D * sizeof(T), stream);
    std::size_t bytes = 0, need = 0;
    for (int d = 0; d < D; ++d) {
      TWOBODY_CUDA_TRY(cub::DeviceReduce::Min(nullptr, need, in.coords[d], result.as<T>(), in.size, stream));
      bytes = std::max(bytes, need);
      TWOBODY_CUDA_TRY(cub::DeviceReduce::Max(nullptr, need, in.coords[d], result.as<T>(), in.size, stream));
      bytes = std::max(bytes, need);
    }
    detail::device_buffer temp(bytes, stream);
    for (int d = 0; d < D; ++d) {
      need = bytes;
      TWOBODY_CUDA_TRY(cub::DeviceReduce::Min(temp.data(), need, in.coords[d], result.as<T>() + 2 * d, in.size, stream));
      need = bytes;
      TWOBODY_CUDA_TRY(cub::DeviceReduce::Max(temp.data(), need, in.coords[d], result.as<T>() + 2 * d + 1, in.size, stream));
    }
    T h[2 * D];
    TWOBODY_CUDA_TRY(cudaMemcpyAsync(h, result.data(), sizeof(h), cudaMemcpyDeviceToHost, stream));
    TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
    for (int d = 0; d < D; ++d) {
      lo[d] = static_cast<double>(h[2 * d]);
      hi[d] = static_cast<double>(h[2 * d + 1]);
      // (Min/max may skip a NaN; the key kernel checks every coordinate.)
      TWOBODY_EXPECTS(std::isfinite(lo[d]) && std::isfinite(hi[d]),
                      "grid_index: coordinates must be finite (NaN or infinite coordinates cannot be indexed)");
    }
  }

  T cutoff_     = T(0);
  cuda::std::array<T, D> box_{};
  size_type n_  = 0;
  long long cells_ = 0;
  detail::grid_geometry<D> geo_{};
  detail::device_array<T> coords_[D];
  detail::device_array<std::uint32_t> perm_;
  detail::device_array<unsigned long long> cell_id_;
  detail::device_array<std::uint32_t> cell_begin_;
};

}  // namespace twobody
