/// \file tile_order.cuh
/// \brief A copy of a point set ordered so that each tile of `tile` consecutive points fills a
/// small box of space, and those boxes (tile_forms.cuh takes the cheapest exact form of a
/// functor per tile pair from them).
///
/// The order is sort-tile-recursive packing: sort by the first axis and cut into slabs of whole
/// tiles, sort each slab by the second axis and cut it into columns of whole tiles, sort each
/// column by the third axis; tiles are then consecutive runs of the columns. Uniform points in
/// a cube give tiles of about (n / tile)^(-1/3) of its side per axis (a sort along a space-filling
/// curve gives tiles that straddle two cells: boxes up to twice as wide). Three CUB radix sorts
/// of (group, coordinate) keys, one gather, one box per tile; the result does not depend on how
/// the input was ordered (ties aside).
#pragma once

#include <twobody/math/tile_forms.cuh>
#include <twobody/points.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/error.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cuda/functional>
#include <cuda/std/limits>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <optional>

namespace twobody::detail {

/// A float's or double's bits as an unsigned key in the value's order (negatives flipped).
__device__ __forceinline__ std::uint32_t order_bits(float x)
{
  std::uint32_t const u = __float_as_uint(x);
  return (u & 0x80000000u) != 0 ? ~u : u | 0x80000000u;
}
/// Doubles keep their 32 high bits: enough to order points into slabs of tiles.
__device__ __forceinline__ std::uint32_t order_bits(double x)
{
  std::uint64_t const u = static_cast<std::uint64_t>(__double_as_longlong(x));
  std::uint64_t const k = (u & 0x8000000000000000ull) != 0 ? ~u : u | 0x8000000000000000ull;
  return static_cast<std::uint32_t>(k >> 32);
}

/// keys[r] = (r / group) << 32 | order_bits(coord[index[r]]); index[r] = r when `first`.
template <class T>
__global__ void tile_order_keys(T const* coord, std::uint32_t* index, std::uint64_t* keys, std::uint32_t n,
                                std::uint32_t group, bool first)
{
  for (std::uint32_t r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
    if (first) { index[r] = r; }
    std::uint32_t const i = first ? r : index[r];
    keys[r]               = static_cast<std::uint64_t>(r / group) << 32 | order_bits(coord[i]);
  }
}

/// Where rank r of the order goes in the ordered copy. With sub-tiles (sub_tiles > 1, full tiles
/// only), member m = l + 32 i of sub-tile k of a tile goes to position 32 k + l + 32 sub_tiles i:
/// the own points of warp k of a block of 32 sub_tiles threads (thread t holds points t, t + B,
/// ...), so that each warp's own points are one sub-tile.
__host__ __device__ inline std::uint32_t tile_order_position(std::uint32_t r, std::uint32_t tile, std::uint32_t sub_tiles,
                                                             std::uint32_t full_tiles)
{
  if (sub_tiles <= 1 || r / tile >= full_tiles) { return r; }
  std::uint32_t const m = r % tile, per = tile / sub_tiles;
  std::uint32_t const k = m / per, member = m % per;
  return r - m + 32 * k + member % 32 + 32 * sub_tiles * (member / 32);
}

/// The ordered copy: coordinate d of rank r at to[d * n + tile_order_position(r)], weights after
/// the coordinates.
template <class Points>
__global__ void tile_order_gather(Points from, typename Points::value_type* to, std::uint32_t const* index, std::uint32_t n,
                                  std::uint32_t tile, std::uint32_t sub_tiles)
{
  std::uint32_t const full_tiles = n / tile;
  for (std::uint32_t r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
    std::uint32_t const i = index[r];
    std::uint32_t const p = tile_order_position(r, tile, sub_tiles, full_tiles);
#pragma unroll
    for (int d = 0; d < Points::dims; ++d) { to[static_cast<std::size_t>(d) * n + p] = from.coords[d][i]; }
    if constexpr (Points::weighted) { to[static_cast<std::size_t>(Points::dims) * n + p] = from.weights[i]; }
  }
}

inline constexpr int tile_boxes_warps = 8;  ///< warps (tiles) per block of tile_boxes_kernel

/// One warp per box: box b of `boxes` bounds part b % per_tile of tile b / per_tile, the
/// positions 32 (b % per_tile) + lane + 32 per_tile i of the tile (per_tile = 1: the whole tile;
/// per_tile = sub_tiles: the sub-tiles of tile_order_position). An axis with a NaN coordinate
/// gets hi = +inf (unknown: tile_forms.cuh then proves nothing from it, so no pair with a NaN is
/// ever taken as inside the bins).
template <class Points, class T = typename Points::value_type, int D = Points::dims>
__global__ void tile_boxes_kernel(Points sorted, tile_box<T, D>* boxes, std::uint32_t tile, std::uint32_t per_tile,
                                  std::uint32_t count)
{
  using reduce = cub::WarpReduce<T>;
  __shared__ typename reduce::TempStorage storage[tile_boxes_warps];
  int const warp           = static_cast<int>(threadIdx.x / 32);
  std::uint32_t const b    = blockIdx.x * tile_boxes_warps + warp;
  if (b >= count) { return; }
  auto const n              = static_cast<std::uint32_t>(sorted.size);
  std::uint32_t const t     = b / per_tile;
  std::uint32_t const first = t * tile + 32 * (b % per_tile);
  std::uint32_t const end   = t * tile + tile < n ? t * tile + tile : n;
  T const inf               = cuda::std::numeric_limits<T>::infinity();
  tile_box<T, D> box;
#pragma unroll
  for (int d = 0; d < D; ++d) {
    T lo = inf, hi = -inf;
    for (std::uint32_t r = first + threadIdx.x % 32; r < end; r += 32 * per_tile) {
      T const x = sorted.coords[d][r];
      if (x == x) {
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
      } else {
        hi = inf;
      }
    }
    box.lo[d] = reduce(storage[warp]).Reduce(lo, cuda::minimum<>{});
    __syncwarp();
    box.hi[d] = reduce(storage[warp]).Reduce(hi, cuda::maximum<>{});
    __syncwarp();
  }
  if (threadIdx.x % 32 == 0) { boxes[b] = box; }
}

/// How many tiles each slab (first axis) and column (second axis) holds, for `tiles` tiles
/// cut along min(D, 3) axes into about equal numbers of slabs, columns and tiles per column.
struct tile_order_groups {
  std::uint32_t slab_tiles   = 0;
  std::uint32_t column_tiles = 0;
  int axes                   = 0;
};

inline tile_order_groups tile_order_groups_for(long long tiles, int dims)
{
  tile_order_groups g;
  g.axes = dims < 3 ? dims : 3;
  if (g.axes == 1) {
    g.slab_tiles = g.column_tiles = static_cast<std::uint32_t>(tiles);
  } else if (g.axes == 2) {
    g.slab_tiles   = static_cast<std::uint32_t>(std::llround(std::sqrt(static_cast<double>(tiles))));
    g.column_tiles = g.slab_tiles;
  } else {
    auto const side = static_cast<std::uint32_t>(std::llround(std::cbrt(static_cast<double>(tiles))));
    g.column_tiles  = side;
    g.slab_tiles    = side * side;
  }
  if (g.column_tiles < 1) { g.column_tiles = 1; }
  if (g.slab_tiles < g.column_tiles) { g.slab_tiles = g.column_tiles; }
  return g;
}

/// Owns the ordered copy of a point set and its tiles' boxes (stream-ordered scratch).
template <class Points>
class tile_ordered_points {
 public:
  using T                 = typename Points::value_type;
  static constexpr int D  = Points::dims;
  static constexpr bool W = Points::weighted;
  using box               = tile_box<T, D>;

