/// \file out_of_core_join.cuh
/// \brief Type III statistics (joins) over point sets in host memory of any size: each block
/// pair runs the one-pass join (direct output buffer, rounds, host streaming) on the devices of
/// scale_options, and its records, with indices shifted from block to set positions, are
/// handed to the caller (concatenation).
///
///     std::vector<twobody::index_pair> all;
///     twobody::host::join_each(twobody::self_pairs(host_pts), twobody::within_eps_fn<float>{eps * eps},
///                              [&](twobody::index_pair const* r, std::size_t n) { all.insert(all.end(), r, r + n); });
///
/// Records need `i` and `j` members (index_pair, index_pair_value, or a custom record with
/// them): they are rewritten to positions in A and B, so each set needs fewer than 2^32 points.
/// Self mode keeps i < j. The callback runs on the workers' threads, one call at a time.
#pragma once

#include <twobody/dispatch/as_emitter.cuh>
#include <twobody/host/out_of_core.cuh>
#include <twobody/join.cuh>

#include <algorithm>
#include <mutex>
#include <vector>

namespace twobody::host {

namespace detail {

/// Adds the statistics of one join (a block pair's, a worker's) to a running total: counts
/// add up, the pool is the largest.
inline void add_join_stats(join_stats& total, join_stats const& st)
{
  total.results += st.results;
  total.estimated_results += st.estimated_results;
  total.pool_records = std::max(total.pool_records, st.pool_records);
  total.rounds += st.rounds;
  total.units_rolled_back += st.units_rolled_back;
}

}  // namespace detail

/// Rewrites block-local join records to set positions (block p.a of A starts at a_begin, block
/// p.b of B at b_begin): the host and MPI layers' step from a block pair's join to the set's.
template <class Record>
void shift_to_set_indices(Record* r, std::size_t n, std::uint32_t a_begin, std::uint32_t b_begin)
{
  for (std::size_t k = 0; k < n; ++k) {
    r[k].i += a_begin;
    r[k].j += b_begin;
  }
}

/// Calls consume(records, n) (host memory, valid during the call; one call at a time) for the
/// records of every block pair of `pairs` that `x` (an emitter, or a predicate for index
/// pairs) keeps. Returns the summed join statistics of the block pairs.
template <class Points, class X, class Consume>
join_stats join_each(pair_set<Points> const& pairs, X const& x, Consume&& consume, scale_options const& opt = {},
                     join_options const& jopt = {}, scale_stats* stats = nullptr)
{
  auto const e = twobody::detail::as_emitter(x);
  using Record = typename decltype(e)::record_type;
  twobody::detail::validate(pairs);  // fewer than 2^32 points per side: 32-bit set indices
  twobody::detail::check_options<default_join_output, Record>(jopt);
  std::mutex consume_mutex;
  struct worker {
    block_plan const* plan;
    join_stats st;
  };
  scale_stats sst;
  auto const per_worker = detail::run_blocks<join_stats>(
    pairs, opt, sst, [&](block_plan const& plan, cudaStream_t) { return worker{&plan, {}}; },
    [&](worker& w, auto const& sub, std::size_t k, cudaStream_t s) {
      block_pair const bp  = (*w.plan)[k];
      auto const a_begin   = static_cast<std::uint32_t>(w.plan->range_a(bp.a).begin);
      auto const b_begin   = static_cast<std::uint32_t>(w.plan->range_b(bp.b).begin);
      std::vector<Record> shifted;
      auto deliver = [&](Record const* r, std::size_t n) {
        shifted.assign(r, r + n);
        shift_to_set_indices(shifted.data(), n, a_begin, b_begin);
        std::lock_guard<std::mutex> lock(consume_mutex);
        consume(static_cast<Record const*>(shifted.data()), n);
      };
      twobody::detail::host_sink<Record, decltype(deliver)> sink(deliver);
      join_stats const st = twobody::detail::run_join<default_input, default_join_output>(sub, e, sink, jopt, s);
      detail::add_join_stats(w.st, st);
    },
    [&](worker& w, cudaStream_t) { return w.st; });
  join_stats total;
  for (auto const& st : per_worker) { detail::add_join_stats(total, st); }
  if (stats != nullptr) { *stats = sst; }
  return total;
}

/// Every record of the join, concatenated in host memory (order unspecified; see sort_by_index).
template <class Points, class X>
std::vector<join_record_t<X>> join(pair_set<Points> const& pairs, X const& x,
                                                                     scale_options const& opt = {},
                                                                     join_options const& jopt = {})
{
  using Record = join_record_t<X>;
  std::vector<Record> out;
  join_each(pairs, x, [&](Record const* r, std::size_t n) { out.insert(out.end(), r, r + n); }, opt, jopt);
  return out;
}

}  // namespace twobody::host
