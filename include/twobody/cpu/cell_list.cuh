/// \file cell_list.cuh
/// \brief CPU backend: range-limited pair counts, histograms and joins through a cell list, so that
/// a statistic up to a cutoff visits the pairs of adjacent cells instead of all N^2. The cells are
/// the grid index's (math/grid_geometry.cuh: side >= the cutoff, over the points' bounding box or
/// the functor's periodic box); the points are copied in cell order, and OpenMP threads take cells
/// (self pairs: each unordered pair of adjacent cells once) or query points (cross pairs).
///
/// Users reach it through the cutoff forms on `twobody::exec::cpu` (grid.cuh: count_pairs and
/// histogram with a `within_cutoff`; grid_join.cuh: join), which choose it where a point's
/// neighbourhood holds a small share of the data. As on the GPU's grid, pairs farther apart than
/// the cutoff along an axis are never visited: a histogram's `pairs` and `outside` count the
/// visited pairs. Points with a NaN or infinite coordinate are in no cell (their pairs never
/// count, as with brute force).
#pragma once

#include <twobody/cpu/backend.cuh>
#include <twobody/grid_options.cuh>
#include <twobody/math/bin_slot.cuh>
#include <twobody/math/grid_geometry.cuh>
#include <twobody/points.cuh>
#include <twobody/results.cuh>
#include <twobody/util/error.cuh>

#include <cuda/std/array>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace twobody::cpu {

/// A point set in cells of side >= a cutoff, on the host: the non-empty cells' linear ids in
/// ascending order, each cell's range in the points copied in cell order, and their indices in
/// the input.
template <class T, int D>
class cell_list {
 public:
  /// Cells over the bounding box of pts' finite points.
  cell_list(points<T, D> const& pts, double cutoff) { build(pts, cutoff, nullptr); }

  /// Cells of the periodic box [0, box_d); every finite coordinate must lie in it.
  cell_list(points<T, D> const& pts, double cutoff, cuda::std::array<T, D> const& box) { build(pts, cutoff, &box); }

  twobody::detail::grid_geometry<D> const& geometry() const { return geo_; }
  /// Non-empty cells.
  std::int64_t cells() const { return static_cast<std::int64_t>(ids_.size()); }
  /// Cell k's linear id and its points' range [begin(k), end(k)) in cell order.
  unsigned long long id(std::int64_t k) const { return ids_[static_cast<std::size_t>(k)]; }
  std::int64_t begin(std::int64_t k) const { return start_[static_cast<std::size_t>(k)]; }
  std::int64_t end(std::int64_t k) const { return start_[static_cast<std::size_t>(k) + 1]; }
  /// The point at position p of the cell order, and its index in the input.
  point<T, D> const& at(std::int64_t p) const { return sorted_[static_cast<std::size_t>(p)]; }
  std::int64_t input_index(std::int64_t p) const { return order_[static_cast<std::size_t>(p)]; }
  /// The position of the cell with linear id `id` among the non-empty cells, or -1: from a
  /// table of every cell where there are at most 4 cells per point (and 2^26 in all), else by
  /// binary search of the non-empty cells' ids.
  std::int64_t find(unsigned long long id) const
  {
    if (!dense_.empty()) { return dense_[static_cast<std::size_t>(id)]; }
    auto const it = std::lower_bound(ids_.begin(), ids_.end(), id);
    return it != ids_.end() && *it == id ? static_cast<std::int64_t>(it - ids_.begin()) : -1;
  }
  /// Whether a and b are within the cutoff along every axis (periodic: the nearest image), so
  /// that the statistic (zero beyond the cutoff) may count them; skipping the others saves the
  /// functor's call. Periodic axes allow 2^-20 of the side more: a functor's minimum image in T
  /// rounds at the scale of the box, not of the distance.
  bool near(point<T, D> const& a, point<T, D> const& b) const
  {
    for (int d = 0; d < D; ++d) {
      double dx = std::fabs(static_cast<double>(a[d]) - static_cast<double>(b[d]));
      if (geo_.periodic) { dx = std::min(dx, box_[d] - dx); }
      if (!(dx <= reach_[d])) { return false; }  // also NaN: a query with a NaN coordinate is near nothing
    }
    return true;
  }
  /// The points the list was built from (finite or not).
  std::int64_t input_size() const { return input_size_; }
  /// The points in cells (those with finite coordinates).
  std::int64_t size() const { return static_cast<std::int64_t>(sorted_.size()); }
  /// The cell coordinates of a point (its cell, or a cell outside a non-periodic grid).
  void coordinates(point<T, D> const& p, long long (&c)[D]) const
  {
    for (int d = 0; d < D; ++d) { c[d] = geo_.coordinate(static_cast<double>(p[d]), d); }
  }

