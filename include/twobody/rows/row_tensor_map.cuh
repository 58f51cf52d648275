#pragma once

/// The tensor memory accelerator's descriptor (a tensor map) of a staged set of 16-bit rows, for
/// products_wgmma on sm_90 (mma_products.cuh). It describes the padded row-major rows in boxes of
/// 64 elements (128 bytes) x 128 rows with the 128-byte swizzle, which is the layout of one
/// wgmma stage. One thread then loads a chunk of a tile with one cp.async.bulk.tensor, instead of
/// 256 threads issuing 16-byte cp.async, and the warps wait on the stage's mbarrier instead of a
/// block barrier (docs/maintainers/exact-rows.md says why; TWOBODY_NO_TMA=1 compares). staged_rows
/// (highdim.cuh) makes one for rows of at least mma_tile_products::tma_min_dims padded elements.
///
/// The encoder is the driver's cuTensorMapEncodeTiled. It is reached through the runtime
/// (cudaGetDriverEntryPointByVersion), so nothing links libcuda. Where the driver lacks it, or
/// the rows do not fit a map (2^31 rows or more), or the stream is being captured into a graph,
/// there is no map, and products_wgmma stages with cp.async. The map lives in device memory: the
/// kernels' parameters hold only its address.

#include <twobody/points.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/error.cuh>

#include <cuda.h>  // CUtensorMap and its enums (types only)
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace twobody::detail {

/// The driver's cuTensorMapEncodeTiled, or null where the driver does not have it.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder()
{
  static PFN_cuTensorMapEncodeTiled_v12000 const encoder = [] {
    void* fn                          = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    cudaError_t const status = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
#else  // before 12.5 (deprecated since)
    cudaError_t const status = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &q);
#endif
    if (status != cudaSuccess || q != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      fn = nullptr;
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  return encoder;
}

/// A tensor map of n rows of dims_padded 16-bit elements at `rows` (device memory), in boxes of
/// box_elements x box_rows with the 128-byte swizzle; get() is its device address, or null.
class row_tensor_map {
 public:
  row_tensor_map() = default;
  row_tensor_map(void const* rows, CUtensorMapDataType type, size_type n, int dims_padded, int box_elements, int box_rows,
                 cudaStream_t stream)
  {
    PFN_cuTensorMapEncodeTiled_v12000 const encode = tensor_map_encoder();
    if (encode == nullptr || rows == nullptr || n <= 0 || n >= (size_type(1) << 31)) { return; }
    // The map is copied from host memory: not into a graph being captured (cp.async serves there).
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    TWOBODY_CUDA_TRY(cudaStreamIsCapturing(stream, &capture));
    if (capture != cudaStreamCaptureStatusNone) { return; }
    CUtensorMap map;
    cuuint64_t const dims[2]    = {static_cast<cuuint64_t>(dims_padded), static_cast<cuuint64_t>(n)};
    cuuint64_t const strides[1] = {static_cast<cuuint64_t>(dims_padded) * 2u};  // bytes between rows
    cuuint32_t const box[2]     = {static_cast<cuuint32_t>(box_elements), static_cast<cuuint32_t>(box_rows)};
    cuuint32_t const steps[2]   = {1, 1};
    CUresult const status = encode(&map, type, 2, const_cast<void*>(rows), dims, strides, box, steps, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                   CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    TWOBODY_EXPECTS(status == CUDA_SUCCESS, ("twobody internal error: cuTensorMapEncodeTiled refused the staged rows' map (CUresult " +
                                             std::to_string(static_cast<int>(status)) + ", " + std::to_string(n) + " rows of " +
                                             std::to_string(dims_padded) + " elements); please report it")
                                              .c_str());
    // A map in global memory must be 64-byte aligned: room to align it inside the buffer.
    buffer_ = device_buffer(sizeof(CUtensorMap) + 64, stream);
    auto const raw = reinterpret_cast<std::uintptr_t>(buffer_.data());
    at_            = reinterpret_cast<void*>((raw + 63u) & ~std::uintptr_t{63});
    // From pageable memory: the copy has read `map` when it returns.
    TWOBODY_CUDA_TRY(cudaMemcpyAsync(at_, &map, sizeof map, cudaMemcpyHostToDevice, stream));
  }

  /// The map's device address, or null where there is none.
  void const* get() const { return at_; }

 private:
  device_buffer buffer_;
  void* at_ = nullptr;
};

}  // namespace twobody::detail
