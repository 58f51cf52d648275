#pragma once

/// Samples for the planner of histograms past shared memory: the slots a histogram's pairs
/// update (to place a spilling pass's window where most pairs fall), and the slots of the tile
/// pairs of points ordered into tiles (what passes over windows of the bins visit).

#include <twobody/detail/tile_order.cuh>
#include <twobody/math/bin_slot.cuh>
#include <twobody/math/tile_forms.cuh>
#include <twobody/model/histogram_plan.cuh>
#include <twobody/points.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/pinned_array.cuh>
#include <twobody/util/staging.cuh>
#include <twobody/value_traits.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

namespace twobody::detail {

#ifdef __CUDACC__
/// Sample pair q = (ia, ib) of the sampled points; its slot, or -1 where both are one point of
/// a self or ordered set.
template <class Points, class F, class Binning>
__global__ void sample_slots_kernel(pair_set<Points> sample, F f, Binning bins, int* slots)
{
  long long const q = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= static_cast<long long>(sample.a.size) * sample.b.size) { return; }
  size_type const i = static_cast<size_type>(q / sample.b.size), j = static_cast<size_type>(q % sample.b.size);
  slots[q] = sample.mode != pair_mode::cross && i == j ? -1 : slot_of(bins, f(sample.a[i], sample.b[j]));
}

/// Points 0, s, 2 s, ... (`count` of them, s = size / count) of `from` (host or device memory)
/// into `to` (device memory, count x D values), as a view of unweighted coordinates.
template <class Points>
Points gather_sample(Points const& from, int count, typename Points::value_type* to, cudaStream_t stream)
{
  using T                = typename Points::value_type;
  size_type const stride = from.size / count;
  Points view{};
  view.size = count;
  for (int d = 0; d < Points::dims; ++d) {
    T* const dst = to + static_cast<std::size_t>(d) * count;
    TWOBODY_CUDA_TRY(cudaMemcpy2DAsync(dst, sizeof(T), from.coords[d], sizeof(T) * static_cast<std::size_t>(stride), sizeof(T),
                                       static_cast<std::size_t>(count), cudaMemcpyDefault, stream));
    view.coords[d] = dst;
  }
  return view;
}

/// Counts per slot (bins.size() + 1 of them) of the pairs among up to `per_side` evenly spaced
/// points of A and as many of B (host or device memory): small copies, one small kernel and a
/// synchronous copy back on `stream`.
template <class Points, class F, class Binning>
std::vector<unsigned long long> sample_slot_counts(pair_set<Points> const& pairs, F const& f, Binning const& bins,
                                                   cudaStream_t stream, int per_side = 256)
{
  using T = typename Points::value_type;
  std::vector<unsigned long long> counts(static_cast<std::size_t>(bins.size()) + 1, 0ull);
  int const per_a = static_cast<int>(std::min<size_type>(per_side, pairs.a.size));
  int const per_b = pairs.mode == pair_mode::cross ? static_cast<int>(std::min<size_type>(per_side, pairs.b.size)) : per_a;
  if (per_a == 0 || per_b == 0) { return counts; }
  device_buffer points(sizeof(T) * Points::dims * static_cast<std::size_t>(per_a + per_b), stream);
  pair_set<Points> sample{pairs.mode, gather_sample(pairs.a, per_a, points.as<T>(), stream), {}};
  sample.b = pairs.mode == pair_mode::cross
               ? gather_sample(pairs.b, per_b, points.as<T>() + static_cast<std::size_t>(Points::dims) * per_a, stream)
               : sample.a;
  std::size_t const n = static_cast<std::size_t>(per_a) * static_cast<std::size_t>(per_b);
  device_buffer slots(sizeof(int) * n, stream);
  sample_slots_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(sample, f, bins, slots.as<int>());
  TWOBODY_CHECK_LAUNCH();
  std::vector<int> host(n);
  copy_to_host_sync(host.data(), slots.as<int>(), n, stream);
  for (int s : host) {
    if (s >= 0) { ++counts[std::min<std::size_t>(static_cast<std::size_t>(s), counts.size() - 1)]; }
  }
  return counts;
}

