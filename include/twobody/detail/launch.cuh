#pragma once

#include <twobody/detail/tile_traversal.cuh>
#include <twobody/engine/engine.cuh>
#include <twobody/engine/visitors.cuh>
#include <twobody/math/tile_schedule.cuh>
#include <twobody/points.cuh>
#include <twobody/runtime_functor.cuh>
#include <twobody/util/device_info.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/gpu_progress.cuh>
#include <twobody/util/memo.cuh>
#include <twobody/util/occupancy.cuh>
#include <twobody/util/runtime_kernels.cuh>
#include <twobody/util/validate.cuh>

#include <cuda_runtime_api.h>

#include <array>
#include <cmath>
#include <memory>
#include <mutex>
#include <cstdint>
#include <string>
#include <utility>

namespace twobody::detail {

inline bool aligned16(void const* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

template <class Points>
bool vector_aligned(Points const& p)
{
  for (auto const* c : p.coords) {
    if (!aligned16(c)) { return false; }
  }
  return true;
}

/// Launch shape of one kernel.
struct launch_plan {
  int grid                = 0;
  std::size_t dynamic_smem = 0;
  int cluster             = 0;  ///< blocks per thread-block cluster (0: launched without clusters)
  bool cooperative        = false;  ///< a cooperative launch: every block resident, so they may grid-synchronize
};

/// Whether a persistent grid of the current GPU can be launched cooperatively (one kernel
/// that zeroes or combines its own output, instead of a memset or a second kernel before or
/// after it: what a small call costs is mostly its launches).
inline bool cooperative_launches() { return device_info::get().cooperative_launch; }

inline int current_device()
{
  int dev = 0;
  TWOBODY_CUDA_TRY(cudaGetDevice(&dev));
  return dev;
}

/// Occupancy answers (blocks per SM, or clusters) per kernel, launch shape and device, asked of
/// CUDA once: the queries cost microseconds, and the one-call forms launch every call.
template <class Query>
int cached_occupancy(void const* kernel, int block_threads, std::size_t dynamic_smem, int cluster, Query&& query)
{
  static memo<int> answers;
  return answers.get(key_bytes(kernel, block_threads, dynamic_smem, cluster, current_device()), query);
}

/// A kernel's attributes on the current device.
struct kernel_attributes {
  int regs_per_thread       = 0;
  std::size_t static_smem   = 0;
  std::size_t dynamic_limit = 0;  ///< largest dynamic shared memory a launch may use
  /// The virtual architecture the kernel was compiled from (10 x major + minor: 75, 80, 90). A
  /// build for compute_75 runs on an H100 through the driver's JIT, without the code that needs
  /// sm_80 (tensor cores) or sm_90 (thread-block clusters): the launches check this, not the GPU.
  int ptx_version = 0;
};

/// A kernel's attributes on device `dev`, read from CUDA, with its dynamic shared memory limit
/// raised to all a block may use.
inline kernel_attributes read_attributes(void const* kernel, int dev)
{
  cudaFuncAttributes fa{};
  TWOBODY_CUDA_TRY(cudaFuncGetAttributes(&fa, kernel));
  kernel_attributes a;
  a.regs_per_thread       = fa.numRegs;
  a.static_smem           = fa.sharedSizeBytes;
  a.ptx_version           = fa.ptxVersion;
  std::size_t const optin = device_info::get(dev).smem_per_block_optin;
  a.dynamic_limit         = optin > a.static_smem ? optin - a.static_smem : 0;
  TWOBODY_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(a.dynamic_limit)));
  return a;
}

/// The attributes of `Kernel` on the current device, read once per device (cudaFuncGetAttributes
/// and cudaFuncSetAttribute cost microseconds a call: too much for small problems). The kernel's
/// dynamic shared memory limit is raised to all a block may use, once.
template <auto Kernel>
kernel_attributes const& attributes_of()
{
  static std::mutex m;
  static std::array<std::unique_ptr<kernel_attributes>, 64> cache;
  int const dev = current_device();
  TWOBODY_EXPECTS(dev < static_cast<int>(cache.size()), "device ordinal out of range");
  std::lock_guard<std::mutex> lock(m);
  if (!cache[dev]) { cache[dev] = std::make_unique<kernel_attributes>(read_attributes(reinterpret_cast<void const*>(Kernel), dev)); }
  return *cache[dev];
}

