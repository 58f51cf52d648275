/// \file device_info.cuh
/// \brief What the cost model needs to know about a GPU, read once per device and cached.
///
///     twobody::device_info const& dev = twobody::device_info::get();   // current device
///     twobody::device_info h100 = twobody::device_info::h100_sxm();     // planning without a GPU
#pragma once

#include <twobody/util/error.cuh>

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

namespace twobody {

/// Resources of one GPU that decide occupancy and the choice of policies.
struct device_info {
  int device = -1;                          ///< CUDA ordinal (-1: a description, not a present GPU)
  std::string name;                         ///< e.g. "NVIDIA H100 80GB HBM3"
  int cc_major = 0, cc_minor = 0;           ///< compute capability
  int sm_count = 0;                         ///< streaming multiprocessors
  std::size_t smem_per_sm = 0;              ///< shared memory per SM (largest carveout)
  std::size_t smem_per_block_optin = 0;     ///< largest shared memory one block may opt in to
  std::size_t reserved_smem_per_block = 0;  ///< shared memory the system reserves per resident block
  int regs_per_sm = 0;                      ///< 32-bit registers per SM
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  std::size_t l2_bytes = 0;
  bool cooperative_launch = false;          ///< grids whose blocks are all resident may synchronize

  // Allocation granularities of the occupancy calculation (the same on every GPU since Volta).
  int reg_alloc_unit         = 256;  ///< registers are given to a warp in units of this many
  int reg_partitions         = 4;    ///< register file sub-partitions (one per warp scheduler; 2 on sm_60)
  std::size_t smem_alloc_unit = 128; ///< shared memory is given to a block in units of this many bytes

  /// The current device, queried on first use and cached (thread-safe).
  static device_info const& get() { return get(current()); }

  /// Device `ordinal`, queried on first use and cached (thread-safe).
  static device_info const& get(int ordinal)
  {
    static std::mutex m;
    static std::array<std::unique_ptr<device_info>, 64> cache;
    TWOBODY_EXPECTS(ordinal >= 0 && ordinal < static_cast<int>(cache.size()), "device_info: device ordinal out of range");
    std::lock_guard<std::mutex> lock(m);
    if (!cache[ordinal]) { cache[ordinal] = std::make_unique<device_info>(query(ordinal)); }
    return *cache[ordinal];
  }

  /// Reads the attributes of device `ordinal` (uncached).
  static device_info query(int ordinal)
  {
    device_info d;
    d.device = ordinal;
    cudaDeviceProp prop{};
    TWOBODY_CUDA_TRY(cudaGetDeviceProperties(&prop, ordinal));
    d.name                    = prop.name;
    d.cc_major                = prop.major;
    d.cc_minor                = prop.minor;
    d.sm_count                = prop.multiProcessorCount;
    d.smem_per_sm             = prop.sharedMemPerMultiprocessor;
    d.smem_per_block_optin    = prop.sharedMemPerBlockOptin;
    d.reserved_smem_per_block = prop.reservedSharedMemPerBlock;
    d.regs_per_sm             = prop.regsPerMultiprocessor;
    d.max_threads_per_sm      = prop.maxThreadsPerMultiProcessor;
    d.max_blocks_per_sm       = prop.maxBlocksPerMultiProcessor;
    d.l2_bytes                = static_cast<std::size_t>(prop.l2CacheSize);
    d.cooperative_launch      = prop.cooperativeLaunch != 0;
    d.reg_partitions          = prop.major == 6 && prop.minor == 0 ? 2 : 4;
    return d;
  }

  /// H100 SXM5 80 GB (sm_90), as cudaGetDeviceProperties reports it: for planning and tests without a GPU.
  static device_info h100_sxm()
  {
    device_info d;
    d.name                    = "NVIDIA H100 80GB HBM3 (description)";
    d.cc_major                = 9;
    d.cc_minor                = 0;
    d.sm_count                = 132;
    d.smem_per_sm             = 233472;  // 228 KiB
    d.smem_per_block_optin    = 232448;  // 227 KiB
    d.reserved_smem_per_block = 1024;
    d.regs_per_sm             = 65536;
    d.max_threads_per_sm      = 2048;
    d.max_blocks_per_sm       = 32;
    d.l2_bytes                = 52428800;  // 50 MiB
    d.cooperative_launch      = true;
    return d;
  }

  /// A100 SXM4 40 GB (sm_80): 163 KiB of shared memory a block may opt in to.
  static device_info a100()
  {
    device_info d;
    d.name                    = "NVIDIA A100-SXM4-40GB (description)";
    d.cc_major                = 8;
    d.cc_minor                = 0;
    d.sm_count                = 108;
    d.smem_per_sm             = 167936;  // 164 KiB
    d.smem_per_block_optin    = 166912;  // 163 KiB
    d.reserved_smem_per_block = 1024;
    d.regs_per_sm             = 65536;
    d.max_threads_per_sm      = 2048;
    d.max_blocks_per_sm       = 32;
    d.l2_bytes                = 41943040;  // 40 MiB
    d.cooperative_launch      = true;
    return d;
  }

  /// Tesla T4 (sm_75): a GPU with little shared memory (64 KiB per SM) and 1024 threads per SM.
  static device_info t4()
  {
    device_info d;
    d.name                    = "Tesla T4 (description)";
    d.cc_major                = 7;
    d.cc_minor                = 5;
    d.sm_count                = 40;
    d.smem_per_sm             = 65536;
    d.smem_per_block_optin    = 65536;
    d.reserved_smem_per_block = 0;
    d.regs_per_sm             = 65536;
    d.max_threads_per_sm      = 1024;
    d.max_blocks_per_sm       = 16;
    d.l2_bytes                = 4194304;
    d.cooperative_launch      = true;
    return d;
  }

 private:
  static int current()
  {
    int dev = 0;
    TWOBODY_CUDA_TRY(cudaGetDevice(&dev));
    return dev;
  }
};

}  // namespace twobody
