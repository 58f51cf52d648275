// Bin maps: edges, the outside slot, NaN, bad construction.
#include "common.cuh"

#include <cmath>
#include <limits>

using twobody::uniform_bins;

TEST(UniformBins, EdgesBelongToTheUpperBin)
{
  uniform_bins<float> b(0.f, 8.f, 4);  // width 2, exact
  EXPECT_EQ(b.size(), 4);
  EXPECT_EQ(b(0.f), 0);
  EXPECT_EQ(b(1.999f), 0);
  EXPECT_EQ(b(2.f), 1);
  EXPECT_EQ(b(7.999f), 3);
  EXPECT_EQ(b.edge(2), 4.f);
}

TEST(UniformBins, OutsideValuesGoToTheLastSlot)
{
  uniform_bins<double> b(-1.0, 1.0, 3);
  EXPECT_EQ(b(-1.0000001), 3);
  EXPECT_EQ(b(1.0), 3);  // hi is excluded
  EXPECT_EQ(b(1e300), 3);
  EXPECT_EQ(b(-std::numeric_limits<double>::infinity()), 3);
  EXPECT_EQ(b(std::numeric_limits<double>::quiet_NaN()), 3);
  EXPECT_EQ(b(-1.0), 0);
  EXPECT_EQ(b(0.0), 1);
}

TEST(UniformBins, OneBin)
{
  uniform_bins<float> b(0.5f, 1.5f, 1);
  EXPECT_EQ(b(0.49f), 1);
  EXPECT_EQ(b(0.5f), 0);
  EXPECT_EQ(b(1.49f), 0);
  EXPECT_EQ(b(1.5f), 1);
}

TEST(UniformBins, RejectsBadRanges)
{
  EXPECT_THROW(uniform_bins<float>(0.f, 1.f, 0), twobody::error);
  EXPECT_THROW(uniform_bins<float>(0.f, 1.f, -3), twobody::error);
  EXPECT_THROW(uniform_bins<float>(1.f, 1.f, 4), twobody::error);
  EXPECT_THROW(uniform_bins<float>(2.f, 1.f, 4), twobody::error);
  EXPECT_THROW(uniform_bins<float>(std::nanf(""), 1.f, 4), twobody::error);
  EXPECT_THROW(uniform_bins<float>(0.f, std::numeric_limits<float>::infinity(), 4), twobody::error);
  EXPECT_THROW(uniform_bins<float>(0.f, 1e-44f, 1 << 20), twobody::error);  // width underflows
}

TEST(UniformBins, ManyBinsStayExactForDyadicWidths)
{
  uniform_bins<float> b(-0.125f, -0.125f + 0.25f * 60000.f, 60000);
  for (int m : {0, 1, 2, 100, 11907, 14999}) { EXPECT_EQ(b(static_cast<float>(m)), 4 * m) << m; }
  EXPECT_EQ(b(15000.f), 60000);
}

TEST(UniformBins, FloatBinIsTheFloorOfTheExactProduct)
{
  // 0.1f * 30 is 3.0000001192... exactly; rounded to float it would be 3: both give bin 3.
  // 0.7f * 10 is 6.9999998808... exactly (bin 6), though it rounds to 7.0f in float.
  uniform_bins<float> b(0.f, 1.f, 10);  // inv_width 10
  EXPECT_EQ(b(0.7f), 6);
  EXPECT_EQ(b(0.3f), 3);  // 0.3f * 10 = 3.0000001192...
  EXPECT_EQ(b(-0.f), 0);
  EXPECT_EQ(b(-1e-30f), 10);
  EXPECT_EQ(b(std::numeric_limits<float>::infinity()), 10);
  EXPECT_EQ(b(std::numeric_limits<float>::quiet_NaN()), 10);
  EXPECT_EQ(b(std::nextafter(1.f, 0.f)), 9);
  EXPECT_THROW(uniform_bins<float>(0.f, 1.f, (1 << 22) + 1), twobody::error);
  EXPECT_NO_THROW(uniform_bins<float>(0.f, 1.f, 1 << 22));
}

TEST(DistanceBins, BinsTheSquareRootOfSquaredDistances)
{
  twobody::distance_bins<float> b(10.f, 5);  // width 2 in distance
  EXPECT_EQ(b.size(), 5);
  EXPECT_EQ(b(0.f), 0);
  EXPECT_EQ(b(3.99f), 0);   // r < 2
  EXPECT_EQ(b(4.f), 1);     // r = 2: edges belong to the upper bin
  EXPECT_EQ(b(35.f), 2);    // r = 5.92
  EXPECT_EQ(b(99.99f), 4);  // r < 10
  EXPECT_EQ(b(100.f), 5);   // r = 10: outside
  EXPECT_EQ(b(-1.f), 5);    // not a squared distance
  EXPECT_EQ(b(std::numeric_limits<float>::quiet_NaN()), 5);
  EXPECT_EQ(b(std::numeric_limits<float>::infinity()), 5);
  EXPECT_EQ(b.edge(3), 6.f);
  EXPECT_THROW(twobody::distance_bins<float>(0.f, 4), twobody::error);
  EXPECT_THROW(twobody::distance_bins<float>(-1.f, 4), twobody::error);
  EXPECT_THROW(twobody::distance_bins<float>(std::nanf(""), 4), twobody::error);
  EXPECT_THROW(twobody::distance_bins<double>(1.0, 0), twobody::error);
  twobody::distance_bins<double> d(1.0, 4);
  EXPECT_EQ(d(0.0625), 1);  // r = 0.25
}

TEST(LogBins, EdgesAndOutside)
{
  twobody::log_bins<double> b(1.0, 1000.0, 3);  // decades
  EXPECT_EQ(b(1.0), 0);
  EXPECT_EQ(b(9.99), 0);
  EXPECT_EQ(b(10.01), 1);
  EXPECT_EQ(b(999.0), 2);
  EXPECT_EQ(b(1000.5), 3);
  EXPECT_EQ(b(0.99), 3);
  EXPECT_EQ(b(0.0), 3);
  EXPECT_EQ(b(-5.0), 3);
  EXPECT_EQ(b(std::nan("")), 3);
  EXPECT_NEAR(b.edge(1), 10.0, 1e-12);
  EXPECT_THROW(twobody::log_bins<double>(0.0, 10.0, 3), twobody::error);
  EXPECT_THROW(twobody::log_bins<double>(-1.0, 10.0, 3), twobody::error);
  EXPECT_THROW(twobody::log_bins<double>(1.0, 10.0, 0), twobody::error);
}

TEST(Bins2d, RowMajorSlotsAndOneOutsideSlot)
{
  auto b = twobody::make_bins_2d(uniform_bins<float>(0.f, 4.f, 4), uniform_bins<float>(0.f, 2.f, 2));
  EXPECT_EQ(b.size(), 8);
  EXPECT_EQ(b(twobody::point<float, 2>{{0.5f, 0.5f}}), 0);
  EXPECT_EQ(b(twobody::point<float, 2>{{3.5f, 0.5f}}), 3);
  EXPECT_EQ(b(twobody::point<float, 2>{{0.5f, 1.5f}}), 4);
  EXPECT_EQ(b(twobody::point<float, 2>{{3.5f, 1.5f}}), 7);
  EXPECT_EQ(b(twobody::point<float, 2>{{4.5f, 1.5f}}), 8);
  EXPECT_EQ(b(twobody::point<float, 2>{{0.5f, -1.f}}), 8);
  EXPECT_EQ(b(twobody::point<float, 2>{{std::nanf(""), 0.5f}}), 8);
}
