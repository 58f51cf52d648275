// GPU tests of band and equi-joins: the sorted path (exact and filtered) against plain loops
// on the issue's key families, self and cross, host and device results, forced rounds and
// chunks, skewed keys, counting, and the nested loop on the same calls.
#include "band_join_data.cuh"
#include "common.cuh"

#include <twobody/band_join.cuh>
#include <twobody/host/band_join.cuh>

#include <thrust/device_vector.h>

#include <vector>

namespace {

twobody::join_options method(twobody::join_method m)
{
  twobody::join_options o;
  o.method = m;
  return o;
}

/// The table's columns in device memory, for as long as the object lives.
template <class T>
struct device_table {
  thrust::device_vector<T> key, payload;
  explicit device_table(tbt::key_table<T> const& t) : key(t.key), payload(t.payload) {}
  twobody::table<T, 2> view() const
  {
    return twobody::make_points<T>(static_cast<twobody::size_type>(key.size()), thrust::raw_pointer_cast(key.data()),
                                   thrust::raw_pointer_cast(payload.data()));
  }
};

template <class T>
class GpuBandJoin : public ::testing::Test {};
using key_types = ::testing::Types<int, long long, float, double>;
TYPED_TEST_SUITE(GpuBandJoin, key_types);

}  // namespace

TYPED_TEST(GpuBandJoin, SortedMatchesPlainLoopsOnEveryFamily)
{
  TBT_REQUIRE_GPU();
  using T        = TypeParam;
  auto const any = [](T, T) { return true; };
  auto const sorted = method(twobody::join_method::sorted);
  for (std::string const family : {"uniform", "runs", "one", "none", "extreme"}) {
    for (std::size_t const n : {std::size_t(0), std::size_t(1), std::size_t(700)}) {
      auto const a = tbt::make_keys<T>(family, n, 2);
      auto const b = tbt::make_keys<T>(family, n + n / 3, 5);
      device_table<T> const da(a), db(b);
      for (auto const& [lo, hi] : std::vector<std::pair<T, T>>{{T(0), T(0)},
                                                               {T(-5), T(5)},
                                                               {T(-2), T(7)},
                                                               {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max()}}) {
        SCOPED_TRACE(family + " n=" + std::to_string(n) + " band [" + std::to_string(double(lo)) + ", " +
                     std::to_string(double(hi)) + "]");
        auto const cross = twobody::band_join(twobody::exec::gpu, twobody::cross_pairs(da.view(), db.view()), 0, lo, hi, sorted);
        auto const ref_cross = tbt::brute_band(a, &b, lo, hi, any);
        EXPECT_EQ(tbt::sorted_pairs(cross.to_host()), ref_cross);
        EXPECT_EQ(twobody::band_join_count(twobody::exec::gpu, twobody::cross_pairs(da.view(), db.view()), 0, lo, hi, sorted),
                  ref_cross.size());
        // self mode: symmetric bands take the exact path, asymmetric ones the filtered one
        auto const self     = twobody::band_join(twobody::exec::gpu, twobody::self_pairs(da.view()), 0, lo, hi, sorted);
        auto const ref_self = tbt::brute_band<T>(a, nullptr, lo, hi, any);
        EXPECT_EQ(tbt::sorted_pairs(self.to_host()), ref_self);
        EXPECT_EQ(twobody::band_join_count(twobody::exec::gpu, twobody::self_pairs(da.view()), 0, lo, hi, sorted),
                  ref_self.size());
        // a further predicate on the rows (filtered path), from host arrays
        auto const multi = twobody::band_join(twobody::exec::gpu, twobody::cross_pairs(a.view(), b.view()), 0, lo, hi,
                                              tbt::payload_differs{}, sorted);
        EXPECT_EQ(tbt::sorted_pairs(multi.to_host()), tbt::brute_band(a, &b, lo, hi, [](T x, T y) { return x != y; }));
      }
    }
  }
}

TEST(GpuBandJoinPaths, NestedLoopAndSortedAgree)
{
  TBT_REQUIRE_GPU();
  auto const a = tbt::make_keys<int>("uniform", 3000, 11);
  auto const b = tbt::make_keys<int>("uniform", 2500, 12);
  auto const pairs = twobody::cross_pairs(a.view(), b.view());
  auto const ref   = tbt::brute_band(a, &b, -4, 4, [](int, int) { return true; });
  ASSERT_GT(ref.size(), 10000u);
  for (auto m : {twobody::join_method::sorted, twobody::join_method::nested_loop, twobody::join_method::automatic}) {
    EXPECT_EQ(tbt::sorted_pairs(twobody::band_join(twobody::exec::gpu, pairs, 0, -4, 4, method(m)).to_host()), ref);
    auto const eq = twobody::equi_join(twobody::exec::gpu, pairs, 0, tbt::payload_differs{}, method(m));
    EXPECT_EQ(tbt::sorted_pairs(eq.to_host()), tbt::brute_band(a, &b, 0, 0, [](int x, int y) { return x != y; }));
  }
}