/// The attributes of a run-time compiled kernel (a cudaKernel_t) on the current device, read once.
inline kernel_attributes runtime_attributes(void const* kernel)
{
  static memo<kernel_attributes> cache;
  int const dev = current_device();
  return cache.get(key_bytes(kernel, dev), [&] { return read_attributes(kernel, dev); });
}

/// A persistent grid for `kernel`: the blocks that fit on all SMs at once, at most `cap`
/// (the work units there are). Kernels needing more than 48 KiB of dynamic shared memory must
/// have their attribute raised first, or they count as not fitting.
template <class Kernel>
int persistent_grid(Kernel kernel, int block_threads, std::size_t dynamic_smem, unsigned long long cap)
{
  int const per_sm = cached_occupancy(reinterpret_cast<void const*>(kernel), block_threads, dynamic_smem, 0, [&] {
    int blocks = 0;
    TWOBODY_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block_threads, dynamic_smem));
    return blocks;
  });
  TWOBODY_EXPECTS(per_sm > 0, "the kernel cannot run on this GPU: too much shared memory or registers per block");
  unsigned long long const grid = static_cast<unsigned long long>(per_sm) * device_info::get().sm_count;
  return static_cast<int>(grid < cap ? grid : cap);
}

/// Why a build lacks code for a GPU feature, and what to do (the kernels' architecture is what
/// the build was given: CMAKE_CUDA_ARCHITECTURES or -arch).
inline std::string rebuild_for(int ptx_version, char const* feature, char const* needs)
{
  return std::string(feature) + " needs kernels compiled for compute capability " + needs +
         " or newer, but this build compiled them for compute_" + std::to_string(ptx_version) +
         ": build for the GPU you run on (CMAKE_CUDA_ARCHITECTURES=native, or a list such as 80;90a; "
         "for the Python package: pip install . -Ccmake.define.CMAKE_CUDA_ARCHITECTURES=native)";
}

/// Throws twobody::error unless the current GPU has thread-block clusters (sm_90 and newer).
inline void require_thread_block_clusters()
{
  device_info const& dev = device_info::get();
  TWOBODY_EXPECTS(dev.cc_major >= 9,
                  ("thread-block clusters (output::cluster_privatized) need compute capability 9.0 or newer, but " +
                   dev.name + " is " + std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor) +
                   ": use output::warp_privatized (or the one-call form, which plans without clusters there)")
                    .c_str());
}

/// Thread-block clusters of `cluster` blocks need sm_90; more than 8 blocks are a non-portable
/// size the kernel must opt in to.
template <class Kernel>
void prepare_cluster_launch(Kernel kernel, int cluster)
{
  require_thread_block_clusters();
  int const arch = runtime_attributes(reinterpret_cast<void const*>(kernel)).ptx_version;
  TWOBODY_EXPECTS(arch >= 90, rebuild_for(arch, "output::cluster_privatized (thread-block clusters)", "9.0").c_str());
  TWOBODY_EXPECTS(cluster >= 1 && cluster <= 16, "thread-block clusters have 1 to 16 blocks");
  if (cluster > 8) { TWOBODY_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1)); }
}

