// What the GPU tests of rows check with: the same count on the CPU and on the GPU with both
// products cores (the tensor cores and input::simt_rows), at every metric's most common value and
// the floats on either side of it.
#pragma once

#include "common.cuh"
#include "rows_data.cuh"

#include <twobody/twobody.cuh>

#include <gtest/gtest.h>
#include <thrust/device_vector.h>

#include <cmath>
#include <cstdlib>
#include <random>

using namespace twobody;
using K = detail::row_metric_kind;

namespace tbt_rows {

/// Runs the same count on the CPU and on the GPU with both input policies and checks they agree.
template <class T, bool W, class Pred>
void expect_same_count(pair_set<rows<T, W>> const& pairs, Pred pred, char const* what)
{
  auto const cpu  = count_pairs(exec::cpu, pairs, pred);
  auto const gpu  = count_pairs(exec::gpu, pairs, pred);
  auto const simt = count_pairs<input::simt_rows>(exec::gpu, pairs, pred);
  EXPECT_EQ(gpu, cpu) << what << " mode " << to_string(pairs.mode) << " n " << pairs.a.size << " dims " << pairs.a.dims;
  EXPECT_EQ(simt, cpu) << "simt_rows, " << what << " mode " << to_string(pairs.mode) << " n " << pairs.a.size << " dims "
                       << pairs.a.dims;
}

template <class T, bool W>
void counts_on_every_metric(pair_set<rows<T, W>> const& pairs, tbt::host_rows<T> const& a)
{
  for (int shift = -1; shift <= 1; ++shift) {
    auto at = [&](K m) {
      float const v = tbt::most_common_value(m, a);
      return shift == 0 ? v : std::nextafter(v, shift < 0 ? -INFINITY : INFINITY);
    };
    expect_same_count(pairs, closer_than(squared_euclidean{}, at(K::squared_euclidean)), "squared_euclidean");
    expect_same_count(pairs, closer_than(euclidean{}, at(K::euclidean)), "euclidean");
    expect_same_count(pairs, within_radius(std::sqrt(at(K::squared_euclidean))), "within_radius");
    expect_same_count(pairs, at_least(dot_product{}, at(K::dot_product)), "dot_product");
    expect_same_count(pairs, at_least(cosine_similarity{}, at(K::cosine_similarity)), "cosine_similarity");
    expect_same_count(pairs, closer_than(cosine_distance{}, at(K::cosine_distance)), "cosine_distance");
  }
}

}  // namespace tbt_rows

using tbt_rows::counts_on_every_metric;
using tbt_rows::expect_same_count;
