// Host tests of band and equi-joins: the band predicate's order properties (what makes one
// binary search per side exact), the CPU backend's sorted join against plain loops on the
// issue's key families, the choice of method and the argument checks.
#include "band_join_data.cuh"
#include "common.cuh"

#include <twobody/band_join.cuh>

#include <algorithm>
#include <limits>
#include <vector>

namespace {

using twobody::detail::band_range;
using twobody::detail::make_band_test;

// For every key a and band, the partners found by band_range in sorted keys are exactly the
// keys b with band(a, b): the predicate is one contiguous range there (incl. infinities).
template <class T>
void expect_ranges_exact(std::vector<T> keys, std::vector<T> const& probes, std::vector<std::pair<T, T>> const& bands)
{
  keys.erase(std::remove_if(keys.begin(), keys.end(), [](T k) { return twobody::detail::key_is_nan(k); }), keys.end());
  std::sort(keys.begin(), keys.end());
  for (auto const& [lo, hi] : bands) {
    auto const band = make_band_test(lo, hi);
    for (T const a : probes) {
      unsigned long long begin = 0, end = 0;
      band_range(band, a, keys.data(), 0, keys.size(), begin, end);
      for (std::size_t q = 0; q < keys.size(); ++q) {
        bool const inside = q >= begin && q < end;
        ASSERT_EQ(inside, tbt::in_band(a, keys[q], lo, hi))
          << "a=" << +a << " b=" << +keys[q] << " band [" << +lo << ", " << +hi << "]";
      }
    }
  }
}

}  // namespace

TEST(BandKeys, RangesAreExactForIntegersNearTheLimits)
{
  using L = std::numeric_limits<int>;
  std::vector<int> const keys{L::lowest(), L::lowest() + 1, -5, -1, 0, 0, 3, 7, L::max() - 1, L::max()};
  std::vector<std::pair<int, int>> const bands{{0, 0}, {-2, 2}, {L::lowest(), L::max()}, {1, L::max()}, {L::lowest(), -1}};
  expect_ranges_exact(keys, keys, bands);
  using M = std::numeric_limits<long long>;
  std::vector<long long> const wide{M::lowest(), M::lowest() + 2, -(1ll << 40), 0, 1ll << 40, M::max() - 2, M::max()};
  expect_ranges_exact(wide, wide, std::vector<std::pair<long long, long long>>{{0, 0}, {M::lowest(), M::max()}, {3, M::max()}});
}

TEST(BandKeys, RangesAreExactWithInfinitiesZerosAndHugeValues)
{
  using L       = std::numeric_limits<float>;
  float const i = L::infinity();
  std::vector<float> const keys{-i, -i, L::lowest(), -1.f, -0.f, 0.f, 0.f, 0.5f, 1.f, L::max(), i, i, L::quiet_NaN()};
  std::vector<float> probes(keys);
  probes.push_back(-L::quiet_NaN());
  expect_ranges_exact(keys, probes, std::vector<std::pair<float, float>>{{0.f, 0.f}, {-1.f, 1.f}, {-i, i}, {-i, -i}, {i, i},
                                                                         {0.f, i}, {-i, 0.f}, {L::max(), i}});
}

TEST(BandKeys, NanNeverMatchesAndIntegerDifferencesDoNotWrap)
{
  auto const eq = make_band_test(0.f, 0.f);
  EXPECT_FALSE(eq(std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::quiet_NaN()));
  EXPECT_TRUE(eq(-0.f, 0.f));
  // INT_MAX - INT_MIN wraps to -1 in int: the band [-1, -1] must not take it.
  auto const minus_one = make_band_test(-1, -1);
  EXPECT_FALSE(minus_one(std::numeric_limits<int>::lowest(), std::numeric_limits<int>::max()));
  EXPECT_FALSE((twobody::band_fn<int>{0, -1, -1}(twobody::point<int, 1>{{std::numeric_limits<int>::lowest()}},
                                                  twobody::point<int, 1>{{std::numeric_limits<int>::max()}})));
}

// ---------------------------------------------------------------------------------------------
// CPU backend: sorted against plain loops

template <class T>
class CpuBandJoin : public ::testing::Test {};
using key_types = ::testing::Types<int, long long, float, double>;
TYPED_TEST_SUITE(CpuBandJoin, key_types);

