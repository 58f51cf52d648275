// Register-output reductions (count, sum, min, max, a user monoid, non-symmetric functors,
// weights) for every input policy, against the CPU backend on double copies of the data.
#include "common.cuh"

using namespace twobody;

namespace {

/// A user monoid: number of pairs and the sum of their squared distances at once.
struct count_and_sum {
  unsigned long long n;
  double s;
};
struct combine_count_and_sum {
  __host__ __device__ count_and_sum operator()(count_and_sum a, count_and_sum b) const { return {a.n + b.n, a.s + b.s}; }
};
struct to_count_and_sum {
  template <class T>
  __host__ __device__ count_and_sum operator()(point<T, 3> const& a, point<T, 3> const& b) const
  {
    return {1ull, static_cast<double>(squared_euclidean{}(a, b))};
  }
};

/// Not symmetric: f(a, b) != f(b, a), so ordered mode must visit both orders.
struct lopsided {
  template <class T>
  __host__ __device__ T operator()(point<T, 3> const& a, point<T, 3> const& b) const
  {
    return T(3) * a.x[0] - b.x[1];
  }
};

/// A signed integer per pair, -1, 0 or 1, with both signs common: integer sums fold by atomic
/// adds in one cooperative kernel (registers.cuh), whose two's-complement words must give the
/// signed sums.
struct signed_step {
  template <class T>
  __host__ __device__ int operator()(point<T, 3> const& a, point<T, 3> const& b) const
  {
    return (a.x[0] > b.x[1]) - (a.x[0] < b.x[1]);
  }
};

template <class Input, class T, class F, class Op, class R>
R gpu_reduce(pair_set<points<T, 3>> const& pairs, F f, Op op, R identity)
{
  std::size_t bytes = 0;
  auto result       = tbt::poisoned<R>(1);
  reduce_pairs<Input>(nullptr, bytes, pairs, f, op, identity, thrust::raw_pointer_cast(result.data()));
  thrust::device_vector<unsigned char> temp(bytes);
  reduce_pairs<Input>(thrust::raw_pointer_cast(temp.data()), bytes, pairs, f, op, identity,
                      thrust::raw_pointer_cast(result.data()));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  R h;
  cudaMemcpy(&h, thrust::raw_pointer_cast(result.data()), sizeof(R), cudaMemcpyDeviceToHost);
  return h;
}

template <class Input, class P>
auto gpu_count(pair_set<P> const& pairs, float r)
{
  using C = pair_count_t<P>;
  std::size_t bytes = 0;
  auto result       = tbt::poisoned<C>(1);
  auto pred         = within_radius(static_cast<typename P::value_type>(r));
  count_pairs<Input>(nullptr, bytes, pairs, pred, thrust::raw_pointer_cast(result.data()));
  EXPECT_GE(bytes, 1u);  // never 0: the second call's d_temp must not read as a size query
  thrust::device_vector<unsigned char> temp(bytes);
  count_pairs<Input>(thrust::raw_pointer_cast(temp.data()), bytes, pairs, pred, thrust::raw_pointer_cast(result.data()));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  C h;
  cudaMemcpy(&h, thrust::raw_pointer_cast(result.data()), sizeof(C), cudaMemcpyDeviceToHost);
  return h;
}

/// The one-call count into device memory (no scratch of the caller's; none at all where one
/// cooperative kernel adds the blocks' counts into the result).
template <class Input, class P>
auto gpu_count_one_call(pair_set<P> const& pairs, float r)
{
  using C     = pair_count_t<P>;
  auto result = tbt::poisoned<C>(1);
  count_pairs<Input>(pairs, within_radius(static_cast<typename P::value_type>(r)), thrust::raw_pointer_cast(result.data()));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  C h;
  cudaMemcpy(&h, thrust::raw_pointer_cast(result.data()), sizeof(C), cudaMemcpyDeviceToHost);
  return h;
}

}  // namespace

template <class C>
class GpuReduce : public ::testing::Test {};

TYPED_TEST_SUITE(GpuReduce, tbt::policy_configs);

