/// \file estimators.cuh
/// \brief Science-ready statistics from pair-count histograms (host only, double precision):
/// the radial distribution function g(r) of a periodic box, and the 2-point correlation
/// function xi(r) from data-data, data-random and random-random counts with the natural and
/// the Landy-Szalay estimators, and the projected w_p(r_p) from (r_p, pi) counts.
///
///     auto dd = twobody::histogram(twobody::self_pairs(data), twobody::euclidean{}, bins);
///     auto dr = twobody::histogram(twobody::cross_pairs(data, randoms), twobody::euclidean{}, bins);
///     auto rr = twobody::histogram(twobody::self_pairs(randoms), twobody::euclidean{}, bins);
///     std::vector<double> xi = twobody::xi_landy_szalay(
///       twobody::normalized(dd, twobody::self_pair_total(n_data)),
///       twobody::normalized(dr, twobody::cross_pair_total(n_data, n_randoms)),
///       twobody::normalized(rr, twobody::self_pair_total(n_randoms)));
///
/// Counts of self pairs are of unordered pairs (i < j), as twobody's self mode visits them.
/// A bin whose random-random count is zero has no estimate: its xi is NaN (not 0), so an
/// empty bin is never mistaken for an uncorrelated one.
#pragma once

#include <twobody/binning.cuh>
#include <twobody/results.cuh>
#include <twobody/util/error.cuh>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace twobody {

/// Volume of the `dims`-dimensional ball of radius r (pi r^2 in 2-D, 4/3 pi r^3 in 3-D).
inline double ball_volume(int dims, double r)
{
  TWOBODY_EXPECTS(dims >= 1, "ball_volume: need at least one dimension");
  TWOBODY_EXPECTS(r >= 0.0, "ball_volume: the radius must not be negative");
  double const pi = 3.14159265358979323846;
  return std::pow(pi, dims / 2.0) / std::tgamma(dims / 2.0 + 1.0) * std::pow(r, dims);
}

/// Volume of the shell lo <= r < hi in `dims` dimensions.
inline double shell_volume(int dims, double lo, double hi)
{
  TWOBODY_EXPECTS(lo <= hi, "shell_volume: need lo <= hi");
  return ball_volume(dims, hi) - ball_volume(dims, lo);
}

/// The edges of a 1-D bin map, edge(0) .. edge(size()) (distances for distance_bins, which is
/// fed squared distances but has distance edges).
template <class Binning>
std::vector<double> bin_edges(Binning const& bins)
{
  std::vector<double> e(static_cast<std::size_t>(bins.size()) + 1);
  for (int k = 0; k <= bins.size(); ++k) { e[static_cast<std::size_t>(k)] = static_cast<double>(bins.edge(k)); }
  return e;
}

// ---------------------------------------------------------------------------------------------
// Pair totals (the normalisation of each kind of pair count)

/// Unordered pairs of n points: n (n - 1) / 2.
inline double self_pair_total(long long n)
{
  TWOBODY_EXPECTS(n >= 0, "self_pair_total: negative point count");
  return 0.5 * static_cast<double>(n) * static_cast<double>(n - 1 > 0 ? n - 1 : 0);
}

/// Weighted unordered pairs: sum over i < j of w_i w_j = ((sum w)^2 - sum w^2) / 2.
inline double self_pair_total(std::vector<double> const& weights)
{
  double s = 0.0, s2 = 0.0;
  for (double w : weights) {
    s += w;
    s2 += w * w;
  }
  return 0.5 * (s * s - s2);
}

/// Pairs of two sets: n_a n_b.
inline double cross_pair_total(long long n_a, long long n_b)
{
  TWOBODY_EXPECTS(n_a >= 0 && n_b >= 0, "cross_pair_total: negative point count");
  return static_cast<double>(n_a) * static_cast<double>(n_b);
}

/// Weighted pairs of two sets: (sum w_a) (sum w_b).
inline double cross_pair_total(std::vector<double> const& weights_a, std::vector<double> const& weights_b)
{
  double sa = 0.0, sb = 0.0;
  for (double w : weights_a) { sa += w; }
  for (double w : weights_b) { sb += w; }
  return sa * sb;
}