TYPED_TEST(CpuBandJoin, EveryFamilySelfAndCrossMatchesPlainLoops)
{
  using T        = TypeParam;
  auto const any = [](T, T) { return true; };
  for (std::string const family : {"uniform", "runs", "one", "none", "extreme"}) {
    for (std::size_t const n : {std::size_t(0), std::size_t(1), std::size_t(300)}) {
      auto const a = tbt::make_keys<T>(family, n, 2);
      auto const b = tbt::make_keys<T>(family, n + n / 3, 5);
      std::vector<std::pair<T, T>> bands{{T(0), T(0)}, {T(-5), T(5)}, {T(-2), T(7)}, {T(1), T(3)},
                                         {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max()}};
      if constexpr (std::is_floating_point_v<T>) {
        bands.push_back({-std::numeric_limits<T>::infinity(), std::numeric_limits<T>::infinity()});
      }
      for (auto const& [lo, hi] : bands) {
        SCOPED_TRACE(family + " n=" + std::to_string(n) + " band [" + std::to_string(double(lo)) + ", " +
                     std::to_string(double(hi)) + "]");
        auto const cross = twobody::cpu::band_join(twobody::cross_pairs(a.view(), b.view()), 0, lo, hi,
                                                   twobody::detail::any_pair{});
        EXPECT_EQ(tbt::sorted_pairs(cross), tbt::brute_band(a, &b, lo, hi, any));
        auto const self = twobody::cpu::band_join(twobody::self_pairs(a.view()), 0, lo, hi, twobody::detail::any_pair{});
        EXPECT_EQ(tbt::sorted_pairs(self), tbt::brute_band<T>(a, nullptr, lo, hi, any));
        // the records come in (i, j) order, as the CPU backend promises
        EXPECT_TRUE(std::is_sorted(self.begin(), self.end(), twobody::detail::by_index_pair{}));
      }
    }
  }
}

TYPED_TEST(CpuBandJoin, FurtherPredicateRunsInsideTheBand)
{
  using T      = TypeParam;
  auto const a = tbt::make_keys<T>("runs", 400, 3);
  auto const b = tbt::make_keys<T>("runs", 350, 4);
  auto const differs = [](T x, T y) { return x != y; };
  auto const r = twobody::cpu::band_join(twobody::cross_pairs(a.view(), b.view()), 0, T(-5), T(0), tbt::payload_differs{});
  auto const ref = tbt::brute_band(a, &b, T(-5), T(0), differs);
  ASSERT_GT(ref.size(), 1000u);
  EXPECT_EQ(tbt::sorted_pairs(r), ref);
  auto const s = twobody::cpu::band_join(twobody::self_pairs(a.view()), 0, T(-5), T(0), tbt::payload_differs{});
  EXPECT_EQ(tbt::sorted_pairs(s), tbt::brute_band<T>(a, nullptr, T(-5), T(0), differs));
}

// ---------------------------------------------------------------------------------------------
// The public forms on the CPU backend

TEST(BandJoinApi, SortedAndNestedLoopAgreeOnTheCpu)
{
  auto const a = tbt::make_keys<int>("uniform", 2000, 7);
  auto const b = tbt::make_keys<int>("uniform", 1500, 8);
  auto const pairs = twobody::cross_pairs(a.view(), b.view());
  twobody::join_options sorted, nested;
  sorted.method = twobody::join_method::sorted;
  nested.method = twobody::join_method::nested_loop;
  auto const s = twobody::band_join(twobody::exec::cpu, pairs, 0, -3, 3, sorted);
  auto const n = twobody::band_join(twobody::exec::cpu, pairs, 0, -3, 3, nested);
  auto const ref = tbt::brute_band(a, &b, -3, 3, [](int, int) { return true; });
  ASSERT_GT(ref.size(), 5000u);
  EXPECT_EQ(tbt::sorted_pairs(s.to_host()), ref);
  EXPECT_EQ(tbt::sorted_pairs(n.to_host()), ref);
  EXPECT_EQ(twobody::band_join_count(twobody::exec::cpu, pairs, 0, -3, 3), ref.size());

  auto const eq = twobody::equi_join(twobody::exec::cpu, pairs, 0);
  EXPECT_EQ(tbt::sorted_pairs(eq.to_host()), tbt::brute_band(a, &b, 0, 0, [](int, int) { return true; }));
  auto const multi = twobody::equi_join(twobody::exec::cpu, twobody::self_pairs(a.view()), 0, tbt::payload_differs{});
  EXPECT_EQ(tbt::sorted_pairs(multi.to_host()),
            tbt::brute_band<int>(a, nullptr, 0, 0, [](int x, int y) { return x != y; }));
}

