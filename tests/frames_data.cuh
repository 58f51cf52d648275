// Test trajectories: frames of random sizes (empty and one-point frames included) with integer
// coordinates in a per-frame periodic box of integer sides, so every minimum-image squared
// distance is an exact integer, and bins over squared distances with edges at half-integers
// (away from every value). An independent double-precision reference per frame.
#pragma once

#include <twobody/twobody.cuh>

#include <cmath>
#include <random>
#include <vector>

namespace tbt {

struct trajectory {
  std::vector<float> x, y, z;
  std::vector<twobody::size_type> offsets{0};
  std::vector<float> boxes;  // F x 3
  std::vector<int> species;  // 0 or 1 per point

  twobody::size_type frames() const { return static_cast<twobody::size_type>(offsets.size()) - 1; }
  twobody::points<float, 3> view() const
  {
    return twobody::make_points(static_cast<twobody::size_type>(x.size()), x.data(), y.data(), z.data());
  }
  twobody::frame_set<twobody::points<float, 3>> frame_set() const
  {
    return twobody::make_frames(view(), offsets.data(), frames()).with_boxes(boxes.data());
  }
};

/// Frames of the given sizes; sides drawn from {18, 20, 24, 30} per axis and frame.
inline trajectory make_trajectory(std::vector<int> const& sizes, unsigned seed)
{
  trajectory t;
  std::mt19937 rng(seed);
  int const sides[] = {18, 20, 24, 30};
  for (int n : sizes) {
    float L[3];
    for (float& l : L) {
      l = static_cast<float>(sides[rng() % 4]);
      t.boxes.push_back(l);
    }
    for (int i = 0; i < n; ++i) {
      t.x.push_back(static_cast<float>(rng() % static_cast<unsigned>(L[0])));
      t.y.push_back(static_cast<float>(rng() % static_cast<unsigned>(L[1])));
      t.z.push_back(static_cast<float>(rng() % static_cast<unsigned>(L[2])));
      t.species.push_back(static_cast<int>(rng() % 3 == 0));
    }
    t.offsets.push_back(static_cast<twobody::size_type>(t.x.size()));
  }
  return t;
}

/// Splits each frame into species 0 (a) and 1 (b), keeping the boxes.
inline void split_species(trajectory const& t, trajectory& a, trajectory& b)
{
  a = trajectory{};
  b = trajectory{};
  a.boxes = b.boxes = t.boxes;
  for (twobody::size_type f = 0; f < t.frames(); ++f) {
    for (auto i = t.offsets[f]; i < t.offsets[f + 1]; ++i) {
      trajectory& s = t.species[i] ? b : a;
      s.x.push_back(t.x[i]), s.y.push_back(t.y[i]), s.z.push_back(t.z[i]), s.species.push_back(t.species[i]);
    }
    a.offsets.push_back(static_cast<twobody::size_type>(a.x.size()));
    b.offsets.push_back(static_cast<twobody::size_type>(b.x.size()));
  }
}

/// Squared distances binned by `bins` (uniform over squared distance), per frame: slots of
/// bins.size() + 1 (the last: outside). Independent of the library's loops.
inline std::vector<std::vector<unsigned long long>> reference_histograms(trajectory const& a, trajectory const* b,
                                                                         double lo, double hi, int n)
{
  std::vector<std::vector<unsigned long long>> out;
  for (twobody::size_type f = 0; f < a.frames(); ++f) {
    std::vector<unsigned long long> h(static_cast<std::size_t>(n) + 1, 0);
    double const* box = nullptr;
    double L[3] = {a.boxes[3 * f], a.boxes[3 * f + 1], a.boxes[3 * f + 2]};
    box         = L;
    auto add    = [&](std::size_t i, trajectory const& tb, std::size_t j) {
      double const p[3] = {a.x[i], a.y[i], a.z[i]}, q[3] = {tb.x[j], tb.y[j], tb.z[j]};
      double s = 0;
      for (int d = 0; d < 3; ++d) {
        double dd = std::fabs(p[d] - q[d]);
        dd        = std::min(dd, box[d] - dd);
        s += dd * dd;
      }
      double const t = (s - lo) / (hi - lo) * n;
      h[(t >= 0 && t < n) ? static_cast<std::size_t>(t) : static_cast<std::size_t>(n)]++;
    };
    for (auto i = a.offsets[f]; i < a.offsets[f + 1]; ++i) {
      if (b == nullptr) {
        for (auto j = i + 1; j < a.offsets[f + 1]; ++j) { add(i, a, j); }
      } else {
        for (auto j = b->offsets[f]; j < b->offsets[f + 1]; ++j) { add(i, *b, j); }
      }
    }
    out.push_back(h);
  }
  return out;
}

}  // namespace tbt