/// A pair-count histogram divided by its pair total (the fraction of all pairs in each bin).
template <class Count>
std::vector<double> normalized(histogram_result<Count> const& h, double total)
{
  TWOBODY_EXPECTS(total > 0.0 && std::isfinite(total), "normalized: the pair total must be positive and finite");
  std::vector<double> f(h.counts.size());
  for (std::size_t k = 0; k < f.size(); ++k) { f[k] = static_cast<double>(h.counts[k]) / total; }
  return f;
}

// ---------------------------------------------------------------------------------------------
// g(r)

/// g(r) from a histogram over `pairs` pairs in all (n (n - 1) / 2 for one species, n_a n_b for
/// two, the sum of w_i w_j over every pair for weighted points): in each shell, count / (pairs *
/// shell volume / box volume), the count an ideal gas of the same density would put there. The
/// box's size is the dimension; the bins must start at 0 or above and end at or before half its
/// shortest side. Shells an ideal gas leaves empty get NaN.
template <class Count, class Binning>
std::vector<double> radial_distribution_of_pairs(histogram_result<Count> const& h, Binning const& bins, std::vector<double> const& box,
                           double pairs)
{
  TWOBODY_EXPECTS(!box.empty(), "radial_distribution: the box needs at least one side");
  double volume = 1.0, shortest = std::numeric_limits<double>::infinity();
  for (double l : box) {
    TWOBODY_EXPECTS(l > 0.0 && std::isfinite(l), "radial_distribution: box sides must be positive and finite");
    volume *= l;
    shortest = std::min(shortest, l);
  }
  TWOBODY_EXPECTS(h.counts.size() == static_cast<std::size_t>(bins.size()),
                  "radial_distribution: the histogram and the bins differ in size");
  std::vector<double> const e = bin_edges(bins);
  TWOBODY_EXPECTS(e.front() >= 0.0, "radial_distribution: distance bins must start at 0 or above");
  // Past half the shortest side the minimum image no longer reaches every point of a shell.
  TWOBODY_EXPECTS(e.back() <= 0.5 * shortest * (1.0 + 1e-12),
                  "radial_distribution: the bins end past half the shortest box side, where minimum-image shells "
                  "are incomplete");
  TWOBODY_EXPECTS(pairs > 0.0, "radial_distribution: no pairs (need at least two points)");
  int const dims = static_cast<int>(box.size());
  std::vector<double> g(h.counts.size());
  for (std::size_t k = 0; k < g.size(); ++k) {
    double const ideal = pairs * shell_volume(dims, e[k], e[k + 1]) / volume;
    g[k]               = ideal > 0.0 ? static_cast<double>(h.counts[k]) / ideal : std::numeric_limits<double>::quiet_NaN();
  }
  return g;
}


/// g(r) of n points of one species in a periodic box with sides `box` (its size is the
/// dimension), from the histogram of their unordered pairs' minimum-image distances
/// (periodic_euclidean with uniform_bins, or the squared form with distance_bins). The bins
/// must end at or before half the shortest side. An ideal gas gives g = 1 in every shell.
template <class Count, class Binning>
std::vector<double> radial_distribution(histogram_result<Count> const& h, Binning const& bins,
                                        std::vector<double> const& box, long long n)
{
  return radial_distribution_of_pairs(h, bins, box, self_pair_total(n));
}

/// g_ab(r) between n_a points of species a and n_b of species b (a histogram of their cross
/// pairs): count / (n_a n_b shell volume / box volume).
template <class Count, class Binning>
std::vector<double> radial_distribution(histogram_result<Count> const& h, Binning const& bins,
                                        std::vector<double> const& box, long long n_a, long long n_b)
{
  return radial_distribution_of_pairs(h, bins, box, cross_pair_total(n_a, n_b));
}

