// What the MPI tests share (test_mpi.cu, test_mpi_failures_and_gpu.cu): the communicator's rank
// and size, data every rank builds alike, the whole-run references.
#pragma once

#include "common.cuh"

#include <twobody/cpu/backend.cuh>
#include <twobody/host/mpi.cuh>

#include <mpi.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace twobody;

struct mpi_place {
  int rank = 0, size = 1;
  mpi_place()
  {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
};

template <class H>
void expect_same(H const& got, H const& want)
{
  EXPECT_EQ(got.counts, want.counts);
  EXPECT_EQ(got.outside, want.outside);
  EXPECT_EQ(got.pairs, want.pairs);
}

unsigned long long sum_over_ranks(unsigned long long v)
{
  unsigned long long s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

template <class V>
std::vector<std::pair<std::uint32_t, std::uint32_t>> keys(V v)
{
  sort_by_index(v);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> k;
  for (auto const& r : v) { k.emplace_back(r.i, r.j); }
  return k;
}

/// Expects `call` to throw twobody::error on this rank with `rank_prefix` and `text` in it.
template <class Call>
void expect_rank_error(Call&& call, std::string const& rank_prefix, std::string const& text)
{
  try {
    call();
    ADD_FAILURE() << "expected a twobody::error";
  } catch (twobody::error const& e) {
    std::string const what = e.what();
    EXPECT_EQ(what.rfind(rank_prefix, 0), 0u) << what;
    EXPECT_NE(what.find(text), std::string::npos) << what;
  }
}

}  // namespace
struct payload_differs {
  __host__ __device__ bool operator()(point<int, 2> const& a, point<int, 2> const& b) const { return a[1] != b[1]; }
};
