/// \file direct_output_buffer.cuh
/// \brief Output policies for Type III statistics (joins): a record per qualifying pair,
/// how many unknown until the kernel has run.
///
/// `direct_output_buffer` (Pitaksirianan et al., Sec. 3.3.3, Algorithm 5): a device pool cut
/// into pages of PageRecords records and one global page counter. Each owner (a thread, or
/// a warp) takes a page with one atomic and fills it through its own cursor; one kernel
/// pass, no counting pass. When the pool runs out, the work unit (tile pair) that hit the
/// end is rolled back and the kernel hands out no more work; the host drains the filled
/// pages and resumes from the units not done (see join.cuh), so no record is lost or
/// doubled.
///
/// `two_pass`: the classic baseline. A count pass, a CUB prefix sum over per-thread counts,
/// and a write pass that recomputes every pair; the output is exactly sized but every pair
/// is evaluated twice.
#pragma once

#include <twobody/engine/engine.cuh>
#include <twobody/points.cuh>
#include <twobody/policy/kinds.cuh>

#include <cuda/std/cstdint>

namespace twobody {
namespace output {

/// Who owns a page: each thread (Algorithm 5; few records per page), or each warp (the warp
/// writes its passing lanes' records side by side, ranked by a ballot: one atomic per page
/// for 32 lanes; pages of 32 records or more).
enum class page_owner { thread, warp };

/// Direct output buffer with pages of PageRecords records owned per thread or per warp.
template <int PageRecords = 4, page_owner Owner = page_owner::thread>
struct direct_output_buffer {
  static_assert(PageRecords >= 1, "direct_output_buffer: PageRecords must be at least 1");
  static_assert(Owner == page_owner::thread || PageRecords >= 32,
                "direct_output_buffer: warp-owned pages need PageRecords >= 32 (a warp emits up to 32 records at once)");
  static constexpr int page_records  = PageRecords;
  static constexpr page_owner owner  = Owner;
  static constexpr bool one_pass     = true;
  static constexpr char const* name     = Owner == page_owner::thread ? "dob_thread" : "dob_warp";
  static constexpr output_kind kind     = {"direct_output_buffer"};  ///< both page owners are one family
  static constexpr unsigned statistics  = serves(statistic_kind::pair_list);
  static constexpr bool chosen_by_model = true;  ///< the cost model may choose it
};

/// Count pass + CUB exclusive scan + write pass (the baseline the direct output buffer beats).
struct two_pass {
  static constexpr bool one_pass    = false;
  static constexpr char const* name     = "two_pass";
  static constexpr output_kind kind     = {name};  ///< its family, listed in model/registry.cuh
  static constexpr unsigned statistics  = serves(statistic_kind::pair_list);
  static constexpr bool chosen_by_model = false;  ///< count, scan, write: the join baseline
};

}  // namespace output

namespace detail {

inline constexpr cuda::std::uint32_t no_page = 0xffffffffu;

/// Device-side bookkeeping of one round of a one-pass join (zeroed before each round).
struct join_state {
  unsigned long long next_page;  ///< the global page pointer (GP of Algorithm 5); may pass the pool size
  work_state work;               ///< the round's units (engine.cuh: dynamic_units)
};

/// The pool: pages * PageRecords records, a fill count and the owner's previous page per page
/// (the chain a rollback walks), and the round's state.
template <class Record>
struct page_pool {
  Record* records                  = nullptr;
  cuda::std::uint32_t* page_count  = nullptr;  ///< records in each page (0 for pages never taken)
  cuda::std::uint32_t* page_prev   = nullptr;  ///< the page its owner filled before it (no_page: none)
  unsigned long long pages         = 0;
  join_state* state                = nullptr;
};

/// Takes the next page of the pool for an owner whose current page is `current` (closing it
/// at `full` records and linking the new page back to it); no_page when the pool is spent.
/// Out of line: it runs once per page, and keeping it out of the unrolled pair loop keeps that
/// loop small.
__device__ __noinline__ inline cuda::std::uint32_t take_page_slow(join_state* state, unsigned long long pages,
                                                                  cuda::std::uint32_t* page_count,
                                                                  cuda::std::uint32_t* page_prev,
                                                                  cuda::std::uint32_t current, int full)
{
  unsigned long long const fresh = atomicAdd(&state->next_page, 1ull);
  if (fresh >= pages) { return no_page; }
  auto const p = static_cast<cuda::std::uint32_t>(fresh);
  if (current != no_page) { page_count[current] = static_cast<cuda::std::uint32_t>(full); }
  page_prev[p] = current;
  return p;
}

/// Calls use(record) for each own point r whose bit is set in `mask`, building the record with
/// rebuild(r, record). All 32 lanes call it: a warp vote keeps the common case (no lane passed)
/// one uniform branch per column instead of a divergence region.
template <int R, class Record, class Rebuild, class Use>
__device__ __forceinline__ void for_each_passing(unsigned mask, Rebuild& rebuild, Use&& use)
{
  if (__builtin_expect(!__any_sync(0xffffffffu, mask != 0u), 1)) { return; }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    if ((mask >> r) & 1u) {
      Record rec;
      rebuild(r, rec);
      use(rec);
    }
  }
}

/// Page bookkeeping of one owner (a thread or a warp; for a warp every lane holds the same
/// copy and lane 0 does the global writes). Rolling back a unit walks the owner's page chain
/// back to where the unit began and empties the pages taken since.
template <class Record, int PS>
struct page_cursor {
  cuda::std::uint32_t page       = no_page;
  int used                       = PS;  ///< records in `page` (PS: full, take a new one first)
  cuda::std::uint32_t unit_page  = no_page;
  int unit_used                  = PS;
  bool failed                    = false;