  /// Points readable by kernels, at most 2^32 - 1 of them, tile >= 1. With sub_tiles > 1 (a
  /// power of two, tile a multiple of 32 sub_tiles: the warps of the kernel's block), each full
  /// tile is also cut into sub_tiles compact sub-tiles (halved along the axes in turn), laid out
  /// as the warps' own points (tile_order_position), with a box each after the tiles' boxes.
  tile_ordered_points(Points const& p, int tile, int sub_tiles, cudaStream_t stream) : view_(p)
  {
    TWOBODY_EXPECTS(p.size > 0 && p.size < (1ll << 32) && tile >= 1, "internal: tile_ordered_points of a bad size");
    if (sub_tiles < 1 || (sub_tiles & (sub_tiles - 1)) != 0 || tile % (32 * sub_tiles) != 0) { sub_tiles = 1; }
    sub_tiles_ = sub_tiles;
    auto const n                = static_cast<std::uint32_t>(p.size);
    auto const tiles            = static_cast<std::uint32_t>((p.size + tile - 1) / tile);
    tile_order_groups const grp = tile_order_groups_for(tiles, D);

    device_buffer index(2 * sizeof(std::uint32_t) * n, stream), keys(2 * sizeof(std::uint64_t) * n, stream);
    std::uint32_t* idx = index.as<std::uint32_t>();
    std::uint64_t* key = keys.as<std::uint64_t>();
    cub::DoubleBuffer<std::uint64_t> kb(key, key + n);
    cub::DoubleBuffer<std::uint32_t> vb(idx, idx + n);
    std::size_t temp_bytes = 0;
    TWOBODY_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, kb, vb, n, 0, 64, stream));
    device_buffer temp(temp_bytes, stream);

