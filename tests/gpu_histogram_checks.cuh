// What the GPU histogram tests share (test_gpu_histogram.cu, test_gpu_histogram_inputs.cu): exact
// bin layouts, the CPU backend's references on double copies of the same integer points, and
// the typed test of every input policy x every histogram output policy x self/cross/ordered,
// which each file instantiates for some of the inputs.
#pragma once
#include "common.cuh"

using namespace twobody;

namespace {

// Bin layouts on exact data (integer coordinates in [0, 64)^3): squared distances are
// integers and every edge sits half-way between two of them or is dyadic, and Euclidean
// distances stay >= 2.8e-4 away from the edges 0.25 + k/2, far beyond rounding.
enum class layout { one_bin, three_bins, bins256, bins4096, past_shared_memory };
constexpr layout all_layouts[] = {layout::one_bin, layout::three_bins, layout::bins256, layout::bins4096,
                                  layout::past_shared_memory};

char const* name(layout l)
{
  switch (l) {
    case layout::one_bin: return "1 bin";
    case layout::three_bins: return "3 bins";
    case layout::bins256: return "256 bins";
    case layout::bins4096: return "4096 bins";
    default: return "60000 bins";
  }
}

template <class T>
uniform_bins<T> bins_of(layout l)
{
  switch (l) {
    case layout::one_bin: return {T(0.5), T(1000.5), 1};
    case layout::three_bins: return {T(0.5), T(6000.5), 3};
    case layout::bins256: return {T(0.25), T(128.25), 256};
    case layout::bins4096: return {T(0.5), T(8192.5), 4096};
    default: return {T(-0.125), T(14999.875), 60000};
  }
}

// Layout 256 bins Euclidean distances; the others squared distances.
template <class T, class Run>
void with_functor(layout l, Run&& run)
{
  if (l == layout::bins256) {
    run(euclidean{});
  } else {
    run(squared_euclidean{});
  }
}

struct sizes {
  std::int64_t na, nb;
};

std::vector<sizes> sizes_for(pair_mode m, bool large)
{
  if (m == pair_mode::cross) {
    std::vector<sizes> s{{0, 5}, {5, 0}, {1, 1}, {33, 31}, {1000, 333}};
    if (large) { s.push_back({100003, 1000}); }
    return s;
  }
  std::vector<sizes> s{{0, 0}, {1, 1}, {2, 2}, {31, 31}, {33, 33}, {1000, 1000}};
  if (large && m == pair_mode::self) { s.push_back({100003, 100003}); }
  return s;
}

std::vector<unsigned long long> const& reference(pair_mode m, sizes s, layout l)
{
  std::string const key = std::string(tbt::mode_name(m)) + "/" + std::to_string(s.na) + "/" + std::to_string(s.nb) + "/" + name(l);
  return tbt::cached<std::vector<unsigned long long>>(key, [&] {
    tbt::host_points<double, 3> a(s.na, 1000 + unsigned(s.na)), b(s.nb, 2000 + unsigned(s.nb));
    auto const bins = bins_of<double>(l);
    std::vector<unsigned long long> r(bins.size() + 1);
    with_functor<double>(l, [&](auto f) { cpu::histogram(tbt::make_pairs(m, a.view(), b.view()), f, bins, r.data()); });
    return r;
  });
}

template <class Input, class T, class Policy>
void check(pair_mode m, sizes s, layout l, Policy policy, char const* policy_name)
{
  tbt::host_points<T, 3> ha(s.na, 1000 + unsigned(s.na)), hb(s.nb, 2000 + unsigned(s.nb));
  tbt::device_points<T, 3> a(ha), b(hb);
  auto const pairs = tbt::make_pairs(m, a.view(), b.view());
  auto const bins  = bins_of<T>(l);
  auto counts      = tbt::poisoned<unsigned long long>(bins.size() + 1);
  with_functor<T>(l, [&](auto f) {
    histogram<Input>(pairs, f, bins, thrust::raw_pointer_cast(counts.data()), policy);
  });
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  thrust::host_vector<unsigned long long> got = counts;
  auto const& want = reference(m, s, l);
  unsigned long long total = 0;
  std::size_t mismatches   = 0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    total += got[k];
    mismatches += got[k] != want[k];
  }
  EXPECT_EQ(mismatches, 0u) << policy_name << " " << tbt::mode_name(m) << " na=" << s.na << " nb=" << s.nb << " "
                            << name(l) << " outside got " << got.back() << " want " << want.back();
  EXPECT_EQ(total, pairs.count()) << policy_name << " " << tbt::mode_name(m) << " na=" << s.na << " " << name(l);
}

}  // namespace

template <class C>
class GpuHistogram : public ::testing::Test {};
TYPED_TEST_SUITE_P(GpuHistogram);

TYPED_TEST_P(GpuHistogram, MatchesCpuBackend)
{
  TBT_REQUIRE_GPU();
  using Input        = typename TypeParam::input;
  using T            = typename TypeParam::value;
  bool const tiled   = Input::tiled;
  for (pair_mode m : {pair_mode::self, pair_mode::cross, pair_mode::ordered}) {
    for (sizes s : sizes_for(m, tiled && !tbt::quick())) {
      for (layout l : all_layouts) {
        bool const big = s.na > 50000;
        if (big && l != layout::bins256 && l != layout::three_bins) { continue; }  // keep the run short
        check<Input, T>(m, s, l, output::block_privatized{}, "block_privatized");
        check<Input, T>(m, s, l, output::warp_privatized{32}, "warp_privatized{32}");
        if (!big) {
          check<Input, T>(m, s, l, output::warp_privatized{3}, "warp_privatized{3}");
          check<Input, T>(m, s, l, output::global_atomics{}, "global_atomics");
        }
      }
    }
  }
}

REGISTER_TYPED_TEST_SUITE_P(GpuHistogram, MatchesCpuBackend);
