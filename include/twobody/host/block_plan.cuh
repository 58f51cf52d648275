/// \file block_plan.cuh
/// \brief The split of a 2-body statistic into blocks of points and block pairs: the unit of
/// work of the out-of-core, multi-GPU and MPI layers (each block pair runs the normal kernel
/// on device-resident blocks, and Type I/II outputs are summed, Type III concatenated).
///
///     auto plan = twobody::host::block_plan::make(twobody::pair_mode::self, n, n, 1 << 24);
///     for (std::size_t k = 0; k < plan.size(); ++k) {
///       auto const bp  = plan[k];                                 // blocks bp.a of A, bp.b of B
///       auto const sub = plan.pairs_of(bp, block_a_view, block_b_view);  // self_pairs / cross_pairs
///     }
///
/// Self mode: the upper triangle of blocks, each unordered pair of blocks once; a diagonal
/// block runs as self pairs of that block, the others as cross pairs, so every unordered pair
/// of points is visited exactly once. Ordered mode: every block pair (both orders), diagonal
/// blocks as ordered pairs. Cross mode: every (block of A, block of B). Block pairs come in
/// row order (A block fixed while the B blocks run), so consecutive pairs share the A block
/// and a scheduler copies at most one new block per pair.
#pragma once

#include <twobody/points.cuh>
#include <twobody/util/error.cuh>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

namespace twobody::host {

/// Points [begin, begin + size) of a set.
struct block_range {
  size_type begin = 0;
  size_type size  = 0;
};

/// Block `a` of A against block `b` of B. `diagonal`: the same block of one set (self or
/// ordered mode), run as self / ordered pairs of that block.
struct block_pair {
  std::int64_t a  = 0;
  std::int64_t b  = 0;
  bool diagonal   = false;
};

class block_plan {
 public:
  /// Blocks of `block_points` points (the last one smaller) over sets of na (A) and nb (B)
  /// points; self and ordered modes need nb == na.
  static block_plan make(pair_mode mode, size_type na, size_type nb, size_type block_points)
  {
    TWOBODY_EXPECTS(na >= 0 && nb >= 0, "block_plan: set sizes must not be negative");
    TWOBODY_EXPECTS(block_points >= 1, "block_plan: blocks need at least one point");
    TWOBODY_EXPECTS(mode == pair_mode::cross || nb == na, "block_plan: self and ordered pairs need nb == na");
    block_plan p;
    p.mode_ = mode;
    p.na_   = na;
    p.nb_   = nb;
    p.bs_   = block_points;
    p.ba_   = (na + block_points - 1) / block_points;
    p.bb_   = mode == pair_mode::cross ? (nb + block_points - 1) / block_points : p.ba_;
    return p;
  }

  pair_mode mode() const { return mode_; }
  size_type block_points() const { return bs_; }
  std::int64_t blocks_a() const { return ba_; }
  std::int64_t blocks_b() const { return bb_; }
  block_range range_a(std::int64_t i) const { return range(i, na_); }
  block_range range_b(std::int64_t j) const { return range(j, mode_ == pair_mode::cross ? nb_ : na_); }

  /// Number of block pairs.
  std::size_t size() const
  {
    if (ba_ == 0 || bb_ == 0) { return 0; }
    auto const a = static_cast<std::size_t>(ba_), b = static_cast<std::size_t>(bb_);
    return mode_ == pair_mode::self ? a * (a + 1) / 2 : a * b;
  }

  /// The k-th block pair (row order: k runs over b first).
  block_pair operator[](std::size_t k) const
  {
    TWOBODY_EXPECTS(k < size(), "block_plan: block pair index out of range");
    block_pair p;
    if (mode_ == pair_mode::self) {
      // Row i holds the pairs (i, i), (i, i + 1), ..., (i, ba - 1): ba - i of them.
      auto const n = static_cast<std::size_t>(ba_);
      // Rows before i hold i n - i (i - 1) / 2 pairs; find i by the closed form, then fix up
      // the rounding of the square root.
      auto row_start    = [n](std::size_t r) { return r * n - r * (r - 1) / 2; };
      double const nd   = static_cast<double>(n);
      double const root = std::floor((2 * nd + 1 - std::sqrt((2 * nd + 1) * (2 * nd + 1) - 8.0 * static_cast<double>(k))) / 2);
      auto i            = static_cast<std::size_t>(std::max(0.0, std::min(root, nd - 1)));
      while (i > 0 && row_start(i) > k) { --i; }
      while (i + 1 < n && row_start(i + 1) <= k) { ++i; }
      p.a = static_cast<std::int64_t>(i);
      p.b = static_cast<std::int64_t>(i + (k - row_start(i)));
    } else {
      p.a = static_cast<std::int64_t>(k / static_cast<std::size_t>(bb_));
      p.b = static_cast<std::int64_t>(k % static_cast<std::size_t>(bb_));
    }
    p.diagonal = mode_ != pair_mode::cross && p.a == p.b;
    return p;
  }

  /// The pairs of block pair `p`, given views of its two blocks (block p.a of A and p.b of B;
  /// for a diagonal pair the two are the same block).
  template <class Points>
  pair_set<Points> pairs_of(block_pair const& p, Points const& block_a, Points const& block_b) const
  {
    if (!p.diagonal) { return cross_pairs(block_a, block_b); }
    return mode_ == pair_mode::self ? self_pairs(block_a) : ordered_pairs(block_a);
  }

