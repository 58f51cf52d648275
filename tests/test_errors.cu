// Argument checking of the device API. These paths throw before touching a GPU, so they
// run everywhere; without a GPU, calls that reach the device fail with twobody::error too.
#include "common.cuh"

namespace {
float some_floats[8] = {0, 1, 2, 3, 4, 5, 6, 7};
}

TEST(Errors, HistogramArguments)
{
  auto p = twobody::make_points(8, some_floats, some_floats, some_floats);
  twobody::uniform_bins<float> bins(0.f, 10.f, 4);
  unsigned long long* null_counts = nullptr;
  EXPECT_THROW(twobody::histogram<twobody::default_input>(twobody::self_pairs(p), twobody::euclidean{}, bins,
                                                          null_counts, twobody::output::warp_privatized{8}),
               twobody::error);
  unsigned long long fake[5];
  EXPECT_THROW(twobody::histogram<twobody::default_input>(twobody::self_pairs(p), twobody::euclidean{}, bins, fake,
                                                          twobody::output::warp_privatized{0}),
               twobody::error);
  EXPECT_THROW(twobody::histogram<twobody::default_input>(twobody::self_pairs(p), twobody::euclidean{}, bins, fake,
                                                          twobody::output::warp_privatized{33}),
               twobody::error);
  auto neg = p;
  neg.size = -5;
  EXPECT_THROW(twobody::histogram(twobody::self_pairs(neg), twobody::euclidean{}, bins, fake), twobody::error);
  auto nul = p;
  nul.coords[1] = nullptr;
  EXPECT_THROW(twobody::histogram(twobody::self_pairs(nul), twobody::euclidean{}, bins, fake), twobody::error);
  twobody::pair_set<decltype(p)> mismatched{twobody::pair_mode::self, p, twobody::make_points(3, some_floats, some_floats, some_floats)};
  EXPECT_THROW(twobody::histogram(mismatched, twobody::euclidean{}, bins, fake), twobody::error);
  auto huge = p;
  huge.size = 1ll << 32;
  EXPECT_THROW(twobody::histogram(twobody::self_pairs(huge), twobody::euclidean{}, bins, fake), twobody::error);
}

TEST(Errors, MessagesSayWhatToChange)
{
  auto p = twobody::make_points(8, some_floats, some_floats);
  p.coords[0] = nullptr;
  try {
    (void)twobody::count_pairs(twobody::self_pairs(p), twobody::within_radius(1.f));
    FAIL() << "expected twobody::error";
  } catch (twobody::error const& e) {
    EXPECT_NE(std::string(e.what()).find("coordinate array of point set A is null"), std::string::npos) << e.what();
  }
}

// A bad argument is a twobody::invalid_argument (a twobody::error); what() ends with the place
// of the check in brackets, which message() leaves out and where() gives alone.
TEST(Errors, ArgumentErrorsKeepMessageAndPlaceApart)
{
  auto p = twobody::make_points(8, some_floats, some_floats);
  p.coords[0] = nullptr;
  try {
    (void)twobody::count_pairs(twobody::exec::cpu, twobody::self_pairs(p), twobody::within_radius(1.f));
    FAIL() << "expected twobody::invalid_argument";
  } catch (twobody::invalid_argument const& e) {
    std::string const what(e.what()), where(e.where());
    EXPECT_EQ(e.message().find('['), std::string::npos) << e.message();
    EXPECT_NE(where.find(".cuh:"), std::string::npos) << where;
    EXPECT_EQ(what, e.message() + " [" + where + "]");
  }
  twobody::error const plain("twobody: a message");
  EXPECT_EQ(plain.message(), "twobody: a message");
  EXPECT_TRUE(plain.where().empty());
}

TEST(Errors, PerPointSumsNeedPartners)
{
  auto p = twobody::make_points(8, some_floats, some_floats, some_floats);
  float out[8];
  // Self pairs visit each pair once: no per-point meaning, rejected before any device work.
  EXPECT_THROW(twobody::sum_per_point(twobody::self_pairs(p), twobody::gaussian_kernel(1.f), out), twobody::error);
  float* null_out = nullptr;
  EXPECT_THROW(twobody::sum_per_point(twobody::ordered_pairs(p), twobody::gaussian_kernel(1.f), null_out), twobody::error);
  EXPECT_THROW(twobody::gaussian_kernel(0.f), twobody::error);
  EXPECT_THROW(twobody::gaussian_kernel(std::nanf("")), twobody::error);
}

TEST(Errors, WeightedSetsNeedWeights)
{
  auto p = twobody::make_weighted_points<float>(8, nullptr, some_floats, some_floats);
  EXPECT_THROW((void)twobody::count_pairs(twobody::self_pairs(p), twobody::within_radius(1.f)), twobody::error);
}

TEST(Errors, NoGpuIsATypedErrorNotACrash)
{
  if (tbt::gpu_available()) { GTEST_SKIP() << "a GPU is present: this test checks the no-GPU path"; }
  auto p = twobody::make_points(8, some_floats, some_floats, some_floats);
  // Asking for the GPU without one is a twobody::error ...
  EXPECT_THROW((void)twobody::count_pairs(twobody::exec::gpu, twobody::self_pairs(p), twobody::within_radius(1.f)),
               twobody::error);
  EXPECT_THROW((void)twobody::histogram(twobody::exec::gpu, twobody::self_pairs(p), twobody::euclidean{},
                                        twobody::uniform_bins<float>(0.f, 1.f, 2)),
               twobody::error);
  // ... and the forms without a policy run on the CPU backend instead (exec::automatic).
  EXPECT_EQ(twobody::count_pairs(twobody::self_pairs(p), twobody::within_radius(1.5f)),
            twobody::cpu::count_pairs(twobody::self_pairs(p), twobody::within_radius(1.5f)));
}