/// The launch configuration of a kernel: in clusters of `cluster` blocks (0: none), and/or
/// cooperative; `attrs` holds the attributes (two at most).
inline cudaLaunchConfig_t launch_config(int grid, int block_threads, std::size_t dynamic_smem, int cluster,
                                        bool cooperative, cudaStream_t stream, cudaLaunchAttribute (&attrs)[2])
{
  cudaLaunchConfig_t cfg{};
  cfg.gridDim          = dim3(static_cast<unsigned>(grid));
  cfg.blockDim         = dim3(static_cast<unsigned>(block_threads));
  cfg.dynamicSmemBytes = dynamic_smem;
  cfg.stream           = stream;
  cfg.attrs            = attrs;
  cfg.numAttrs         = 0;
  if (cluster > 0) {
    cudaLaunchAttribute& a = attrs[cfg.numAttrs++];
    a                      = cudaLaunchAttribute{};
    a.id                   = cudaLaunchAttributeClusterDimension;
    a.val.clusterDim.x     = static_cast<unsigned>(cluster);
    a.val.clusterDim.y     = 1;
    a.val.clusterDim.z     = 1;
  }
  if (cooperative) {
    cudaLaunchAttribute& a = attrs[cfg.numAttrs++];
    a                      = cudaLaunchAttribute{};
    a.id                   = cudaLaunchAttributeCooperative;
    a.val.cooperative      = 1;
  }
  return cfg;
}

/// A persistent grid of whole clusters: the clusters that are resident at once (a cluster's
/// blocks share one GPC, so this can be fewer blocks than SMs x blocks per SM), at most enough
/// clusters for `cap` units.
template <class Kernel>
int persistent_cluster_grid(Kernel kernel, int block_threads, std::size_t dynamic_smem, int cluster, unsigned long long cap)
{
  int const clusters = cached_occupancy(reinterpret_cast<void const*>(kernel), block_threads, dynamic_smem, cluster, [&] {
    prepare_cluster_launch(kernel, cluster);
    cudaLaunchAttribute attrs[2]{};
    cudaLaunchConfig_t const cfg = launch_config(cluster, block_threads, dynamic_smem, cluster, false, 0, attrs);
    int n = 0;
    TWOBODY_CUDA_TRY(cudaOccupancyMaxActiveClusters(&n, reinterpret_cast<void const*>(kernel), &cfg));
    return n;
  });
  TWOBODY_EXPECTS(clusters > 0, ("no cluster of " + std::to_string(cluster) + " blocks with " +
                                 std::to_string(dynamic_smem) + " bytes of shared memory each fits on this GPU")
                                  .c_str());
  unsigned long long const needed = (cap + cluster - 1) / cluster;
  unsigned long long const n      = static_cast<unsigned long long>(clusters) < needed ? clusters : needed;
  return static_cast<int>(n * cluster);
}

template <class Points>
kernel_inputs<Points> inputs_of(pair_set<Points> const& pairs)
{
  Points const& b = pairs.mode == pair_mode::cross ? pairs.b : pairs.a;
  return {pairs.mode, pairs.a, b, vector_aligned(pairs.a) && vector_aligned(b)};
}

/// The dynamic shared memory a visitor may use in a kernel of `Traversal` whose dynamic limit is
/// `limit`: what the traversal's own share (traversal_dynamic_bytes_v: tensor-core stages, a
/// large column tile) leaves. Throws twobody::error where that share does not fit in a block.
template <class Traversal>
std::size_t visitor_smem_left(std::size_t limit)
{
  constexpr std::size_t own = traversal_dynamic_bytes_v<Traversal>;
  if constexpr (own > 0) {  // (a traversal without such storage has nothing to check)
    TWOBODY_EXPECTS(own <= limit, ("the input's own shared memory (tensor-core stages or a column tile) takes " +
                                   std::to_string(own) + " bytes per block, more than the " + std::to_string(limit) +
                                   " this GPU has: for a column tile, use fewer points per thread")
                                    .c_str());
  }
  return limit - own;
}

/// The dynamic shared memory the visitor of `Kernel`, an engine kernel of `Traversal`, may use
/// beside the traversal's own (visitor_smem_left); raises the kernel's limit (once).
template <class Traversal, auto Kernel>
std::size_t visitor_smem_limit()
{
  return visitor_smem_left<Traversal>(attributes_of<Kernel>().dynamic_limit);
}