    int const threads = 256;
    int const blocks  = static_cast<int>((n + threads - 1) / threads < 4096 ? (n + threads - 1) / threads : 4096);
    std::uint32_t const groups[3] = {n, grp.slab_tiles * static_cast<std::uint32_t>(tile),
                                     grp.column_tiles * static_cast<std::uint32_t>(tile)};
    bool first = true;  // the first pass starts the index at the identity
    auto sort_in_groups = [&](int axis, std::uint32_t group) {
      group = group < n ? group : n;
      tile_order_keys<T><<<blocks, threads, 0, stream>>>(p.coords[axis], vb.Current(), kb.Current(), n, group, first);
      TWOBODY_CHECK_LAUNCH();
      first = false;
      int const group_bits = bits_for((n - 1) / group + 1);
      TWOBODY_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, kb, vb, n, 0, 32 + group_bits, stream));
    };
    for (int axis = 0; axis < grp.axes; ++axis) { sort_in_groups(axis, groups[axis]); }
    // Sub-tiles: halve each tile along the axes in turn (sort each tile by x, each half by y,
    // each quarter by z, ...: groups of tile, tile / 2, tile / 4 points).
    for (int h = 0; (1 << h) < sub_tiles; ++h) { sort_in_groups(h % grp.axes, static_cast<std::uint32_t>(tile) >> h); }

    coords_ = device_buffer(sizeof(T) * (static_cast<std::size_t>(n) * (D + (W ? 1 : 0))), stream);
    T* const to = coords_.as<T>();
    tile_order_gather<<<blocks, threads, 0, stream>>>(p, to, vb.Current(), n, static_cast<std::uint32_t>(tile),
                                                      static_cast<std::uint32_t>(sub_tiles));
    TWOBODY_CHECK_LAUNCH();
    for (int d = 0; d < D; ++d) { view_.coords[d] = to + static_cast<std::size_t>(d) * n; }
    if constexpr (W) { view_.weights = to + static_cast<std::size_t>(D) * n; }

    std::uint32_t const subs = sub_tiles > 1 ? tiles * static_cast<std::uint32_t>(sub_tiles) : 0;
    boxes_ = device_buffer(sizeof(box) * (tiles + subs), stream);
    auto boxes_of = [&](box* out, std::uint32_t per_tile, std::uint32_t count) {
      tile_boxes_kernel<<<(count + tile_boxes_warps - 1) / tile_boxes_warps, 32 * tile_boxes_warps, 0, stream>>>(
        view_, out, static_cast<std::uint32_t>(tile), per_tile, count);
      TWOBODY_CHECK_LAUNCH();
    };
    boxes_of(boxes_.as<box>(), 1, tiles);
    if (subs > 0) { boxes_of(boxes_.as<box>() + tiles, static_cast<std::uint32_t>(sub_tiles), subs); }
  }

  Points const& view() const { return view_; }
  /// The tiles' boxes, then (sub_tiles() > 1) sub-tile k of tile t's at tiles + t sub_tiles() + k.
  box const* boxes() const { return boxes_.as<box>(); }
  int sub_tiles() const { return sub_tiles_; }

 private:
  static int bits_for(std::uint32_t groups)
  {
    int b = 0;
    while (b < 32 && (1ull << b) < groups) { ++b; }
    return b;
  }

  Points view_;
  int sub_tiles_ = 1;
  device_buffer coords_;
  device_buffer boxes_;
};

