// Ready-made functors on the host (the same code runs on the device).
#include "common.cuh"

#include <cmath>

using twobody::point;

TEST(Functors, EuclideanAndSquared)
{
  point<float, 3> a{{1.f, 2.f, 3.f}}, b{{4.f, 6.f, 3.f}};
  EXPECT_EQ(twobody::squared_euclidean{}(a, b), 25.f);
  EXPECT_EQ(twobody::euclidean{}(a, b), 5.f);
  point<double, 1> c{{-2.0}}, d{{5.0}};
  EXPECT_EQ(twobody::euclidean{}(c, d), 7.0);
  point<double, 5> e{{1, 1, 1, 1, 1}}, z{{0, 0, 0, 0, 0}};
  EXPECT_EQ(twobody::squared_euclidean{}(e, z), 5.0);
}

TEST(Functors, PeriodicMinimumImage)
{
  auto f = twobody::make_periodic_euclidean(10.f, 10.f, 10.f);
  point<float, 3> a{{0.5f, 0.f, 9.f}}, b{{9.5f, 0.f, 1.f}};
  // dx = 9 -> 1 across the boundary, dz = 8 -> 2.
  EXPECT_FLOAT_EQ(f(a, b), std::sqrt(1.f + 4.f));
  auto g = twobody::make_periodic_squared_euclidean(10.0, 4.0);
  point<double, 2> c{{1.0, 0.0}}, d{{6.0, 3.0}};
  EXPECT_EQ(g(c, d), 25.0 + 1.0);  // dx = 5 (half box, either image), dy = 3 -> 1
  EXPECT_THROW(twobody::make_periodic_euclidean(10.f, 0.f, 1.f), twobody::error);
  EXPECT_THROW(twobody::make_periodic_euclidean(std::nanf(""), 1.f, 1.f), twobody::error);
}

TEST(Functors, AngularSeparation)
{
  point<double, 3> x{{1, 0, 0}}, y{{0, 1, 0}}, mx{{-1, 0, 0}};
  twobody::angular_separation ang;
  EXPECT_NEAR(ang(x, y), M_PI / 2, 1e-15);
  EXPECT_NEAR(ang(x, mx), M_PI, 1e-15);
  EXPECT_EQ(ang(x, x), 0.0);
  double const t = 1e-9;  // tiny angles stay accurate with atan2
  point<double, 3> u{{std::cos(t), std::sin(t), 0}};
  EXPECT_NEAR(ang(x, u), t, 1e-20);
}

TEST(Functors, DotProductAndWithinRadius)
{
  point<float, 3> a{{1.f, 2.f, 3.f}}, b{{4.f, -5.f, 6.f}};
  EXPECT_EQ(twobody::dot_product{}(a, b), 4.f - 10.f + 18.f);
  auto w = twobody::within_radius(5.f);
  point<float, 3> o{{0.f, 0.f, 0.f}}, p{{3.f, 4.f, 0.f}}, q{{3.f, 3.9f, 0.f}};
  EXPECT_FALSE(w(o, p));  // |p| = 5 is not < 5
  EXPECT_TRUE(w(o, q));
  EXPECT_THROW(twobody::within_radius(-1.f), twobody::error);
  EXPECT_THROW(twobody::within_radius(std::nanf("")), twobody::error);
}

TEST(Functors, RpPiSeparation)
{
  point<float, 3> a{{0.f, 0.f, 10.f}}, b{{3.f, 4.f, 2.f}};
  auto v = twobody::rp_pi_separation{}(a, b);
  EXPECT_EQ(v[0], 5.f);
  EXPECT_EQ(v[1], 8.f);
}
