// g(r) over the frames of a trajectory, in one batched call (twobody/frames.cuh).
//
// The example writes a small trajectory in the extended XYZ format (one frame: the atom count,
// a comment line with the box, then "Ar x y z" per atom): a jittered cubic crystal of N atoms
// whose box breathes from frame to frame, as an NPT run would. It reads the file back like
// any XYZ trajectory, puts every frame in one coordinate array with an offsets array and a box
// per frame, and computes each frame's histogram of minimum-image distances with one call
// (histogram_per_frame). g(r) is the mean of the frames' normalised histograms
// (radial_distribution_over_frames). With --check the same histograms come from the CPU
// backend and must agree bin for bin: coordinates and box sides are multiples of 1/64, so every
// squared distance is exact in float on both (no rounding, fused or not), and periodic_euclidean
// with uniform_bins bins its correctly rounded square root the same way on both.
//
//   example_trajectory_rdf [N] [--check] [--help]   (N atoms per frame; 200 frames)
#include <twobody/twobody.cuh>

#include "example_common.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int frame_count = 200;
constexpr float spacing   = 1.1f;  // lattice constant: the first peak of g(r) sits there

/// x rounded to a multiple of 1/64.
float dyadic(float x) { return std::round(x * 64.f) / 64.f; }

/// Writes the trajectory: frames of a jittered cubic crystal (side^3 atoms, the first n of them).
void write_xyz(std::string const& path, long long n)
{
  int const side = static_cast<int>(std::ceil(std::cbrt(static_cast<double>(n))));
  std::ofstream out(path);
  if (!out) { throw twobody::error("cannot write " + path); }
  out.precision(10);  // multiples of 1/64 below 64 print exactly
  std::mt19937 rng(2026);
  std::uniform_real_distribution<float> jitter(-0.12f, 0.12f);
  for (int f = 0; f < frame_count; ++f) {
    float const scale = 1.f + 0.02f * std::sin(0.1f * static_cast<float>(f));  // the box breathes
    float const L     = dyadic(side * spacing * scale);
    out << n << "\nLattice=\"" << L << " 0 0 0 " << L << " 0 0 0 " << L << "\" frame=" << f << "\n";
    for (long long i = 0; i < n; ++i) {
      long long const c[3] = {i % side, (i / side) % side, i / (static_cast<long long>(side) * side)};
      out << "Ar";
      for (long long k : c) {
        float x = (static_cast<float>(k) * spacing + jitter(rng)) * scale;
        x       = std::fmod(dyadic(x) + L, L);  // wrap into [0, L)
        out << ' ' << x;
      }
      out << '\n';
    }
  }
  if (!out) { throw twobody::error("writing " + path + " failed (disk full?)"); }
}

/// A trajectory read back: every frame's atoms in one array, offsets and boxes per frame.
struct trajectory {
  std::vector<float> x, y, z, boxes;
  std::vector<twobody::size_type> offsets{0};
  std::vector<long long> sizes;
};

trajectory read_xyz(std::string const& path)
{
  std::ifstream in(path);
  if (!in) { throw twobody::error("cannot read " + path); }
  trajectory t;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) { continue; }
    long long const n = std::stoll(line);
    std::getline(in, line);  // Lattice="Lx 0 0 0 Ly 0 0 0 Lz"
    auto const q = line.find('"');
    if (q == std::string::npos) { throw twobody::error(path + ": a frame without a Lattice=\"...\" box"); }
    std::istringstream lat(line.substr(q + 1));
    float m[9];
    for (float& v : m) { lat >> v; }
    t.boxes.insert(t.boxes.end(), {m[0], m[4], m[8]});
    for (long long i = 0; i < n; ++i) {
      std::string name;
      float x, y, z;
      if (!(in >> name >> x >> y >> z)) { throw twobody::error(path + ": a frame ends early"); }
      t.x.push_back(x), t.y.push_back(y), t.z.push_back(z);
    }
    std::getline(in, line);
    t.offsets.push_back(static_cast<twobody::size_type>(t.x.size()));
    t.sizes.push_back(n);
  }
  return t;
}