  /// Points pairs of block pair `p` (for progress reports and rates).
  unsigned long long pair_count(block_pair const& p) const
  {
    auto const a = static_cast<unsigned long long>(range_a(p.a).size);
    auto const b = static_cast<unsigned long long>(range_b(p.b).size);
    if (!p.diagonal) { return a * b; }
    return mode_ == pair_mode::self ? a * (a - 1) / 2 : a * (a - 1);
  }

 private:
  block_range range(std::int64_t i, size_type n) const
  {
    size_type const begin = static_cast<size_type>(i) * bs_;
    return {begin, std::min(bs_, n - begin)};
  }

  pair_mode mode_ = pair_mode::self;
  size_type na_ = 0, nb_ = 0, bs_ = 1;
  std::int64_t ba_ = 0, bb_ = 0;
};

/// The block pairs (indices into `plan`) of part `part` of `parts`, in work order: the largest
/// block pairs first (row order among equals, so consecutive pairs share blocks), each in turn
/// to the part with the fewest point pairs so far (ties: the lowest part). The parts' work then
/// differs by at most one of the smallest block pairs, the small ones run last (short tails for
/// workers sharing a queue), and every process computes the same split.
inline std::vector<std::size_t> share_of(block_plan const& plan, std::size_t part, std::size_t parts)
{
  TWOBODY_EXPECTS(parts >= 1 && part < parts, "share_of: need 0 <= part < parts");
  std::vector<unsigned long long> work(plan.size());
  std::vector<std::size_t> order(plan.size());
  for (std::size_t k = 0; k < plan.size(); ++k) {
    work[k]  = plan.pair_count(plan[k]);
    order[k] = k;
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return work[x] > work[y]; });
  std::vector<std::size_t> mine;
  using load = std::pair<unsigned long long, std::size_t>;  // (point pairs so far, part)
  std::priority_queue<load, std::vector<load>, std::greater<load>> least;
  for (std::size_t p = 0; p < parts; ++p) { least.push({0, p}); }
  for (std::size_t k : order) {
    load l = least.top();
    least.pop();
    if (l.second == part) { mine.push_back(k); }
    l.first += work[k];
    least.push(l);
  }
  return mine;
}

/// A view of points [r.begin, r.begin + r.size) of `set` (host or device memory: no copy).
template <class Points>
Points block_of(Points const& set, block_range r)
{
  Points p = set;
  for (int d = 0; d < Points::dims; ++d) { p.coords[d] = set.coords[d] + r.begin; }
  if constexpr (Points::weighted) { p.weights = set.weights + r.begin; }
  p.size = r.size;
  return p;
}

/// The largest block size <= `block_points` that splits the pairs of a set (sizes na, nb) into
/// at least `min_block_pairs` block pairs (or gives blocks of one point), so that several
/// workers can share them evenly.
inline size_type block_points_for_pairs(pair_mode mode, size_type na, size_type nb, size_type block_points,
                                        std::size_t min_block_pairs)
{
  TWOBODY_EXPECTS(block_points >= 1, "block_points_for_pairs: blocks need at least one point");
  size_type bs = std::min(block_points, std::max<size_type>(1, std::max(na, nb)));
  if (na <= 0 || nb <= 0) { return bs; }  // no pairs at any size
  while (bs > 1 && block_plan::make(mode, na, nb, bs).size() < min_block_pairs) {
    // The next smaller size at which a set gets one more block (sizes in between change nothing).
    size_type next = 1;
    for (size_type n : {na, nb}) {
      size_type const blocks = (n + bs - 1) / bs;
      if (blocks < n) { next = std::max(next, (n + blocks - 1) / blocks - 1); }
    }
    bs = next;
  }
  return bs;
}

/// Block size for a device memory budget: `resident_blocks` blocks (e.g. A and B blocks, each
/// double-buffered so the next copy overlaps the current kernel: 4) of `bytes_per_point` each
/// must fit; capped at `max_points` (one launch takes fewer than 2^32 points per side).
inline size_type block_points_for_budget(std::size_t budget_bytes, std::size_t bytes_per_point, int resident_blocks,
                                         size_type max_points = (size_type(1) << 31))
{
  TWOBODY_EXPECTS(bytes_per_point >= 1 && resident_blocks >= 1, "block_points_for_budget: bad arguments");
  auto const fit = static_cast<size_type>(budget_bytes / (bytes_per_point * static_cast<std::size_t>(resident_blocks)));
  TWOBODY_EXPECTS(fit >= 1, ("a device memory budget of " + std::to_string(budget_bytes) + " bytes cannot hold " +
                             std::to_string(resident_blocks) + " blocks of one point (" +
                             std::to_string(bytes_per_point) + " bytes each)")
                              .c_str());
  return std::min(fit, max_points);
}

/// Smallest block for which a block pair's compute (block^2 pairs at `pairs_per_s`) outlasts
/// the copy of one block (block * bytes_per_point at `copy_bytes_per_s`), so copies can hide
/// behind compute: block >= pairs_per_s * bytes_per_point / copy_bytes_per_s.
inline size_type min_block_points_for_overlap(double pairs_per_s, std::size_t bytes_per_point, double copy_bytes_per_s)
{
  TWOBODY_EXPECTS(pairs_per_s > 0 && copy_bytes_per_s > 0, "min_block_points_for_overlap: rates must be > 0");
  return static_cast<size_type>(std::ceil(pairs_per_s * static_cast<double>(bytes_per_point) / copy_bytes_per_s));
}

}  // namespace twobody::host