TEST(GpuBandJoinPaths, HostResultsInChunksAndRoundsLoseNothing)
{
  TBT_REQUIRE_GPU();
  // one key for all rows: every pair matches (a skew of 100%)
  auto const a = tbt::make_keys<float>("one", 1500, 3);
  auto const b = tbt::make_keys<float>("one", 1100, 4);
  auto const ref = tbt::brute_band(a, &b, 0.f, 0.f, [](float, float) { return true; });
  ASSERT_EQ(ref.size(), 1500u * 1100u);
  twobody::join_options o = method(twobody::join_method::sorted);
  o.location              = twobody::result_location::host;
  o.device_memory_budget  = 64 * 1024;  // 8192 records per chunk: about 200 chunks
  auto const r = twobody::band_join(twobody::exec::gpu, twobody::cross_pairs(a.view(), b.view()), 0, 0.f, 0.f, o);
  EXPECT_EQ(r.location(), twobody::result_location::host);
  EXPECT_GT(r.stats().rounds, 100);
  EXPECT_EQ(tbt::sorted_pairs(r.to_host()), ref);

  // filtered path: a pool of a few pages, kept small, so many rounds roll units back
  twobody::join_options f = method(twobody::join_method::sorted);
  f.pool_records          = 4096;
  f.grow_pool             = false;
  auto const multi = twobody::band_join(twobody::exec::gpu, twobody::self_pairs(a.view()), 0, 0.f, 0.f,
                                        tbt::payload_differs{}, f);
  auto const ref_multi = tbt::brute_band<float>(a, nullptr, 0.f, 0.f, [](float x, float y) { return x != y; });
  EXPECT_GT(multi.stats().rounds, 10);
  EXPECT_EQ(tbt::sorted_pairs(multi.to_host()), ref_multi);
}

TEST(GpuBandJoinPaths, SkewedKeysAndWideBands)
{
  TBT_REQUIRE_GPU();
  // half the rows share one key, the rest are spread: one row range holds most of the output
  std::size_t const n = tbt::quick() ? 2000 : 6000;
  tbt::key_table<long long> a = tbt::make_keys<long long>("uniform", n, 21);
  for (std::size_t i = 0; i < n; i += 2) { a.key[i] = 42; }
  device_table<long long> const da(a);
  auto const sorted = method(twobody::join_method::sorted);
  for (auto const& [lo, hi] : std::vector<std::pair<long long, long long>>{{0, 0}, {-1000, 1000}, {0, 3}}) {
    auto const r   = twobody::band_join(twobody::exec::gpu, twobody::self_pairs(da.view()), 0, lo, hi, sorted);
    auto const ref = tbt::brute_band<long long>(a, nullptr, lo, hi, [](long long, long long) { return true; });
    ASSERT_GT(ref.size(), n * n / 10);  // the key 42 alone: n^2 / 8 pairs
    EXPECT_EQ(tbt::sorted_pairs(r.to_host()), ref);
  }
}

TEST(GpuBandJoinPaths, JoinWithADeclaredBandTakesTheSortedPath)
{
  TBT_REQUIRE_GPU();
  auto const a = tbt::make_keys<int>("uniform", 40000, 31);  // 1.2e9 pairs: the model sorts
  auto const b = tbt::make_keys<int>("uniform", 30000, 32);
  device_table<int> const da(a), db(b);
  auto const pairs = twobody::cross_pairs(da.view(), db.view());
  auto const band  = twobody::join(twobody::exec::gpu, pairs, twobody::band_fn<int>{0, -1, 1});
  EXPECT_EQ(band.stats().method, twobody::join_method::sorted);
  EXPECT_EQ(tbt::sorted_pairs(band.to_host()), tbt::brute_band(a, &b, -1, 1, [](int, int) { return true; }));
  auto const multi = twobody::join(pairs, twobody::all_of(twobody::band_fn<int>{0, 0, 0}, tbt::payload_differs{}));
  EXPECT_EQ(multi.stats().method, twobody::join_method::sorted);
  EXPECT_EQ(tbt::sorted_pairs(multi.to_host()), tbt::brute_band(a, &b, 0, 0, [](int x, int y) { return x != y; }));
}

TEST(GpuBandJoinPaths, HostTablesInKeyRangeBuckets)
{
  TBT_REQUIRE_GPU();
  auto const a = tbt::make_keys<float>("runs", 3000, 61);
  auto const b = tbt::make_keys<float>("uniform", 2500, 62);
  for (auto const& [lo, hi] : std::vector<std::pair<float, float>>{{0.f, 0.f}, {-4.f, 9.f}}) {
    std::vector<twobody::index_pair> cross, self;
    auto collect = [](std::vector<twobody::index_pair>& out) {
      return [&out](twobody::index_pair const* r, std::size_t n) { out.insert(out.end(), r, r + n); };
    };
    auto const st = twobody::host::band_join_each(twobody::exec::gpu, twobody::cross_pairs(a.view(), b.view()), 0, lo, hi,
                                                  collect(cross), {256}, method(twobody::join_method::sorted));
    EXPECT_EQ(tbt::sorted_pairs(cross), tbt::brute_band(a, &b, lo, hi, [](float, float) { return true; }));
    EXPECT_EQ(st.results, cross.size());
    twobody::host::band_join_each(twobody::exec::gpu, twobody::self_pairs(b.view()), 0, lo, hi, tbt::payload_differs{},
                                  collect(self), {256}, method(twobody::join_method::sorted));
    EXPECT_EQ(tbt::sorted_pairs(self), tbt::brute_band<float>(b, nullptr, lo, hi, [](float x, float y) { return x != y; }));
  }
}