TYPED_TEST(GpuReduce, MatchesCpuBackend)
{
  TBT_REQUIRE_GPU();
  using Input = typename TypeParam::input;
  using T     = typename TypeParam::value;
  for (pair_mode m : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
    std::vector<std::pair<std::int64_t, std::int64_t>> sizes{{0, 0}, {1, 1}, {2, 2}, {31, 17}, {33, 64}, {1000, 333}};
    if (Input::tiled && !tbt::quick()) { sizes.push_back({100003, m == pair_mode::self ? 100003 : 1000}); }
    for (auto [na, nb] : sizes) {
      if (m != pair_mode::cross) { nb = na; }
      if (m == pair_mode::ordered && na > 50000) { continue; }
      tbt::host_points<T, 3> ha(na, 300 + unsigned(na)), hb(nb, 400 + unsigned(nb));
      auto hda = ha.template as<double>();
      auto hdb = hb.template as<double>();
      tbt::device_points<T, 3> a(ha), b(hb);
      auto const pairs  = tbt::make_pairs(m, a.view(), b.view());
      auto const hpairs = tbt::make_pairs(m, hda.view(), hdb.view());
      std::string const what = std::string(tbt::mode_name(m)) + " na=" + std::to_string(na) + " nb=" + std::to_string(nb);

      auto const count_ref = cpu::count_pairs(hpairs, within_radius(10.0));
      EXPECT_EQ(gpu_count<Input>(pairs, 10.f), count_ref) << what;
      EXPECT_EQ(gpu_count_one_call<Input>(pairs, 10.f), count_ref) << what;
      EXPECT_EQ((gpu_reduce<Input>(pairs, signed_step{}, cuda::std::plus<long long>{}, 0ll)),
                cpu::reduce_pairs(hpairs, signed_step{}, cuda::std::plus<long long>{}, 0ll))
        << what;
      if (pairs.count() < (1ull << 31)) {  // no signed overflow in the reference
        EXPECT_EQ((gpu_reduce<Input>(pairs, signed_step{}, cuda::std::plus<int>{}, 0)),
                  cpu::reduce_pairs(hpairs, signed_step{}, cuda::std::plus<int>{}, 0))
          << what;
      }
      EXPECT_EQ((gpu_reduce<Input>(pairs, squared_euclidean{}, cuda::std::plus<double>{}, 0.0)),
                cpu::reduce_pairs(hpairs, squared_euclidean{}, cuda::std::plus<double>{}, 0.0))
        << what;
      // Minimum and maximum of the Euclidean distance: correctly rounded sqrt on both sides.
      T const big = T(1e30);
      EXPECT_EQ(static_cast<double>(gpu_reduce<Input>(pairs, euclidean{}, cuda::minimum<T>{}, big)),
                static_cast<double>(static_cast<T>(cpu::reduce_pairs(hpairs, euclidean{}, cuda::minimum<double>{}, 1e30))))
        << what;
      EXPECT_EQ(static_cast<double>(gpu_reduce<Input>(pairs, euclidean{}, cuda::maximum<T>{}, T(-1))),
                static_cast<double>(static_cast<T>(cpu::reduce_pairs(hpairs, euclidean{}, cuda::maximum<double>{}, -1.0))))
        << what;
      auto const cs = gpu_reduce<Input>(pairs, to_count_and_sum{}, combine_count_and_sum{}, count_and_sum{0, 0.0});
      auto const cs_ref = cpu::reduce_pairs(hpairs, to_count_and_sum{}, combine_count_and_sum{}, count_and_sum{0, 0.0});
      EXPECT_EQ(cs.n, pairs.count()) << what;
      EXPECT_EQ(cs.n, cs_ref.n) << what;
      EXPECT_EQ(cs.s, cs_ref.s) << what;
      EXPECT_EQ((gpu_reduce<Input>(pairs, lopsided{}, cuda::std::plus<double>{}, 0.0)),
                cpu::reduce_pairs(hpairs, lopsided{}, cuda::std::plus<double>{}, 0.0))
        << what;
    }
  }
}

TYPED_TEST(GpuReduce, WeightedCount)
{
  TBT_REQUIRE_GPU();
  using Input = typename TypeParam::input;
  using T     = typename TypeParam::value;
  for (pair_mode m : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
    tbt::host_points<T, 3> ha(1234, 51), hb(555, 52);
    auto hda = ha.template as<double>();
    auto hdb = hb.template as<double>();
    tbt::device_points<T, 3> a(ha), b(hb);
    auto const pairs  = tbt::make_pairs(m, a.weighted_view(), b.weighted_view());
    double const got  = gpu_count<Input>(pairs, 12.f);
    double const want = cpu::count_pairs(tbt::make_pairs(m, hda.weighted_view(), hdb.weighted_view()), within_radius(12.0));
    EXPECT_EQ(got, want) << tbt::mode_name(m);
    EXPECT_EQ(gpu_count_one_call<Input>(pairs, 12.f), want) << tbt::mode_name(m);  // a fold of partials
    EXPECT_GT(want, 0.0);
  }
}