/// Both sides of a pair set ordered into tiles of `tile` points (B only in cross mode).
template <class Points>
class tile_ordered_pairs {
 public:
  using box = typename tile_ordered_points<Points>::box;
  tile_ordered_pairs(pair_set<Points> const& p, int tile, int sub_tiles, cudaStream_t stream)
    : mode_(p.mode), a_(p.a, tile, sub_tiles, stream)
  {
    if (p.mode == pair_mode::cross) { b_.emplace(p.b, tile, sub_tiles, stream); }
  }
  pair_set<Points> pairs() const { return {mode_, a_.view(), b_ ? b_->view() : a_.view()}; }
  box const* boxes_a() const { return a_.boxes(); }
  box const* boxes_b() const { return b_ ? b_->boxes() : a_.boxes(); }
  int sub_tiles() const { return a_.sub_tiles(); }

 private:
  pair_mode mode_;
  tile_ordered_points<Points> a_;
  std::optional<tile_ordered_points<Points>> b_;  ///< cross mode only
};

/// Device memory the order of n points takes at its peak (keys, indices, the ordered copy;
/// CUB's temporary storage, about the keys' size again, counted twice over).
template <class Points>
std::size_t tile_order_bytes(long long n)
{
  std::size_t const per_point = 2 * sizeof(std::uint64_t) + 2 * sizeof(std::uint32_t) + 2 * sizeof(std::uint64_t) +
                                sizeof(typename Points::value_type) * (Points::dims + (Points::weighted ? 1 : 0));
  return per_point * static_cast<std::size_t>(n);
}

/// Whether ordering the points for tile forms pays: functors with form rules (the minimum
/// image's forms, or only the bounds: squared_euclidean's slots without the clamp), at most 2^31
/// points a side, and enough tiles that their boxes are much smaller than the whole set's
/// (64 tiles of the largest tile, 2048 points: a quarter of the set's extent per axis in 3-D);
/// the order costs three radix sorts, against the pairs' n^2 / 2. Its scratch must also take
/// at most half the free device memory (the host layer sizes its blocks to the memory it has;
/// without the order the histogram runs on the points as given).
template <class F, class Points>
bool tile_order_pays(pair_set<Points> const& p)
{
  if constexpr (!has_form_rules_v<F>) {
    return false;
  } else {
    long long const limit = 1ll << 31;
    long long const least = 64ll * 2048;
    if (!(p.a.size < limit && p.b.size < limit && p.a.size >= least && p.b.size >= least)) { return false; }
    std::size_t free_b = 0, total_b = 0;
    TWOBODY_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    std::size_t const need = tile_order_bytes<Points>(p.a.size) + (p.mode == pair_mode::cross ? tile_order_bytes<Points>(p.b.size) : 0);
    return need <= free_b / 2;
  }
}

}  // namespace twobody::detail