  __device__ void begin_unit()
  {
    unit_page = page;
    unit_used = used;
  }

  /// Takes a fresh page; false when the pool is exhausted. For a warp, every lane calls it
  /// and lane 0 (the leader) does the global work.
  __device__ bool take_page(page_pool<Record> const& pool, bool leader, bool warp)
  {
    cuda::std::uint32_t fresh = leader ? take_page_slow(pool.state, pool.pages, pool.page_count, pool.page_prev, page, PS)
                                       : no_page;
    if (warp) { fresh = __shfl_sync(0xffffffffu, fresh, 0); }
    if (fresh == no_page) {
      failed = true;
      return false;
    }
    page = fresh;
    used = 0;
    return true;
  }

  /// Empties the pages of the current unit and returns to where it began.
  __device__ void rollback(page_pool<Record> const& pool, bool leader)
  {
    if (leader) {
      for (cuda::std::uint32_t p = page; p != unit_page; p = pool.page_prev[p]) { pool.page_count[p] = 0; }
    }
    page   = unit_page;
    used   = unit_used;
    failed = false;
  }

  __device__ void finish(page_pool<Record> const& pool, bool leader) const
  {
    if (leader && page != no_page) { pool.page_count[page] = static_cast<cuda::std::uint32_t>(used); }
  }
};

/// Direct output buffer, one page per thread.
template <class Record, int PS>
struct thread_page_agent {
  static constexpr bool can_fail     = true;
  using params                       = page_pool<Record>;
  params pool;
  page_cursor<Record, PS> cur;

  __device__ explicit thread_page_agent(params const& p) : pool(p) {}
  __device__ void begin_unit() { cur.begin_unit(); }
  /// Bit r of `mask`: own point r's pair passed; rebuild(r, rec) makes its record (rare path).
  template <int R, class Rebuild>
  __device__ void emit_mask(unsigned mask, Rebuild&& rebuild)
  {
    for_each_passing<R, Record>(mask, rebuild, [&](Record const& rec) { push(rec); });
  }
  __device__ void push(Record const& r)
  {
    if (cur.failed) { return; }
    if (cur.used == PS && !cur.take_page(pool, true, false)) { return; }
    pool.records[static_cast<unsigned long long>(cur.page) * PS + cur.used++] = r;
  }
  __device__ bool failed() const { return cur.failed; }
  __device__ void rollback() { cur.rollback(pool, true); }
  __device__ void finish() { cur.finish(pool, true); }
};

/// Direct output buffer, one page per warp: the lanes whose pair passes write side by side
/// (ranked by a ballot), and lane 0 takes a new page when the current one fills. emit_mask()
/// must be called by all 32 lanes together (join_visitor::step is).
template <class Record, int PS>
struct warp_page_agent {
  static constexpr bool can_fail        = true;
  static constexpr bool warp_collective = true;  ///< push(pass, record) by all 32 lanes together
  using params                       = page_pool<Record>;
  params pool;
  page_cursor<Record, PS> cur;
  bool leader;