TEST(BandJoinApi, BadArgumentsAreErrors)
{
  auto const a     = tbt::make_keys<float>("uniform", 10, 1);
  auto const pairs = twobody::self_pairs(a.view());
  EXPECT_THROW(twobody::band_join(twobody::exec::cpu, pairs, 2, 0.f, 1.f), twobody::error);  // column
  EXPECT_THROW(twobody::band_join(twobody::exec::cpu, pairs, 0, 2.f, 1.f), twobody::error);  // lower > upper
  EXPECT_THROW(twobody::band_join(twobody::exec::cpu, pairs, 0, std::nanf(""), 1.f), twobody::error);
  twobody::join_options sorted;
  sorted.method = twobody::join_method::sorted;
  EXPECT_THROW(twobody::band_join(twobody::exec::cpu, twobody::ordered_pairs(a.view()), 0, 0.f, 1.f, sorted),
               twobody::error);
  // ordered pairs under automatic: the nested loop
  auto const ord = twobody::band_join(twobody::exec::cpu, twobody::ordered_pairs(a.view()), 0, -100.f, 100.f);
  EXPECT_EQ(ord.size(), 90u);
}

TEST(JoinMethodModel, SmallTablesTestEveryPairLargeOnesSort)
{
  using twobody::join_method;
  using twobody::model::choose_join_method;
  auto const& gpu = twobody::model::h100_join_costs;
  EXPECT_EQ(choose_join_method(join_method::automatic, 256.0 * 256, 512, gpu), join_method::nested_loop);
  EXPECT_EQ(choose_join_method(join_method::automatic, 1e6 * 1e6, 2e6, gpu), join_method::sorted);
  EXPECT_EQ(choose_join_method(join_method::nested_loop, 1e6 * 1e6, 2e6, gpu), join_method::nested_loop);
  EXPECT_EQ(choose_join_method(join_method::sorted, 4, 4, gpu), join_method::sorted);
  EXPECT_EQ(choose_join_method(join_method::automatic, 0, 0, gpu), join_method::nested_loop);
  // the switch lies between 2^12 and 2^16 rows per side on both backends
  for (auto const* c : {&gpu, &twobody::model::cpu_join_costs}) {
    EXPECT_EQ(choose_join_method(join_method::automatic, 16.0 * 16, 32, *c), join_method::nested_loop);
    EXPECT_EQ(choose_join_method(join_method::automatic, 65536.0 * 65536, 131072, *c), join_method::sorted);
  }
}

TEST(BandJoinApi, JoinWithADeclaredBandTakesTheSortedPath)
{
  auto const a     = tbt::make_keys<int>("uniform", 8000, 9);
  auto const b     = tbt::make_keys<int>("uniform", 8000, 10);
  auto const pairs = twobody::cross_pairs(a.view(), b.view());
  auto const band  = twobody::join(twobody::exec::cpu, pairs, twobody::band_fn<int>{0, -2, 2});
  EXPECT_EQ(band.stats().method, twobody::join_method::sorted);
  EXPECT_EQ(tbt::sorted_pairs(band.to_host()), tbt::brute_band(a, &b, -2, 2, [](int, int) { return true; }));
  auto const multi = twobody::join(twobody::exec::cpu, pairs, twobody::all_of(twobody::band_fn<int>{0, 0, 0}, tbt::payload_differs{}));
  EXPECT_EQ(multi.stats().method, twobody::join_method::sorted);
  EXPECT_EQ(tbt::sorted_pairs(multi.to_host()), tbt::brute_band(a, &b, 0, 0, [](int x, int y) { return x != y; }));
  // a band after another predicate is not a declared band: the nested loop
  auto const later = twobody::join(twobody::exec::cpu, pairs, twobody::all_of(tbt::payload_differs{}, twobody::band_fn<int>{0, 0, 0}));
  EXPECT_EQ(later.stats().method, twobody::join_method::nested_loop);
  EXPECT_EQ(tbt::sorted_pairs(later.to_host()), tbt::sorted_pairs(multi.to_host()));
  // small tables: the nested loop is cheaper
  auto const small = twobody::cross_pairs(tbt::make_keys<int>("uniform", 20, 1).view(), tbt::make_keys<int>("uniform", 20, 2).view());
  EXPECT_EQ(twobody::band_join(twobody::exec::cpu, small, 0, -2, 2).stats().method, twobody::join_method::nested_loop);
}