/// The dynamic shared memory of a launch of an engine kernel of `Traversal` whose attributes are
/// `a` and whose visitor needs `visitor_bytes`: the traversal's share plus the visitor's, checked
/// to fit (visitor_smem_left).
template <class Traversal>
std::size_t checked_launch_smem(kernel_attributes const& a, std::size_t visitor_bytes)
{
  TWOBODY_EXPECTS(visitor_bytes <= visitor_smem_left<Traversal>(a.dynamic_limit), "the output needs more shared memory than a block has");
  return traversal_launch_smem<Traversal>(visitor_bytes);
}

/// The dynamic shared memory of a launch of `Kernel`, an engine kernel of `Traversal`, whose
/// visitor needs `visitor_bytes` (checked_launch_smem), with the kernel's limit raised.
template <class Traversal, auto Kernel>
std::size_t launch_smem(std::size_t visitor_bytes)
{
  return checked_launch_smem<Traversal>(attributes_of<Kernel>(), visitor_bytes);
}

/// launch_smem for a kernel known by its address only (compiled, or a run-time compiled
/// cudaKernel_t); nothing to read where neither the traversal nor the visitor takes any.
template <class Traversal, class Kernel>
std::size_t launch_smem_of(Kernel kernel, std::size_t visitor_bytes = 0)
{
  if (traversal_launch_smem<Traversal>(visitor_bytes) == 0) { return 0; }
  return checked_launch_smem<Traversal>(runtime_attributes(reinterpret_cast<void const*>(kernel)), visitor_bytes);
}

/// What a run-time program compiles for kernel `name` of the run-time functor F.
template <class F>
runtime_kernel_request runtime_request(std::string name)
{
  return {std::move(name), cxx_name<typename F::value_type>(), F::dims};
}

/// The C++ name of pair_engine_kernel<Traversal, Visitor, Source>, for a run-time program.
template <class Traversal, class Visitor, class Source>
std::string engine_kernel_name()
{
  return "twobody::detail::pair_engine_kernel<" + cxx_name<Traversal>() + ", " + cxx_name<Visitor>() + ", " +
         cxx_name<Source>() + ">";
}

/// The kernel `name` (a template instantiation, as C++) of the run-time functor `Holder` holds,
/// compiled by the program in scope, as a pointer of type Kernel (a cudaKernel_t underneath:
/// launch it with launch_kernel).
template <class Kernel, class Holder>
Kernel runtime_kernel(std::string name)
{
  using F       = typename runtime_functor_in<Holder>::type;
  void const* k = require_runtime_source().kernel(runtime_request<F>(std::move(name)));
  return reinterpret_cast<Kernel>(const_cast<void*>(k));
}

/// pair_engine_kernel<Traversal, Visitor, Source>: its address, or, when the visitor holds a
/// run-time functor (runtime_functor.cuh), the same instantiation compiled by the program in
/// scope (runtime_kernel). The template is then never instantiated here.
template <class Traversal, class Visitor, class Source>
auto engine_kernel()
{
  using kernel_t = void (*)(typename Traversal::params, typename Visitor::params, typename Source::params);
  if constexpr (holds_runtime_functor_v<Visitor>) {
    return runtime_kernel<kernel_t, Visitor>(engine_kernel_name<Traversal, Visitor, Source>());
  } else {
    return kernel_t{pair_engine_kernel<Traversal, Visitor, Source>};
  }
}

/// Launches `kernel` (compiled, or a run-time compiled cudaKernel_t, which `<<<>>>` does not
/// take) and checks the launch; the arguments convert to the kernel's parameter types.
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), int grid, int block_threads, std::size_t dynamic_smem,
                   cudaStream_t stream, Args&&... args)
{
  cudaLaunchAttribute attrs[2]{};
  cudaLaunchConfig_t const cfg = launch_config(grid, block_threads, dynamic_smem, 0, false, stream, attrs);
  TWOBODY_CUDA_TRY(cudaLaunchKernelEx(&cfg, kernel, static_cast<Params>(std::forward<Args>(args))...));
}