 private:
  void build(points<T, D> const& pts, double cutoff, cuda::std::array<T, D> const* box)
  {
    TWOBODY_EXPECTS(std::isfinite(cutoff) && cutoff > 0, "cell_list: the cutoff must be finite and > 0");
    for (int d = 0; d < D; ++d) { reach_[d] = cutoff; }
    input_size_ = std::max<std::int64_t>(pts.size, 0);
    std::vector<std::int64_t> finite;
    finite.reserve(static_cast<std::size_t>(input_size_));
    double lo[D], hi[D];
    for (int d = 0; d < D; ++d) { lo[d] = hi[d] = 0; }
    for (std::int64_t i = 0; i < pts.size; ++i) {
      auto const p = pts[i];
      bool ok = true;
      for (int d = 0; d < D; ++d) { ok = ok && std::isfinite(static_cast<double>(p[d])); }
      if (!ok) { continue; }
      for (int d = 0; d < D; ++d) {
        double const x = static_cast<double>(p[d]);
        lo[d] = finite.empty() ? x : std::min(lo[d], x);
        hi[d] = finite.empty() ? x : std::max(hi[d], x);
      }
      finite.push_back(i);
    }
    if (box != nullptr) {
      double side[D];
      for (int d = 0; d < D; ++d) {
        side[d] = box_[d] = static_cast<double>((*box)[d]);
        reach_[d] = cutoff + side[d] * 0x1p-20;
        TWOBODY_EXPECTS(finite.empty() || (lo[d] >= 0 && hi[d] < side[d]),
                        "cell_list: periodic coordinates must lie in [0, box)");
      }
      geo_ = twobody::detail::make_periodic_grid_geometry<D>(side, cutoff);
    } else {
      geo_ = twobody::detail::make_grid_geometry<D>(lo, hi, cutoff);
    }
    // Points in cell order: a stable sort by linear id keeps input order within a cell.
    std::vector<unsigned long long> key(finite.size());
    for (std::size_t k = 0; k < finite.size(); ++k) {
      long long c[D];
      coordinates(pts[finite[k]], c);
      key[k] = geo_.id_of(c);
    }
    std::vector<std::size_t> by_cell(finite.size());
    std::iota(by_cell.begin(), by_cell.end(), std::size_t{0});
    std::stable_sort(by_cell.begin(), by_cell.end(), [&](std::size_t x, std::size_t y) { return key[x] < key[y]; });
    sorted_.resize(finite.size());
    order_.resize(finite.size());
    for (std::size_t p = 0; p < by_cell.size(); ++p) {
      std::size_t const k = by_cell[p];
      sorted_[p]          = pts[finite[k]];
      order_[p]           = finite[k];
      if (p == 0 || key[k] != key[by_cell[p - 1]]) {
        ids_.push_back(key[k]);
        start_.push_back(static_cast<std::int64_t>(p));
      }
    }
    start_.push_back(static_cast<std::int64_t>(sorted_.size()));
    unsigned long long const all = geo_.total();
    if (all <= (1ull << 26) && all <= 4 * static_cast<unsigned long long>(sorted_.size()) + 64) {
      dense_.assign(static_cast<std::size_t>(all), -1);
      for (std::size_t k = 0; k < ids_.size(); ++k) { dense_[static_cast<std::size_t>(ids_[k])] = static_cast<std::int64_t>(k); }
    }
  }

  twobody::detail::grid_geometry<D> geo_{};
  std::int64_t input_size_ = 0;
  double reach_[D]{};  ///< near(): the largest separation along each axis a counted pair can have
  double box_[D]{};
  std::vector<unsigned long long> ids_;
  std::vector<std::int64_t> start_;
  std::vector<point<T, D>> sorted_;
  std::vector<std::int64_t> order_;
  std::vector<std::int64_t> dense_;  ///< every cell's position among the non-empty ones (-1: empty), when small
};