// ---------------------------------------------------------------------------------------------
// Tables of any size: key-range buckets (host::band_join_each), on the CPU backend

#include <twobody/host/band_join.cuh>

TEST(HostBandJoin, PartitionPutsEveryPairInTheBucketOfItsARow)
{
  auto const a = tbt::make_keys<float>("extreme", 3000, 41);
  auto const b = tbt::make_keys<float>("uniform", 2000, 42);
  for (auto const& [lo, hi] : std::vector<std::pair<float, float>>{{0.f, 0.f}, {-3.f, 1.f}, {-1e30f, 1e30f}}) {
    auto const band = make_band_test(lo, hi);
    auto const part = twobody::host::partition_by_key(a.key.data(), 3000, b.key.data(), 2000, band, 200);
    std::vector<int> bucket_of(3000, -1);
    for (std::size_t k = 0; k < part.buckets(); ++k) {
      for (auto i : part.a_rows[k]) { bucket_of[i] = static_cast<int>(k); }
    }
    for (std::size_t i = 0; i < 3000; ++i) {
      ASSERT_EQ(bucket_of[i] < 0, std::isnan(a.key[i])) << i;  // NaN keys in no bucket, others in one
    }
    for (std::size_t i = 0; i < 3000; ++i) {
      for (std::size_t j = 0; j < 2000; ++j) {
        if (!band(a.key[i], b.key[j])) { continue; }
        auto const& rows = part.b_rows[static_cast<std::size_t>(bucket_of[i])];
        ASSERT_TRUE(std::binary_search(rows.begin(), rows.end(), static_cast<std::uint32_t>(j))) << i << " " << j;
      }
    }
  }
}

TEST(HostBandJoin, PartitionSplitsByKeyRange)
{
  auto const a    = tbt::make_keys<int>("uniform", 5000, 43);
  auto const part = twobody::host::partition_by_key(a.key.data(), 5000, a.key.data(), 5000, make_band_test(0, 0), 200);
  ASSERT_GE(part.buckets(), 20u);
  std::size_t rows = 0, b_rows = 0;
  for (std::size_t k = 0; k < part.buckets(); ++k) {
    rows += part.a_rows[k].size();
    b_rows += part.b_rows[k].size();
    EXPECT_LT(part.a_rows[k].size(), 400u);                 // about 200 rows a bucket
    // an equi-join's partners are in its own bucket (plus, conservatively, the rows whose key
    // is the bucket's upper splitter, which belong to the next one)
    EXPECT_TRUE(std::includes(part.b_rows[k].begin(), part.b_rows[k].end(), part.a_rows[k].begin(), part.a_rows[k].end()));
  }
  EXPECT_EQ(rows, 5000u);
  EXPECT_LT(b_rows, 5000u + 2 * part.buckets());  // a uniform key repeats about once
}

TEST(HostBandJoin, BucketsAndChunksGiveTheInMemoryResult)
{
  using T = long long;
  auto const a = tbt::make_keys<T>("runs", 900, 51);  // runs: one key fills more than a bucket
  auto const b = tbt::make_keys<T>("uniform", 700, 52);
  auto collect = [](std::vector<twobody::index_pair>& out) {
    return [&out](twobody::index_pair const* r, std::size_t n) { out.insert(out.end(), r, r + n); };
  };
  for (auto const& [lo, hi] : std::vector<std::pair<T, T>>{{0, 0}, {-5, 12}, {-1000, 1000}}) {
    std::vector<twobody::index_pair> cross, self, multi;
    twobody::host::band_join_each(twobody::exec::cpu, twobody::cross_pairs(a.view(), b.view()), 0, lo, hi, collect(cross), {64});
    EXPECT_EQ(tbt::sorted_pairs(cross), tbt::brute_band(a, &b, lo, hi, [](T, T) { return true; }));
    twobody::host::band_join_each(twobody::exec::cpu, twobody::self_pairs(a.view()), 0, lo, hi, collect(self), {64});
    EXPECT_EQ(tbt::sorted_pairs(self), tbt::brute_band<T>(a, nullptr, lo, hi, [](T, T) { return true; }));
    twobody::host::band_join_each(twobody::exec::cpu, twobody::self_pairs(b.view()), 0, lo, hi, tbt::payload_differs{},
                                  collect(multi), {50});
    EXPECT_EQ(tbt::sorted_pairs(multi), tbt::brute_band<T>(b, nullptr, lo, hi, [](T x, T y) { return x != y; }));
  }
}
