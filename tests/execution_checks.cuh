// What test_execution.cu and test_execution_checks.cu share: the backends this machine can run,
// the hostile bin map, the sorted keys of a join result.
#pragma once

#include "common.cuh"

#include <cuda/functional>
#include <cuda/std/functional>

#include <chrono>
#include <limits>
#include <thread>
#include <type_traits>

namespace {

using namespace twobody;

// A user bin map without the bounded_slots promise that returns slots past size() and
// negative ones: those pairs must land in the outside slot, never out of bounds.
struct wild_bins {
  __host__ __device__ int size() const { return 8; }
  __host__ __device__ int operator()(float s) const
  {
    int const k = static_cast<int>(s);
    return (k % 3 == 0) ? k : (k % 3 == 1 ? -k - 1 : k + 1000);
  }
};

std::vector<execution_policy> usable_policies()
{
  std::vector<execution_policy> v{exec::cpu};
  if (tbt::gpu_available()) { v.push_back(exec::gpu); }
  return v;
}

template <class T>
std::vector<std::tuple<std::uint32_t, std::uint32_t>> sorted_keys(join_result<T> const& r)
{
  std::vector<std::tuple<std::uint32_t, std::uint32_t>> k;
  for (auto const& x : r.to_host()) { k.emplace_back(x.i, x.j); }
  std::sort(k.begin(), k.end());
  return k;
}

}  // namespace
// Progress reports and stopping (progress.cuh): the CPU backend's loops report on the calling
// thread, done only grows and ends at total (the pairs, or the frames), the results are those of
// a call without reports, and an exception from the callback stops the call and propagates.
struct stop_request {
  std::uint64_t done;
};
