// What the GPU tests of the one-call API share (test_gpu_api.cu, test_gpu_api_launches.cu).
#pragma once

#include "common.cuh"

#include <twobody/model/histogram_plan.cuh>

using namespace twobody;
namespace {
// Drives the privatized agent directly: one block, 32 copies, every thread adds K ones to
// bin 0. Each counter then receives 32 * K increments, more than 2^32 for K = 2^27 + 5.
template <bool Flush>
__global__ void hammer(typename detail::privatized_histogram_agent<uniform_bins<float>, unsigned long long, unsigned, 1024,
                                                                   detail::window_mode::none>::params p,
                       unsigned long long k)
{
  using agent = detail::privatized_histogram_agent<uniform_bins<float>, unsigned long long, unsigned, 1024, detail::window_mode::none>;
  extern __shared__ __align__(16) unsigned char smem[];
  typename agent::temp_storage ts;
  agent a(p, ts, smem);
  constexpr unsigned long long step = 1ull << 16;
  for (unsigned long long i = 0; i < k; ++i) {
    a.accumulate(0.5f);
    if (Flush && (i % step == step - 1 || i == k - 1)) { a.end_unit(32ull * step); }
  }
  a.finish();
}
}  // namespace