namespace detail {

/// Calls visit(acc, a, b, i, j) for every pair of points a, b (input indices i, j) in the same
/// or adjacent cells, with `acc` the calling thread's accumulator, accs[thread]: the self pairs
/// of the indexed set when `queries` is null (each unordered pair once, i < j), else every query
/// point a with the indexed points b near it; pairs farther apart than the cutoff along an axis
/// are skipped (cell_list::near). Returns the pairs visited.
template <class T, int D, class Acc, class Visit>
unsigned long long for_each_near_pair(cell_list<T, D> const& cl, points<T, D> const* queries, std::vector<Acc>& accs,
                                      Visit&& visit)
{
  auto const& geo = cl.geometry();
  constexpr int stencil = twobody::detail::grid_geometry<D>::stencil_size();
  std::vector<unsigned long long> visited(static_cast<std::size_t>(max_threads()), 0);
  // Progress counts the pair set's pairs, as brute force's loops do: a cell (a query point) done
  // is its share of them.
  double const n = static_cast<double>(cl.input_size());
  std::uint64_t const pairs =
    queries == nullptr ? static_cast<std::uint64_t>(n * (n - 1) / 2) : static_cast<std::uint64_t>(queries->size) * cl.input_size();
  double const per_point = cl.size() > 0 ? static_cast<double>(pairs) / static_cast<double>(cl.size()) : 0.0;
  if (queries == nullptr) {
    std::int64_t const cells = cl.cells();
    progress_poll poll(pairs);
#pragma omp parallel for schedule(dynamic, 16)
    for (std::int64_t k = 0; k < cells; ++k) {
      if (poll.stopped()) { continue; }
      Acc& acc                 = accs[static_cast<std::size_t>(thread_id())];
      unsigned long long& seen = visited[static_cast<std::size_t>(thread_id())];
      std::int64_t const b0    = cl.begin(k), b1 = cl.end(k);
      for (std::int64_t p = b0; p < b1; ++p) {  // pairs within the cell (input order within it)
        for (std::int64_t q = p + 1; q < b1; ++q) {
          if (!cl.near(cl.at(p), cl.at(q))) { continue; }
          visit(acc, cl.at(p), cl.at(q), cl.input_index(p), cl.input_index(q));
          ++seen;
        }
      }
      long long c[D];
      cl.coordinates(cl.at(b0), c);
      for (int o = 0; o < stencil; ++o) {  // each pair of adjacent cells once: from the lower id
        unsigned long long nid = 0;
        if (!geo.neighbour(c, o, nid) || nid <= cl.id(k)) { continue; }
        std::int64_t const m = cl.find(nid);
        if (m < 0) { continue; }
        for (std::int64_t p = b0; p < b1; ++p) {
          for (std::int64_t q = cl.begin(m); q < cl.end(m); ++q) {
            if (!cl.near(cl.at(p), cl.at(q))) { continue; }
            ++seen;
            std::int64_t const i = cl.input_index(p), j = cl.input_index(q);
            if (i < j) {
              visit(acc, cl.at(p), cl.at(q), i, j);
            } else {
              visit(acc, cl.at(q), cl.at(p), j, i);
            }
          }
        }
      }
      poll.done(static_cast<std::uint64_t>(per_point * static_cast<double>(b1 - b0)));
    }
    poll.finish();
  } else {
    progress_poll poll(pairs);
    double const per_query = queries->size > 0 ? static_cast<double>(pairs) / static_cast<double>(queries->size) : 0.0;
#pragma omp parallel for schedule(dynamic, 64)
    for (std::int64_t i = 0; i < queries->size; ++i) {
      if (poll.stopped()) { continue; }
      Acc& acc                 = accs[static_cast<std::size_t>(thread_id())];
      unsigned long long& seen = visited[static_cast<std::size_t>(thread_id())];
      auto const a             = (*queries)[i];
      long long c[D];
      cl.coordinates(a, c);
      for (int o = 0; o < stencil; ++o) {
        unsigned long long nid = 0;
        std::int64_t const m   = geo.neighbour(c, o, nid) ? cl.find(nid) : -1;
        if (m < 0) { continue; }
        for (std::int64_t q = cl.begin(m); q < cl.end(m); ++q) {
          if (!cl.near(a, cl.at(q))) { continue; }
          visit(acc, a, cl.at(q), i, cl.input_index(q));
          ++seen;
        }
      }
      poll.done(static_cast<std::uint64_t>(per_query));
    }
    poll.finish();
  }
  return std::accumulate(visited.begin(), visited.end(), 0ull);
}

/// What the cells did, into the caller's grid_stats (as the GPU's grid reports it).
template <class T, int D>
void report(grid_stats* stats, cell_list<T, D> const& cl, unsigned long long visited)
{
  if (stats == nullptr) { return; }
  stats->distance_calls = visited;
  stats->cells          = cl.cells();
}

}  // namespace detail

