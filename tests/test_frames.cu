// Batched frames on the CPU backend (frames.cuh, cpu/frames.cuh): per-frame and summed
// histograms and counts against an independent reference, self and cross species, boxes that
// change from frame to frame, empty and one-point frames, chunks and progress, and bad input.
#include "common.cuh"
#include "frames_data.cuh"

#include <twobody/frames.cuh>

using namespace twobody;

namespace {

using pts   = points<float, 3>;
using pbox  = periodic_squared_euclidean<float, 3>;
using within_sq = within<pbox, float>;

uniform_bins<float> const bins(0.5f, 80.5f, 40);  // squared distances; edges at half-integers

std::vector<int> const sizes{0, 1, 2, 37, 128, 129, 300, 5, 0, 64, 1, 250};

}  // namespace

TEST(Frames, PerFrameHistogramsMatchTheReference)
{
  tbt::trajectory const t = tbt::make_trajectory(sizes, 7);
  auto const per          = histogram_per_frame(exec::cpu, self_frame_pairs(t.frame_set()), pbox{}, bins);
  auto const ref          = tbt::reference_histograms(t, nullptr, 0.5, 80.5, 40);
  ASSERT_EQ(per.size(), sizes.size());
  for (std::size_t f = 0; f < sizes.size(); ++f) {
    std::vector<unsigned long long> got = per[f].counts;
    got.push_back(per[f].outside);
    EXPECT_EQ(got, ref[f]) << "frame " << f;
    unsigned long long const n = static_cast<unsigned long long>(sizes[f]);
    EXPECT_EQ(per[f].pairs, n < 2 ? 0 : n * (n - 1) / 2);
  }
  // Summed: the frames' sum, and the same through the automatic form.
  auto const sum = histogram_frames(exec::cpu, self_frame_pairs(t.frame_set()), pbox{}, bins);
  for (int k = 0; k < bins.size(); ++k) {
    unsigned long long s = 0;
    for (auto const& r : ref) { s += r[k]; }
    EXPECT_EQ(sum.counts[k], s) << k;
  }
  unsigned long long nonzero = 0;
  for (auto c : sum.counts) { nonzero += c; }
  EXPECT_GT(nonzero, 1000u);  // the data put pairs in the bins
}

TEST(Frames, EachFrameUsesItsOwnBox)
{
  // Two frames with the same two points, x = 0 and x = 15: in a box of 18 the image is 3 away,
  // in a box of 30 it is 15.
  std::vector<float> x{0, 15, 0, 15}, y(4, 0.f), z(4, 0.f);
  std::vector<size_type> off{0, 2, 4};
  std::vector<float> boxes{18, 18, 18, 30, 30, 30};
  auto frames = make_frames(make_points(4, x.data(), y.data(), z.data()), off.data(), 2).with_boxes(boxes.data());
  uniform_bins<float> const b(0.f, 81.f, 81);  // reach 9: half the smaller box
  auto const per = histogram_per_frame(exec::cpu, self_frame_pairs(frames), pbox{}, b);
  EXPECT_EQ(per[0].counts[9], 1u);  // 3^2
  EXPECT_EQ(per[1].outside, 1u);    // 15^2, past the bins (in a box of 18 it would be 3^2 again)
  EXPECT_EQ(per[1].counts[9], 0u);
  auto const counts = count_per_frame(exec::cpu, self_frame_pairs(frames), within_sq{pbox{}, 10.f});
  EXPECT_EQ(counts, (std::vector<unsigned long long>{1, 0}));
}

TEST(Frames, CrossSpeciesAndCounts)
{
  tbt::trajectory const t = tbt::make_trajectory(sizes, 11);
  tbt::trajectory a, b;
  tbt::split_species(t, a, b);
  auto const pairs = cross_frame_pairs(a.frame_set(), b.frame_set());
  auto const per   = histogram_per_frame(exec::cpu, pairs, pbox{}, bins);
  auto const ref   = tbt::reference_histograms(a, &b, 0.5, 80.5, 40);
  for (std::size_t f = 0; f < sizes.size(); ++f) {
    std::vector<unsigned long long> got = per[f].counts;
    got.push_back(per[f].outside);
    EXPECT_EQ(got, ref[f]) << "frame " << f;
  }
  // Counts within a squared distance of 30.5 (a within{} of the periodic metric takes the boxes).
  auto const counts = count_per_frame(exec::cpu, self_frame_pairs(t.frame_set()), within_sq{pbox{}, 30.5f});
  auto const cref   = tbt::reference_histograms(t, nullptr, -0.5, 30.5, 1);
  unsigned long long total = 0;
  for (std::size_t f = 0; f < sizes.size(); ++f) {
    EXPECT_EQ(counts[f], cref[f][0]) << f;
    total += cref[f][0];
  }
  EXPECT_GT(total, 100u);
  EXPECT_EQ(count_frames(exec::cpu, self_frame_pairs(t.frame_set()), within_sq{pbox{}, 30.5f}), total);
}