  __device__ explicit warp_page_agent(params const& p) : pool(p), leader((threadIdx.x & 31u) == 0u) {}
  __device__ void begin_unit() { cur.begin_unit(); }
  /// As thread_page_agent::emit_mask; called by all 32 lanes together.
  template <int R, class Rebuild>
  __device__ void emit_mask(unsigned mask, Rebuild&& rebuild)
  {
    if (__builtin_expect(!__any_sync(0xffffffffu, mask != 0u), 1)) { return; }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      bool const pass = (mask >> r) & 1u;
      Record rec{};
      if (pass) { rebuild(r, rec); }
      push(pass, rec);
    }
  }
  __device__ void push(bool pass, Record const& r)
  {
    unsigned const mask = __ballot_sync(0xffffffffu, pass);
    if (mask == 0u || cur.failed) { return; }
    int const n    = __popc(mask);
    int const rank = __popc(mask & ((1u << (threadIdx.x & 31u)) - 1u));
    int const room = PS - cur.used;
    if (pass && rank < room) { pool.records[static_cast<unsigned long long>(cur.page) * PS + cur.used + rank] = r; }
    if (n <= room) {
      cur.used += n;
      return;
    }
    if (!cur.take_page(pool, leader, true)) { return; }
    if (pass && rank >= room) { pool.records[static_cast<unsigned long long>(cur.page) * PS + (rank - room)] = r; }
    cur.used = n - room;
  }
  __device__ bool failed() const { return cur.failed; }
  __device__ void rollback() { cur.rollback(pool, leader); }
  __device__ void finish() { cur.finish(pool, leader); }
};

/// Two-pass baseline, pass 1: records per thread (static work split, so pass 2 sees the same pairs).
template <class Record>
struct count_agent {
  static constexpr bool can_fail     = false;
  struct params {
    unsigned long long* counts;  ///< one per thread of the grid
  };
  params p;
  unsigned long long n = 0;
  __device__ explicit count_agent(params const& p_) : p(p_) {}
  __device__ void begin_unit() {}
  template <int R, class Rebuild>
  __device__ void emit_mask(unsigned mask, Rebuild&&)
  {
    n += static_cast<unsigned>(__popc(mask));
  }
  __device__ bool failed() const { return false; }
  __device__ void rollback() {}
  __device__ void finish() { p.counts[static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x] = n; }
};

/// Two-pass baseline, pass 2: each thread writes from its exclusive prefix sum on.
template <class Record>
struct write_agent {
  static constexpr bool can_fail     = false;
  struct params {
    unsigned long long const* offsets;  ///< exclusive scan of the counts of pass 1
    Record* out;
  };
  params p;
  unsigned long long cursor;
  __device__ explicit write_agent(params const& p_)
    : p(p_), cursor(p_.offsets[static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x])
  {
  }
  __device__ void begin_unit() {}
  template <int R, class Rebuild>
  __device__ void emit_mask(unsigned mask, Rebuild&& rebuild)
  {
    for_each_passing<R, Record>(mask, rebuild, [&](Record const& rec) { p.out[cursor++] = rec; });
  }
  __device__ bool failed() const { return false; }
  __device__ void rollback() {}
  __device__ void finish() {}
};

template <class Output, class Record>
struct dob_agent_of {
  using type = cuda::std::conditional_t<Output::owner == output::page_owner::thread,
                                        thread_page_agent<Record, Output::page_records>,
                                        warp_page_agent<Record, Output::page_records>>;
};

}  // namespace detail
}  // namespace twobody
