/// \file occupancy.cuh
/// \brief Occupancy model: how many blocks of a kernel are resident on one SM, and how many
/// rounds the whole launch takes (Pitaksirianan et al., Eq. 1: R = ceil(T / (alpha MP))).
///
/// The arithmetic is CUDA's occupancy calculation done on the host, so it runs and is
/// tested without a GPU; on a GPU it agrees with cudaOccupancyMaxActiveBlocksPerMultiprocessor
/// (checked by tests/test_gpu_model.cu).
#pragma once

#include <twobody/util/device_info.cuh>
#include <twobody/util/error.cuh>

#include <algorithm>
#include <cstddef>

namespace twobody {

/// What one block of a kernel takes from an SM.
struct kernel_resources {
  int block_threads           = 256;
  int regs_per_thread         = 0;  ///< 0: not limited by registers (unknown)
  std::size_t static_smem     = 0;  ///< __shared__ variables
  std::size_t dynamic_smem    = 0;  ///< the launch's dynamic shared memory
};

/// Which resource limits the resident blocks.
enum class occupancy_limit { threads, blocks, registers, shared_memory };

/// Resident blocks per SM and the resource that limits them (0 blocks: it does not fit).
struct occupancy {
  int blocks_per_sm = 0;
  occupancy_limit limit = occupancy_limit::blocks;
  int warps_per_sm(int block_threads) const { return blocks_per_sm * ((block_threads + 31) / 32); }
};

namespace model {

inline std::size_t round_up(std::size_t x, std::size_t unit) { return (x + unit - 1) / unit * unit; }

/// Blocks of `k` resident on one SM of `dev` (CUDA's occupancy calculation).
inline occupancy blocks_per_sm(device_info const& dev, kernel_resources const& k)
{
  TWOBODY_EXPECTS(k.block_threads > 0, "occupancy: block_threads must be positive");
  TWOBODY_EXPECTS(dev.max_threads_per_sm > 0 && dev.max_blocks_per_sm > 0, "occupancy: incomplete device description");
  occupancy o;
  int const warps_per_block = (k.block_threads + 31) / 32;
  int const by_threads      = (dev.max_threads_per_sm / 32) / warps_per_block;
  o.blocks_per_sm           = dev.max_blocks_per_sm;
  o.limit                   = occupancy_limit::blocks;
  auto take = [&](int n, occupancy_limit why) {
    if (n < o.blocks_per_sm) {
      o.blocks_per_sm = n;
      o.limit         = why;
    }
  };
  take(by_threads, occupancy_limit::threads);
  if (k.regs_per_thread > 0) {
    // Each sub-partition's register file holds whole warps: 48 registers (1536 per warp) fit
    // 10 warps per quarter of an H100 SM, 40 in all, not 65536 / 1536 = 42.
    int const per_warp = static_cast<int>(round_up(static_cast<std::size_t>(k.regs_per_thread) * 32, dev.reg_alloc_unit));
    int const parts    = std::max(1, dev.reg_partitions);
    int const warps    = dev.regs_per_sm / parts / per_warp * parts;
    take(warps / warps_per_block, occupancy_limit::registers);
  }
  std::size_t const smem = round_up(k.static_smem + k.dynamic_smem + dev.reserved_smem_per_block, dev.smem_alloc_unit);
  if (k.static_smem + k.dynamic_smem > dev.smem_per_block_optin) {
    take(0, occupancy_limit::shared_memory);
  } else if (smem > 0) {
    take(static_cast<int>(dev.smem_per_sm / smem), occupancy_limit::shared_memory);
  }
  return o;
}

/// Rounds a persistent grid needs for `work_items` block-sized items (tile pairs) when
/// `blocks_per_sm` blocks are resident on each of the device's SMs (Eq. 1).
inline long long rounds(long long work_items, int blocks_per_sm, int sm_count)
{
  TWOBODY_EXPECTS(blocks_per_sm > 0 && sm_count > 0, "occupancy: no resident blocks");
  long long const slots = static_cast<long long>(blocks_per_sm) * sm_count;
  return work_items <= 0 ? 0 : (work_items + slots - 1) / slots;
}

}  // namespace model
}  // namespace twobody