/// The engine kernel of a statistic: an input policy's traversal (tile pairs, or the naive
/// baseline), a statistic agent behind f, and the static split of the units.
template <class Input, class Agent, class Points, class F>
struct pair_kernel {
  using params    = typename Agent::params;
  using traversal = cuda::std::conditional_t<Input::tiled, tile_traversal<Input, Points>, naive_traversal<Input, Points>>;
  using visitor   = statistic_visitor<Agent, F>;
  /// Equal contiguous ranges of the tile pairs; but a pass over a window of the bins visits a
  /// subset of them that clusters in the flat order (tile pairs at similar distances), and tile
  /// forms cost unevenly along it, so such passes and histograms of functors with tile forms
  /// take every gridDim.x-th tile pair instead.
  static constexpr bool strided =
    Input::tiled && (has_window_units<Agent>::value || (strides_formed_units<Agent>::value && has_tile_forms_v<F>));
  using source   = cuda::std::conditional_t<strided, strided_units, static_units>;
  using kernel_t = void (*)(typename traversal::params, typename visitor::params, static_units::params);

  /// Run-time compiled functors (runtime_functor.cuh) take their kernels from the program in
  /// scope; nothing here then instantiates the kernel template ahead of time.
  static constexpr bool runtime = is_runtime_functor_v<F>;

  static runtime_kernel_request request()
  {
    return runtime_request<F>(engine_kernel_name<traversal, visitor, source>());
  }

  /// Makes a run-time program compile this kernel with the next one it compiles (no-op otherwise).
  static void announce()
  {
    if constexpr (runtime) { require_runtime_source().announce(request()); }
  }

  static kernel_t get() { return engine_kernel<traversal, visitor, source>(); }

  static kernel_attributes attrs()
  {
    if constexpr (runtime) {
      return runtime_attributes(reinterpret_cast<void const*>(get()));
    } else {
      return attributes_of<pair_engine_kernel<traversal, visitor, source>>();
    }
  }

  /// The traversal's own dynamic shared memory (a column tile past static shared memory), which
  /// every launch takes ahead of the visitor's.
  static constexpr std::size_t traversal_smem = traversal_dynamic_bytes_v<traversal>;

  /// The shared memory a block takes whatever its output: the static and the traversal's own.
  static std::size_t static_smem() { return attrs().static_smem + traversal_smem; }

  /// The dynamic shared memory the visitor may take (throws where the traversal's own does not fit).
  static std::size_t dynamic_smem_limit() { return visitor_smem_left<traversal>(attrs().dynamic_limit); }

  /// What the cost model needs to know about this kernel (see model/policy.cuh): the traversal's
  /// dynamic shared memory counts as fixed, as static shared memory does.
  static kernel_resources resources(std::size_t dynamic_smem = 0)
  {
    return {Input::block_threads, attrs().regs_per_thread, static_smem(), dynamic_smem};
  }

  static constexpr int naive_chunk = 4096;

  /// Chunks of the partners (the column set) per block of A in the naive baseline.
  static size_type naive_chunks(size_type partners) { return (partners + naive_chunk - 1) / naive_chunk; }

  static tile_schedule schedule(pair_set<Points> const& pairs)
  {
    return tile_schedule::make(pairs.mode, pairs.a.size, pairs.b.size,
                               size_type(tile_points_v<Input>));
  }