/// Pairs with pred(a, b) true among the self pairs of the indexed set (queries null) or the
/// pairs of queries x the indexed set; pred must be false beyond the cells' cutoff.
template <class T, int D, class Pred>
unsigned long long count_pairs(cell_list<T, D> const& cl, points<T, D> const* queries, Pred pred, grid_stats* stats = nullptr)
{
  detail::require_host_functor<Pred>();
  std::vector<unsigned long long> counts(static_cast<std::size_t>(detail::max_threads()), 0);
  unsigned long long const visited = detail::for_each_near_pair(cl, queries, counts, [&](unsigned long long& n, point<T, D> const& a, point<T, D> const& b, std::int64_t, std::int64_t) {
    n += pred(a, b) ? 1 : 0;
  });
  detail::report(stats, cl, visited);
  return std::accumulate(counts.begin(), counts.end(), 0ull);
}

/// Histogram of f over the visited pairs (self or queries x indexed, as count_pairs): `pairs`
/// and `outside` count the visited pairs, as the GPU's grid does.
template <class T, int D, class F, class Binning>
histogram_result<unsigned long long> histogram(cell_list<T, D> const& cl, points<T, D> const* queries, F f, Binning const& bins,
                                               grid_stats* stats = nullptr)
{
  twobody::detail::check_bins_accept<F, Binning>();
  detail::require_host_functor<F>();
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram: need at least one bin");
  std::size_t const slots = static_cast<std::size_t>(bins.size()) + 1;
  std::vector<std::vector<unsigned long long>> priv(static_cast<std::size_t>(detail::max_threads()),
                                                    std::vector<unsigned long long>(slots, 0));
  unsigned long long const visited =
    detail::for_each_near_pair(cl, queries, priv, [&](std::vector<unsigned long long>& h, point<T, D> const& a, point<T, D> const& b, std::int64_t, std::int64_t) {
      ++h[twobody::detail::slot_of(bins, f(a, b))];
    });
  detail::report(stats, cl, visited);
  std::vector<unsigned long long> all(slots, 0);
  for (auto const& h : priv) {
    for (std::size_t s = 0; s < slots; ++s) { all[s] += h[s]; }
  }
  return histogram_result<unsigned long long>::from_slots(std::move(all), visited);
}

/// Join over the visited pairs (self or queries x indexed, as count_pairs): the records `x` (an
/// emitter, or a predicate for index pairs) keeps, in (i, j) order as cpu::join returns them; x
/// must keep no pair beyond the cells' cutoff.
template <class T, int D, class X>
std::vector<join_record_t<X>> join(cell_list<T, D> const& cl, points<T, D> const* queries, X const& x,
                                   grid_stats* stats = nullptr)
{
  auto const e = twobody::detail::as_emitter(x);
  using Record = typename decltype(e)::record_type;
  twobody::detail::check_record<Record>();
  detail::require_host_functor<X>();
  struct keyed {
    std::int64_t i, j;
    Record r;
  };
  std::vector<std::vector<keyed>> parts(static_cast<std::size_t>(detail::max_threads()));
  unsigned long long const visited = detail::for_each_near_pair(cl, queries, parts,
                             [&](std::vector<keyed>& out, point<T, D> const& a, point<T, D> const& b, std::int64_t i, std::int64_t j) {
                               Record r{};
                               if (e(a, b, i, j, r)) { out.push_back(keyed{i, j, r}); }
                             });
  detail::report(stats, cl, visited);
  std::vector<keyed> all;
  for (auto& v : parts) { all.insert(all.end(), v.begin(), v.end()); }
  std::sort(all.begin(), all.end(), [](keyed const& u, keyed const& v) { return u.i != v.i ? u.i < v.i : u.j < v.j; });
  std::vector<Record> records;
  records.reserve(all.size());
  for (auto const& k : all) { records.push_back(k.r); }
  return records;
}

}  // namespace twobody::cpu