/// The tile pairs of `pairs` ordered into tiles of `tile` points (tile_order.cuh), for the planner
/// of passes over windows of the bins: bounds of each one's slots from the tiles' boxes
/// (tile_forms.cuh), each weighted with its pairs. With sub_tiles > 1 (the kernels then decide
/// per sub-tile pair: tile_traversal.cuh) a full off-diagonal tile pair stands as up to 16 of its
/// sub-tile pairs, each with its boxes' slots and its share of the pairs. Past `most` entries,
/// every s-th row tile against every s-th column tile, weighted s^2 times (s times on the
/// diagonal). One order (of a device copy where the points are in host memory), a copy of the
/// boxes and a synchronous wait on `stream`.
template <class Points, class F, class Binning>
std::vector<tile_pair_slots> sample_tile_pair_slots(pair_set<Points> const& pairs, F const& f, Binning const& bins, int tile,
                                                    cudaStream_t stream, long long most = 1 << 13, int sub_tiles = 1)
{
  using box = tile_box<typename Points::value_type, Points::dims>;
  staged_pairs<Points> const staged(pairs, stream);  // (host arrays: copied to the device first)
  tile_ordered_pairs<Points> const o(staged.pairs(), tile, sub_tiles, stream);
  int const subs      = o.sub_tiles();
  bool const cross    = pairs.mode == pair_mode::cross;
  long long const n_a = pairs.a.size, n_b = cross ? pairs.b.size : n_a;
  long long const rows = (n_a + tile - 1) / tile, cols = (n_b + tile - 1) / tile;
  auto const with_subs = [&](long long tiles) { return static_cast<std::size_t>(tiles * (subs > 1 ? 1 + subs : 1)); };
  std::vector<box> ba(with_subs(rows)), bb(with_subs(cols));
  TWOBODY_CUDA_TRY(cudaMemcpyAsync(ba.data(), o.boxes_a(), sizeof(box) * ba.size(), cudaMemcpyDeviceToHost, stream));
  TWOBODY_CUDA_TRY(cudaMemcpyAsync(bb.data(), o.boxes_b(), sizeof(box) * bb.size(), cudaMemcpyDeviceToHost, stream));
  TWOBODY_CUDA_TRY(cudaStreamSynchronize(stream));
  int const per_pair = subs > 1 ? std::min(16, subs * subs) : 1;  // entries of a full off-diagonal tile pair
  long long step = 1;
  while ((rows / step) * (cols / step) * per_pair > most) { ++step; }
  auto points_of = [&](long long t, long long n) { return static_cast<double>(std::min<long long>(tile, n - t * tile)); };
  std::vector<tile_pair_slots> out;
  auto bounds = [&](box const& a, box const& b) {
    auto const form = tile_form_of(f, a, b);
    return slot_bounds_of(bins, form.lower, form.upper, form.bounded);
  };
  for (long long i = 0; i < rows; i += step) {
    for (long long j = cross ? 0 : (pairs.mode == pair_mode::self ? i : 0); j < cols; j += step) {
      double const na = points_of(i, n_a), nb = points_of(j, n_b);
      bool const diagonal = !cross && i == j;
      double const p      = !diagonal ? na * nb : (pairs.mode == pair_mode::self ? na * (na - 1.0) / 2.0 : na * (na - 1.0));
      double const weight = p * static_cast<double>(diagonal ? step : step * step);
      slot_bounds const t = bounds(ba[static_cast<std::size_t>(i)], bb[static_cast<std::size_t>(j)]);
      if (subs > 1 && !diagonal && na == tile && nb == tile) {
        // per_pair of the subs x subs sub-tile pairs, spread over rows and columns (a different
        // set per tile pair).
        for (int q = 0; q < per_pair; ++q) {
          int const w = static_cast<int>((q + i) % subs), k = static_cast<int>((q * 7 + q / subs + j) % subs);
          slot_bounds const b =
            bounds(ba[static_cast<std::size_t>(rows + i * subs + w)], bb[static_cast<std::size_t>(cols + j * subs + k)]);
          out.push_back({b.lo, b.hi, weight / per_pair, t.lo, t.hi});
        }
      } else {
        out.push_back({t.lo, t.hi, weight});
      }
    }
  }
  return out;
}
#endif  // __CUDACC__

}  // namespace twobody::detail