/// g(r) averaged over the frames of a trajectory (frames.cuh's histogram_per_frame): each
/// frame's g from its own histogram, box (boxes[f * dims .. f * dims + dims - 1]) and number of
/// points, then the mean over the frames with at least two points (frames without pairs have
/// no g). Throws when no frame has two points.
template <class Count, class Binning>
std::vector<double> radial_distribution_over_frames(std::vector<histogram_result<Count>> const& per_frame,
                                                    Binning const& bins, std::vector<double> const& boxes, int dims,
                                                    std::vector<long long> const& frame_sizes)
{
  TWOBODY_EXPECTS(dims >= 1, "radial_distribution_over_frames: need at least one dimension");
  TWOBODY_EXPECTS(frame_sizes.size() == per_frame.size() && boxes.size() == per_frame.size() * static_cast<std::size_t>(dims),
                  "radial_distribution_over_frames: one histogram, one size and dims box sides per frame");
  std::vector<double> mean(static_cast<std::size_t>(bins.size()), 0.0);
  long long used = 0;
  for (std::size_t f = 0; f < per_frame.size(); ++f) {
    if (frame_sizes[f] < 2) { continue; }
    std::vector<double> const box(boxes.begin() + static_cast<std::ptrdiff_t>(f * dims),
                                  boxes.begin() + static_cast<std::ptrdiff_t>((f + 1) * dims));
    std::vector<double> const g = radial_distribution(per_frame[f], bins, box, frame_sizes[f]);
    for (std::size_t k = 0; k < mean.size(); ++k) { mean[k] += g[k]; }
    ++used;
  }
  TWOBODY_EXPECTS(used > 0, "radial_distribution_over_frames: no frame has two points");
  for (double& g : mean) { g /= static_cast<double>(used); }
  return mean;
}

// ---------------------------------------------------------------------------------------------
// xi(r)

/// Natural (Peebles-Hauser) estimator: xi = DD / RR - 1 on normalized counts.
inline std::vector<double> xi_natural(std::vector<double> const& dd, std::vector<double> const& rr)
{
  TWOBODY_EXPECTS(dd.size() == rr.size(), "xi_natural: DD and RR differ in size");
  std::vector<double> xi(dd.size());
  for (std::size_t k = 0; k < xi.size(); ++k) {
    xi[k] = rr[k] > 0.0 ? dd[k] / rr[k] - 1.0 : std::numeric_limits<double>::quiet_NaN();
  }
  return xi;
}

/// Landy-Szalay estimator: xi = (DD - 2 DR + RR) / RR on normalized counts.
inline std::vector<double> xi_landy_szalay(std::vector<double> const& dd, std::vector<double> const& dr,
                                           std::vector<double> const& rr)
{
  TWOBODY_EXPECTS(dd.size() == rr.size() && dr.size() == rr.size(), "xi_landy_szalay: DD, DR and RR differ in size");
  std::vector<double> xi(dd.size());
  for (std::size_t k = 0; k < xi.size(); ++k) {
    xi[k] = rr[k] > 0.0 ? (dd[k] - 2.0 * dr[k] + rr[k]) / rr[k] : std::numeric_limits<double>::quiet_NaN();
  }
  return xi;
}

/// Projected correlation function w_p(r_p) = 2 sum_j xi(r_p, pi_j) delta pi_j over the pi bins of
/// `bins` (pi = |line-of-sight separation| from rp_pi_separation, so the factor 2 counts the
/// negative separations; the pi bins end at pi_max). `xi` holds one value per 2-D bin, slot
/// j * X.size() + i as bins_2d lays them out (xi_landy_szalay of normalized (r_p, pi) counts).
/// A r_p bin with a NaN in any of its pi bins gets NaN.
template <class BinsX, class BinsY>
std::vector<double> projected_correlation(std::vector<double> const& xi, bins_2d<BinsX, BinsY> const& bins)
{
  TWOBODY_EXPECTS(xi.size() == static_cast<std::size_t>(bins.size()),
                  "projected_correlation: need one xi per (r_p, pi) bin");
  std::vector<double> const pi_edges = bin_edges(bins.y);
  std::size_t const nx               = static_cast<std::size_t>(bins.x.size());
  std::vector<double> wp(nx, 0.0);
  for (std::size_t j = 0; j + 1 < pi_edges.size(); ++j) {
    double const dpi = pi_edges[j + 1] - pi_edges[j];
    for (std::size_t i = 0; i < nx; ++i) { wp[i] += 2.0 * xi[j * nx + i] * dpi; }
  }
  return wp;
}

}  // namespace twobody