  /// Grid and shared memory for `pairs` when the visitor takes `dynamic_smem` bytes: a persistent
  /// grid of (resident blocks per SM) x SMs, never more blocks than tile pairs. Zero blocks when
  /// there is no pair. With `cluster` > 0 the grid is whole clusters of that many blocks
  /// (outputs that share shared memory across a cluster: some blocks may then have no unit, and
  /// still take part in the cluster's barriers).
  static launch_plan plan(pair_set<Points> const& pairs, std::size_t dynamic_smem, int cluster = 0)
  {
    launch_plan lp;
    lp.dynamic_smem = traversal_launch_smem<traversal>(dynamic_smem);
    lp.cluster      = cluster;
    if (pairs.count() == 0) { return lp; }
    auto const k = get();
    std::size_t const limit = dynamic_smem_limit();
    TWOBODY_EXPECTS(dynamic_smem <= limit,
                    ("the output needs " + std::to_string(dynamic_smem) + " bytes of shared memory per block but only " +
                     std::to_string(limit) + " are available: use fewer bins or copies, or output::global_atomics")
                      .c_str());
    if constexpr (Input::tiled) {
      auto const units = static_cast<unsigned long long>(schedule(pairs).total);
      lp.grid = cluster > 0 ? persistent_cluster_grid(k, Input::block_threads, lp.dynamic_smem, cluster, units)
                            : persistent_grid(k, Input::block_threads, lp.dynamic_smem, units);
    } else {
      TWOBODY_EXPECTS(cluster == 0, "thread-block clusters need a tiled input policy");
      size_type const grid = (pairs.a.size + Input::block_threads - 1) / Input::block_threads;
      TWOBODY_EXPECTS(grid < (size_type(1) << 31), "too many points for the naive kernel's grid");
      lp.grid = static_cast<int>(grid);
    }
    return lp;
  }

  using box = tile_box<typename Points::value_type, Points::dims>;

  /// With `boxes_a` and `boxes_b` (the bounding boxes of the tiles of this kernel's tile size,
  /// and with sub_tiles > 1 of their sub-tiles, tile_order.cuh), functors with tile forms take
  /// the cheapest exact one per tile pair (per warp and column sub-tile).
  static void launch(launch_plan const& lp, pair_set<Points> const& pairs, F const& f, params const& p,
                     cudaStream_t stream, box const* boxes_a = nullptr, box const* boxes_b = nullptr, int sub_tiles = 1)
  {
    if (lp.grid == 0) { return; }
    kernel_inputs<Points> in = inputs_of(pairs);
    in.boxes_a               = boxes_a;
    in.boxes_b               = boxes_b;
    in.sub_tiles             = sub_tiles;
    typename traversal::params walk{};
    unsigned long long units = 0;
    if constexpr (Input::tiled) {
      walk  = {in, schedule(pairs)};
      units = static_cast<unsigned long long>(walk.sched.total);
    } else {  // one block per block of A, each with its chunks
      walk  = {in, naive_chunk, naive_chunks(in.b.size)};
      units = static_cast<unsigned long long>(lp.grid) * static_cast<unsigned long long>(walk.chunks);
    }
    // A GPU call with a progress callback counts and can stop the units; not a cluster's, whose
    // blocks must all meet the cluster's barriers.
    launch_control* const control = lp.cluster == 0 ? current_launch_control(units) : nullptr;
    if constexpr (runtime) {
      TWOBODY_EXPECTS(f.program == static_cast<void const*>(active_runtime_source()),
                      "a runtime_functor runs while the runtime_program that made it is in scope (runtime_program::scope)");
    }
    // A run-time compiled kernel is a cudaKernel_t, which only the launch API takes.
    if (lp.cluster > 0 || lp.cooperative || runtime) {
      TWOBODY_EXPECTS(!lp.cooperative || Input::tiled, "a cooperative launch needs a persistent grid (a tiled input policy)");
      cudaLaunchAttribute attrs[2]{};
      cudaLaunchConfig_t const cfg =
        launch_config(lp.grid, Input::block_threads, lp.dynamic_smem, lp.cluster, lp.cooperative, stream, attrs);
      TWOBODY_CUDA_TRY(cudaLaunchKernelEx(&cfg, get(), walk, typename visitor::params{p, f}, static_units::params{units, control}));
      return;
    }
    get()<<<lp.grid, Input::block_threads, lp.dynamic_smem, stream>>>(walk, {p, f}, {units, control});
    TWOBODY_CHECK_LAUNCH();
  }
};

}  // namespace twobody::detail