int run(example::command_line const& cl)
{
  long long const n = cl.n;
  if (n > 20000) { throw twobody::error("N (atoms per frame) must be at most 20000 in this example"); }
  std::string const path = (std::filesystem::temp_directory_path() / "twobody_trajectory.xyz").string();
  write_xyz(path, n);
  trajectory const t = read_xyz(path);
  std::filesystem::remove(path);
  auto const F = static_cast<twobody::size_type>(t.sizes.size());
  std::printf("read %lld frames of %lld atoms from %s\n", static_cast<long long>(F), n, path.c_str());

  // Bins out to a bit under half the smallest box (boxes shorter than twice the reach are refused).
  float shortest = t.boxes[0];
  for (float b : t.boxes) { shortest = std::min(shortest, b); }
  float const rmax = std::min(4.f, 0.49f * shortest);
  twobody::uniform_bins<float> const bins(0.f, rmax, 80);
  auto const frames = twobody::make_frames(twobody::make_points(t.offsets.back(), t.x.data(), t.y.data(), t.z.data()),
                                           t.offsets.data(), F)
                        .with_boxes(t.boxes.data());
  auto const pairs = twobody::self_frame_pairs(frames);
  auto const dist  = twobody::make_periodic_euclidean(1.f, 1.f, 1.f);  // each frame's box replaces this one

  auto const exec = cl.gpu ? twobody::exec::gpu : twobody::exec::cpu;
  (void)twobody::histogram_per_frame(exec, twobody::self_frame_pairs(twobody::make_frames(frames.points, t.offsets.data(), 1)
                                                                       .with_boxes(t.boxes.data())),
                                     dist, bins);  // warm-up (start-up costs), not timed
  auto const t0 = std::chrono::steady_clock::now();
  auto const per  = twobody::histogram_per_frame(exec, pairs, dist, bins);
  double const s  = example::seconds_since(t0);
  unsigned long long total = 0;
  for (auto const& h : per) { total += h.pairs; }
  std::printf("%s: %lld frame histograms in one call, %.3f ms (%.3g pairs/s, data on the host)\n", cl.gpu ? "GPU" : "CPU",
              static_cast<long long>(F), s * 1e3, double(total) / s);

  std::vector<double> const boxes(t.boxes.begin(), t.boxes.end());
  std::vector<double> const g = twobody::radial_distribution_over_frames(per, bins, boxes, 3, t.sizes);
  std::printf("%8s  %8s\n", "r", "g(r)");
  int peak = 0;
  for (int k = 0; k < bins.size(); ++k) {
    if (g[k] > g[peak]) { peak = k; }
    if (k % 4 == 0) { std::printf("%8.3f  %8.4f\n", 0.5 * (bins.edge(k) + bins.edge(k + 1)), g[k]); }
  }
  std::printf("first peak at r = %.3f (lattice constant %.2f)\n", 0.5 * (bins.edge(peak) + bins.edge(peak + 1)), spacing);

  if (cl.check) {
    auto const ref = twobody::histogram_per_frame(twobody::exec::cpu, pairs, dist, bins);
    for (twobody::size_type f = 0; f < F; ++f) {
      if (ref[f].counts != per[f].counts || ref[f].outside != per[f].outside) {
        std::fprintf(stderr, "check FAILED: frame %lld differs from the CPU backend\n", static_cast<long long>(f));
        return 3;
      }
    }
    std::printf("check passed: %lld frame histograms equal the CPU backend's\n", static_cast<long long>(F));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv)
{
  example::command_spec spec{"g(r) over the 200 frames of an XYZ trajectory it writes and reads back (N atoms per frame)",
                             4096, 512};
  spec.takes_check = true;
  return example::run_example(argc, argv, spec, run);
}
