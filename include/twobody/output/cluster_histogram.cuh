/// \file cluster_histogram.cuh
/// \brief Output policy for histograms larger than one block's shared memory (sm_90 and newer):
/// the histogram is spread over the distributed shared memory of a thread-block cluster.
///
/// A cluster of C blocks (1..16, co-scheduled on one GPC) shares one histogram: block `rank`
/// of the cluster owns the slots s with s % C == rank, at local index s / C (interleaved, so
/// that a peak in the values spreads over all C SMs instead of landing on one). Every pair's
/// update is one atomic on the owner's shared memory (`red.shared::cluster`), local for 1 / C
/// of the slots, remote for the rest. Each share holds `copies` lane-interleaved copies laid
/// out bin-major as in warp_privatized (lane l updates copy l % copies).
///
/// Counters are 32-bit for plain counts. Every counter can be hit by all C blocks, so the
/// cluster flushes into the 64-bit result on a fixed schedule of work units that every block
/// of the cluster shares (each block has at least `flushes * flush_every` units under the
/// static split): cluster barriers always match. Histograms past the cluster's shared memory
/// are counted in windows of the bin range, one pass over all pairs per window.
#pragma once

#include <twobody/output/privatized_histogram.cuh>
#include <twobody/points.cuh>
#include <twobody/policy/kinds.cuh>
#include <twobody/value_traits.cuh>

#include <cuda/std/type_traits>

namespace twobody {
namespace output {

/// The histogram spread over the shared memory of a thread-block cluster (sm_90+).
/// `cluster_blocks` 0 and `copies` 0 let the cost model choose them; otherwise 1..16 blocks
/// per cluster (more than 8 are a non-portable cluster size, which H100 allows) and 1..32
/// lane copies of each block's share.
struct cluster_privatized {
  int cluster_blocks = 0;
  int copies         = 0;
  static constexpr char const* name     = "cluster_privatized";
  static constexpr output_kind kind     = {name};  ///< its family, listed in model/registry.cuh
  static constexpr unsigned statistics  = serves(statistic_kind::histogram);
  static constexpr bool chosen_by_model = true;  ///< where the copies a block holds are too few (sm_90+)
};

}  // namespace output

namespace detail {

/// Largest cluster the policy uses (H100's non-portable limit).
inline constexpr int max_cluster_blocks = 16;

/// d = ceil(2^31 / c): slot / c == __umulhi(2 slot, d) for every slot < 2^31 / c (2^27 for
/// c <= 16; a window has fewer than 2^20 slots), c = 1 included (ceil(2^32 / c) would not fit).
constexpr unsigned cluster_rank_divisor(int c)
{
  return static_cast<unsigned>(((1ull << 31) + static_cast<unsigned long long>(c) - 1) / static_cast<unsigned long long>(c));
}

/// Slots each block of a cluster of `cluster` blocks owns in a window of `window` slots.
constexpr int cluster_share(int window, int cluster) { return (window + cluster - 1) / cluster; }

template <class Binning, class Count, class Counter, int BlockThreads>
struct cluster_histogram_agent : slot_updates<cluster_histogram_agent<Binning, Count, Counter, BlockThreads>, Counter> {
  static_assert(cuda::std::is_same_v<Counter, unsigned int> || cuda::std::is_same_v<Counter, double>,
                "cluster histograms count in 32-bit unsigned or double shared counters");
  struct params {
    Binning bins;
    Count* counts;                ///< bins.size() + 1 slots, the last one for outside values
    int cluster;                  ///< blocks per cluster: the launch's cluster size
    unsigned rank_divisor;        ///< cluster_rank_divisor(cluster)
    int copies;                   ///< lane copies of each block's share
    int window_begin;             ///< first slot counted by this pass
    int window_size;              ///< slots counted by this pass
    unsigned long long flush_every;  ///< units between the cluster's flushes (counters cannot wrap in between)
    unsigned long long flushes;      ///< flushes before the last one, the same in every block of the cluster
  };
  struct temp_storage {};

  params p;
  Counter* h;
  unsigned h_shared;    ///< shared-window address of this block's share
  int stride_bytes;     ///< bytes between the counters of one copy
  int mine_bytes;       ///< byte offset of this lane's copy
  unsigned rank;        ///< this block's rank in the cluster
  unsigned long long since = 0, done = 0;

  __device__ cluster_histogram_agent(params const& p_, temp_storage&, void* dyn)
    : p(p_),
      h(static_cast<Counter*>(dyn)),
      h_shared(static_cast<unsigned>(__cvta_generic_to_shared(dyn))),
      stride_bytes(p_.copies * int(sizeof(Counter))),
      mine_bytes((threadIdx.x & 31) % p_.copies * int(sizeof(Counter))),
      rank(cluster_rank())
  {
    int const words = cluster_share(p.window_size, p.cluster) * p.copies;
    for (int i = threadIdx.x; i < words; i += BlockThreads) { h[i] = Counter{}; }
    cluster_sync();  // every share is zero (and every block of the cluster running) before the first remote update
  }

  static __device__ unsigned cluster_rank()
  {
    unsigned r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
    return r;
  }

  /// All threads of all blocks of the cluster (release / acquire: shared-memory writes before it
  /// are seen by every block after it).
  static __device__ void cluster_sync()
  {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
    __trap();  // the host never launches this agent below sm_90
#endif
  }

  __device__ void add(int slot, Counter c)
  {
    slot -= p.window_begin;
    if (static_cast<unsigned>(slot) >= static_cast<unsigned>(p.window_size)) { return; }  // a branch: see privatized_histogram_agent
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    unsigned const local = __umulhi(static_cast<unsigned>(slot) * 2u, p.rank_divisor);  // slot / cluster
    unsigned const owner = static_cast<unsigned>(slot) - local * static_cast<unsigned>(p.cluster);
    unsigned addr        = h_shared + local * stride_bytes + mine_bytes;
    asm("mapa.shared::cluster.u32 %0, %0, %1;" : "+r"(addr) : "r"(owner));
    if constexpr (cuda::std::is_same_v<Counter, unsigned int>) {
      asm volatile("red.relaxed.cluster.shared::cluster.add.u32 [%0], %1;" ::"r"(addr), "r"(c) : "memory");
    } else {
      asm volatile("red.relaxed.cluster.shared::cluster.add.f64 [%0], %1;" ::"r"(addr), "d"(c) : "memory");
    }
#else
    (void)c;
    __trap();
#endif
  }

  /// Block-uniform, and cluster-uniform for the first flushes * flush_every units (the host
  /// sets `flushes` from the fewest units any block has), so the barriers of a flush match.
  __device__ void end_unit(unsigned long long)
  {
    if (done < p.flushes && ++since == p.flush_every) {
      cluster_sync();  // every update of the period has landed
      drain();
      cluster_sync();  // no block updates a share before it is drained
      since = 0;
      ++done;
    }
  }

  /// Adds this block's share into the 64-bit result and zeroes it.
  __device__ void drain()
  {
    int const share = cluster_share(p.window_size, p.cluster);
    for (int s = threadIdx.x; s < share; s += BlockThreads) {
      int const slot = s * p.cluster + static_cast<int>(rank);
      Count const sum = take_slot_sum<Count>(h, s, p.copies);
      if (sum != Count{} && slot < p.window_size) { atomicAdd(p.counts + p.window_begin + slot, sum); }
    }
  }

  /// Every block of the cluster calls it once, after all its units: after the barrier no block
  /// touches another's shared memory, so a block may then drain and exit on its own.
  __device__ void finish()
  {
    cluster_sync();
    drain();
  }
};

}  // namespace detail
}  // namespace twobody