TEST(Frames, EmptyBatches)
{
  std::vector<size_type> off{0};
  auto frames = make_frames(pts{}, off.data(), 0);
  EXPECT_TRUE(histogram_per_frame(exec::cpu, self_frame_pairs(frames), pbox{{20, 20, 20}}, bins).empty());
  auto const sum = histogram_frames(exec::cpu, self_frame_pairs(frames), pbox{{20, 20, 20}}, bins);
  EXPECT_EQ(sum.pairs, 0u);
  EXPECT_EQ(count_frames(exec::cpu, self_frame_pairs(frames), within_sq{pbox{{20, 20, 20}}, 4.f}), 0u);
}

TEST(Frames, BadInputIsRefused)
{
  tbt::trajectory t = tbt::make_trajectory({10, 20, 30}, 3);
  auto const ok     = t.frame_set();
  auto expect_error = [](auto&& call, char const* needle) {
    try {
      call();
      ADD_FAILURE() << "no error; expected one naming '" << needle << "'";
    } catch (twobody::error const& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  // Offsets that decrease, or end past the points.
  std::vector<size_type> down{0, 20, 10, 60};
  auto f1 = ok;
  f1.offsets = down.data();
  expect_error([&] { histogram_frames(exec::cpu, self_frame_pairs(f1), pbox{}, bins); }, "decrease");
  std::vector<size_type> past{0, 10, 30, 61};
  f1.offsets = past.data();
  expect_error([&] { histogram_frames(exec::cpu, self_frame_pairs(f1), pbox{}, bins); }, "past the");
  // A box shorter than twice the bins' reach (sqrt(80.5) = 8.97): the minimum image is ambiguous.
  std::vector<float> small = t.boxes;
  small[4]                 = 17.f;
  expect_error([&] { histogram_frames(exec::cpu, self_frame_pairs(ok.with_boxes(small.data())), pbox{}, bins); },
               "twice the reach");
  std::vector<float> zero = t.boxes;
  zero[2]                 = 0.f;
  expect_error([&] { count_frames(exec::cpu, self_frame_pairs(ok.with_boxes(zero.data())), within_sq{pbox{}, 4.f}); },
               "finite and > 0");
  // A count within r of a box shorter than 2 r: the minimum image is ambiguous there too.
  std::vector<float> short_box = t.boxes;
  short_box[4]                 = 9.f;
  expect_error([&] { count_per_frame(exec::cpu, self_frame_pairs(ok.with_boxes(short_box.data())), within_sq{pbox{}, 25.f}); },
               "twice the reach");
  EXPECT_NO_THROW(count_per_frame(exec::cpu, self_frame_pairs(ok.with_boxes(short_box.data())), within_sq{pbox{}, 20.25f}));
  // Boxes with a functor that has none.
  expect_error([&] { histogram_frames(exec::cpu, self_frame_pairs(ok), squared_euclidean{}, bins); }, "no periodic box");
  // Negative frame counts, mismatched sides, null offsets.
  auto f2   = ok;
  f2.frames = -1;
  expect_error([&] { histogram_frames(exec::cpu, self_frame_pairs(f2), pbox{}, bins); }, "negative");
  auto f3 = ok;
  f3.frames = 2;
  expect_error([&] { histogram_frames(exec::cpu, cross_frame_pairs(ok, f3), pbox{}, bins); }, "same number of frames");
  auto f4    = ok;
  f4.offsets = nullptr;
  expect_error([&] { histogram_frames(exec::cpu, self_frame_pairs(f4), pbox{}, bins); }, "null");
}
