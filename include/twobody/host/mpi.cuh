/// \file mpi.cuh
/// \brief Several processes (MPI ranks, one GPU each, on one node or many): the block pairs of a
/// run (host::block_plan) are dealt out to the ranks, each rank runs its share with the block
/// layer on its GPU (or with the CPU backend), and the outputs are combined with MPI:
/// histograms and counts by MPI_Allreduce (every rank gets the total), join records gathered
/// on one rank.
///
///     MPI_Init(&argc, &argv);
///     twobody::mpi::options opt;                 // MPI_COMM_WORLD, one GPU per rank
///     auto h = twobody::mpi::histogram(twobody::self_pairs(host_pts), twobody::euclidean{}, bins, opt);
///     opt.backend = twobody::mpi::backend::cpu;  // the same on the host (OpenMP), no GPU needed
///
/// Needs MPI: include it only where <mpi.h> is found (CMake: link `twobody::mpi`, which exists
/// when find_package(MPI) finds MPI). The calls are collective over opt.comm, made from one
/// thread per rank (MPI_THREAD_FUNNELED is enough). Every rank passes the same pair set (the
/// same sizes and, of course, the same points); a rank reads only the blocks of its own block
/// pairs, so the arrays may be memory-mapped files.
///
/// The block pairs are dealt out by work (host::share_of: each in turn to the rank with the fewest
/// point pairs so far), so the ranks' shares differ by at most one block pair; the block size is
/// the smallest any rank's budget allows, made small enough for at least
/// host::block_pairs_per_worker block pairs per GPU (or per rank on the CPU).
///
/// Errors: a failure on any rank (bad input, a CUDA error, a throwing progress callback) makes
/// the call throw twobody::error on every rank, with the message of the lowest failing rank
/// prefixed "rank R: ". The ranks learn of it when their own shares end; nothing partial is
/// returned.
#pragma once

#include <twobody/cpu/backend.cuh>
#include <twobody/dispatch/as_emitter.cuh>
#include <twobody/host/band_join.cuh>
#include <twobody/host/block_plan.cuh>
#include <twobody/host/out_of_core.cuh>
#include <twobody/host/out_of_core_join.cuh>
#include <twobody/util/error.cuh>

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace twobody::mpi {

/// Where each rank computes its share.
enum class backend {
  gpu,  ///< the block layer (host::histogram, ...) on the rank's GPU(s)
  cpu,  ///< the CPU backend (twobody::cpu) on the rank's cores
};

struct options {
  MPI_Comm comm = MPI_COMM_WORLD;
  enum backend backend = backend::gpu;
  /// Per rank: device budget, block size, resident blocks, progress (this rank's share),
  /// kernel timing. `devices` empty: GPU (node-local rank) % (GPUs on the node). `part` and
  /// `parts` are set by the calls (rank, size).
  host::scale_options scale;
  /// join: the rank that receives every record (the others get none).
  int root = 0;
};

namespace detail {

inline void check_mpi(int rc, char const* call)
{
  if (rc == MPI_SUCCESS) { return; }
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw twobody::error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

struct place {
  int rank       = 0;
  int size       = 1;
  int node_rank  = 0;  ///< rank among the ranks of this node (picks the GPU)
};

inline place where(MPI_Comm comm)
{
  place p;
  check_mpi(MPI_Comm_rank(comm, &p.rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &p.size), "MPI_Comm_size");
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, p.rank, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  check_mpi(MPI_Comm_rank(node, &p.node_rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_free(&node), "MPI_Comm_free");
  return p;
}

/// Collective: if `err` is set on any rank, every rank throws the lowest failing rank's error.
inline void raise_first_error(MPI_Comm comm, place const& p, std::exception_ptr err)
{
  int mine = err ? p.rank : p.size, first = p.size;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == p.size) { return; }
  std::string msg;
  if (p.rank == first) {
    try {
      std::rethrow_exception(err);
    } catch (std::exception const& e) {
      msg = e.what();
    } catch (...) {
      msg = "an exception that is not a std::exception";
    }
    msg.resize(std::min<std::size_t>(msg.size(), 8192));
  }
  int len = static_cast<int>(msg.size());
  check_mpi(MPI_Bcast(&len, 1, MPI_INT, first, comm), "MPI_Bcast");
  msg.resize(static_cast<std::size_t>(len));
  check_mpi(MPI_Bcast(msg.data(), len, MPI_CHAR, first, comm), "MPI_Bcast");
  throw twobody::error("rank " + std::to_string(first) + ": " + msg);
}

/// Runs body() on this rank; a throw on any rank is rethrown on every rank (collective).
template <class R, class Body>
R on_every_rank(MPI_Comm comm, place const& p, Body&& body)
{
  R r{};
  std::exception_ptr err;
  try {
    r = body();
  } catch (...) {
    err = std::current_exception();
  }
  raise_first_error(comm, p, err);
  return r;
}

/// Collective: every rank passes a pair set of the same mode and sizes (and the same `extra`,
/// e.g. the number of bins).
template <class Points>
void check_same_run(MPI_Comm comm, pair_set<Points> const& pairs, long long extra)
{
  long long const mine[4] = {static_cast<long long>(pairs.mode), pairs.a.size, pairs.b.size, extra};
  long long lo[4], hi[4];
  check_mpi(MPI_Allreduce(mine, lo, 4, MPI_LONG_LONG, MPI_MIN, comm), "MPI_Allreduce");
  check_mpi(MPI_Allreduce(mine, hi, 4, MPI_LONG_LONG, MPI_MAX, comm), "MPI_Allreduce");
  TWOBODY_EXPECTS(std::equal(lo, lo + 4, hi),
                  ("twobody::mpi: the ranks pass different runs (pair mode " + std::to_string(lo[0]) + ".." +
                   std::to_string(hi[0]) + ", A sizes " + std::to_string(lo[1]) + ".." + std::to_string(hi[1]) +
                   ", B sizes " + std::to_string(lo[2]) + ".." + std::to_string(hi[2]) + ", bins " +
                   std::to_string(lo[3]) + ".." + std::to_string(hi[3]) + "); every rank must pass the same pair set")
                    .c_str());
}

/// Sets the current device for a scope and restores the previous one.
struct device_scope {
  int previous = 0;
  explicit device_scope(int device)
  {
    TWOBODY_CUDA_TRY(cudaGetDevice(&previous));
    TWOBODY_CUDA_TRY(cudaSetDevice(device));
  }
  device_scope(device_scope const&) = delete;
  ~device_scope() { (void)cudaSetDevice(previous); }
};

/// Collective: this rank's scale options (its share, its devices, the block size every rank
/// agrees on: the smallest any rank's budget allows).
template <class Points>
host::scale_options share_options(options const& opt, place const& p, pair_set<Points> const& pairs)
{
  TWOBODY_EXPECTS(opt.scale.block_points >= 0, "scale_options::block_points must not be negative");
  host::scale_options s = opt.scale;
  s.part  = static_cast<std::size_t>(p.rank);
  s.parts = static_cast<std::size_t>(p.size);
  long long const bs = on_every_rank<long long>(opt.comm, p, [&]() -> long long {
    if (opt.backend == backend::cpu) {
      if (s.block_points != 0) { return s.block_points; }
      size_type const largest = std::max<size_type>(1, std::max(pairs.a.size, pairs.b.size));
      return host::block_points_for_pairs(pairs.mode, pairs.a.size, pairs.b.size, largest,
                                          host::block_pairs_per_worker * s.parts);
    }
    if (s.devices.empty()) {
      int count = 0;
      TWOBODY_CUDA_TRY(cudaGetDeviceCount(&count));
      s.devices = {p.node_rank % count};
    }
    device_scope on(s.devices.front());
    return host::block_points_for(pairs, s, s.devices.size() * s.parts);
  });
  long long agreed = bs;
  check_mpi(MPI_Allreduce(&bs, &agreed, 1, MPI_LONG_LONG, MPI_MIN, opt.comm), "MPI_Allreduce");
  s.block_points = agreed;
  return s;
}

/// Runs per_pair(sub, block_pair, plan) on the host for this part's block pairs (the CPU
/// backend's block loop); reports progress and fills `st`.
template <class Points, class PerPair>
void cpu_share(pair_set<Points> const& pairs, host::scale_options const& s, host::scale_stats& st, PerPair&& per_pair)
{
  twobody::detail::validate(pairs);
  host::block_plan const plan = host::block_plan::make(pairs.mode, pairs.a.size, pairs.b.size, s.block_points);
  Points const& set_b = pairs.mode == pair_mode::cross ? pairs.b : pairs.a;
  std::vector<std::size_t> const mine = host::share_of(plan, s.part, s.parts);
  host::progress_meter progress(mine.size());
  st              = {};
  st.block_points = s.block_points;
  st.block_pairs  = mine.size();
  for (std::size_t const k : mine) {
    host::block_pair const bp = plan[k];
    Points const a = host::block_of(pairs.a, plan.range_a(bp.a));
    Points const b = bp.diagonal ? a : host::block_of(set_b, plan.range_b(bp.b));
    per_pair(plan.pairs_of(bp, a, b), bp, plan);
    st.pairs += plan.pair_count(bp);
    progress.add(s.progress, plan.pair_count(bp));
  }
  st.seconds = progress.seconds();
}

template <class T>
MPI_Datatype datatype()
{
  static_assert(std::is_same_v<T, unsigned long long> || std::is_same_v<T, double>, "twobody::mpi: count type");
  return std::is_same_v<T, double> ? MPI_DOUBLE : MPI_UNSIGNED_LONG_LONG;
}

/// Collective: the records of every rank, in rank order, on `root` (others: empty). Sent as
/// bytes in pieces of at most 1 GiB (MPI counts are int).
template <class Record>
std::vector<Record> gather_records(MPI_Comm comm, place const& p, int root, std::vector<Record> mine)
{
  unsigned long long n = mine.size();
  std::vector<unsigned long long> counts(static_cast<std::size_t>(p.size));
  check_mpi(MPI_Gather(&n, 1, MPI_UNSIGNED_LONG_LONG, counts.data(), 1, MPI_UNSIGNED_LONG_LONG, root, comm),
            "MPI_Gather");
  std::size_t const piece = std::size_t(1) << 30;
  int const tag           = 0x2b0d;
  if (p.rank != root) {
    auto const* bytes       = reinterpret_cast<char const*>(mine.data());
    std::size_t const total = mine.size() * sizeof(Record);
    for (std::size_t off = 0; off < total; off += piece) {
      int const len = static_cast<int>(std::min(piece, total - off));
      check_mpi(MPI_Send(bytes + off, len, MPI_BYTE, root, tag, comm), "MPI_Send");
    }
    return {};
  }
  unsigned long long all = 0;
  for (auto c : counts) { all += c; }
  std::vector<Record> out(static_cast<std::size_t>(all));
  std::size_t at = 0;
  for (int r = 0; r < p.size; ++r) {
    auto const nr = static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]);
    if (r == root) {
      std::copy(mine.begin(), mine.end(), out.begin() + static_cast<std::ptrdiff_t>(at));
    } else {
      auto* bytes             = reinterpret_cast<char*>(out.data() + at);
      std::size_t const total = nr * sizeof(Record);
      for (std::size_t off = 0; off < total; off += piece) {
        int const len = static_cast<int>(std::min(piece, total - off));
        check_mpi(MPI_Recv(bytes + off, len, MPI_BYTE, r, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
      }
    }
    at += nr;
  }
  return out;
}

}  // namespace detail

/// Histogram of f over `pairs` (host memory, the same on every rank), spread over the ranks of
/// opt.comm. Every rank gets the whole histogram; `stats` (optional) describes this rank's share.
template <class Points, class F, class Binning>
histogram_result<pair_count_t<Points>> histogram(pair_set<Points> const& pairs, F f,
                                                                     Binning const& bins, options const& opt = {},
                                                                     host::scale_stats* stats = nullptr)
{
  using Count = pair_count_t<Points>;
  auto const p = detail::where(opt.comm);
  detail::check_same_run(opt.comm, pairs, bins.size());
  TWOBODY_EXPECTS(bins.size() >= 1, "histogram: need at least one bin");
  TWOBODY_EXPECTS(bins.size() < std::numeric_limits<int>::max() - 1, "histogram: too many bins");
  host::scale_options const s = detail::share_options(opt, p, pairs);
  std::size_t const slots     = static_cast<std::size_t>(bins.size()) + 1;
  host::scale_stats st;
  auto local = detail::on_every_rank<std::vector<Count>>(opt.comm, p, [&] {
    std::vector<Count> sum(slots, Count{});
    if (opt.backend == backend::cpu) {
      std::vector<Count> part(slots);
      detail::cpu_share(pairs, s, st, [&](auto const& sub, auto const&, auto const&) {
        cpu::histogram(sub, f, bins, part.data());
        for (std::size_t i = 0; i < slots; ++i) { sum[i] += part[i]; }
      });
    } else {
      auto const h = host::histogram(pairs, f, bins, s, &st);
      std::copy(h.counts.begin(), h.counts.end(), sum.begin());
      sum.back() = h.outside;
    }
    return sum;
  });
  std::vector<Count> total(slots);
  detail::check_mpi(MPI_Allreduce(local.data(), total.data(), static_cast<int>(slots), detail::datatype<Count>(),
                                  MPI_SUM, opt.comm),
                    "MPI_Allreduce");
  unsigned long long all_pairs = 0;
  detail::check_mpi(MPI_Allreduce(&st.pairs, &all_pairs, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, opt.comm),
                    "MPI_Allreduce");
  if (stats != nullptr) { *stats = st; }
  return histogram_result<Count>::from_slots(std::move(total), all_pairs);
}

/// Pairs with pred(a, b) true (weighted: the sum of w_i w_j) over `pairs`, spread over the
/// ranks; every rank gets the total.
template <class Points, class Pred>
pair_count_t<Points> count_pairs(pair_set<Points> const& pairs, Pred pred, options const& opt = {},
                                             host::scale_stats* stats = nullptr)
{
  using C      = pair_count_t<Points>;
  auto const p = detail::where(opt.comm);
  detail::check_same_run(opt.comm, pairs, 0);
  host::scale_options const s = detail::share_options(opt, p, pairs);
  host::scale_stats st;
  C const local = detail::on_every_rank<C>(opt.comm, p, [&] {
    if (opt.backend == backend::gpu) { return host::count_pairs(pairs, pred, s, &st); }
    C sum{};
    detail::cpu_share(pairs, s, st, [&](auto const& sub, auto const&, auto const&) { sum += cpu::count_pairs(sub, pred); });
    return sum;
  });
  C total{};
  detail::check_mpi(MPI_Allreduce(&local, &total, 1, detail::datatype<C>(), MPI_SUM, opt.comm), "MPI_Allreduce");
  if (stats != nullptr) { *stats = st; }
  return total;
}

/// The records `x` (an emitter, or a predicate for index pairs) keeps over `pairs`, spread over
/// the ranks and gathered on opt.root in rank order (other ranks get an empty vector; the order
/// within a rank is unspecified, see sort_by_index). Records need `i` and `j` members; they hold
/// positions in A and B (self mode: i < j), so each set needs fewer than 2^32 points.
template <class Points, class X>
std::vector<join_record_t<X>> join(pair_set<Points> const& pairs, X const& x,
                                                                     options const& opt = {},
                                                                     join_options const& jopt = {},
                                                                     host::scale_stats* stats = nullptr)
{
  using Record = join_record_t<X>;
  twobody::detail::check_record<Record>();
  auto const p = detail::where(opt.comm);
  detail::check_same_run(opt.comm, pairs, opt.root);
  TWOBODY_EXPECTS(opt.root >= 0 && opt.root < p.size, "twobody::mpi::join: options::root is not a rank of the communicator");
  host::scale_options const s = detail::share_options(opt, p, pairs);
  host::scale_stats st;
  auto local = detail::on_every_rank<std::vector<Record>>(opt.comm, p, [&] {
    std::vector<Record> mine;
    if (opt.backend == backend::gpu) {
      host::join_each(
        pairs, x, [&](Record const* r, std::size_t n) { mine.insert(mine.end(), r, r + n); }, s, jopt, &st);
      return mine;
    }
    twobody::detail::validate(pairs);  // fewer than 2^32 points per side: 32-bit set indices
    detail::cpu_share(pairs, s, st, [&](auto const& sub, host::block_pair const& bp, host::block_plan const& plan) {
      auto block = cpu::join(sub, x);
      host::shift_to_set_indices(block.data(), block.size(), static_cast<std::uint32_t>(plan.range_a(bp.a).begin),
                                  static_cast<std::uint32_t>(plan.range_b(bp.b).begin));
      mine.insert(mine.end(), block.begin(), block.end());
    });
    return mine;
  });
  if (stats != nullptr) { *stats = st; }
  return detail::gather_records(opt.comm, p, opt.root, std::move(local));
}

/// Band or equi-join of host tables over the ranks: the key-range buckets of
/// host::band_join_each (twobody/host/band_join.cuh) dealt out by rank (bucket k on rank
/// k % size), each run sort-based on the rank's GPU (or CPU backend), the records gathered on
/// opt.root in rank order (other ranks get an empty vector). `x`: a further predicate or
/// emitter on the rows. Every rank passes the same tables (the partition is computed on each).
template <class Points, class X,
          class = std::enable_if_t<twobody::detail::is_emitter<X>::value ||
                                   std::is_invocable_v<X const&, typename Points::point_type const&,
                                                       typename Points::point_type const&>>>
std::vector<join_record_t<X>> band_join(pair_set<Points> const& pairs, int column, typename Points::value_type lower,
                                        typename Points::value_type upper, X const& x, options const& opt = {},
                                        host::band_join_options const& bopt = {}, join_options const& jopt = {})
{
  using Record = join_record_t<X>;
  auto const p = detail::where(opt.comm);
  detail::check_same_run(opt.comm, pairs, opt.root);
  TWOBODY_EXPECTS(opt.root >= 0 && opt.root < p.size,
                  "twobody::mpi::band_join: options::root is not a rank of the communicator");
  host::band_join_options share = bopt;
  share.part  = static_cast<std::size_t>(p.rank);
  share.parts = static_cast<std::size_t>(p.size);
  auto local = detail::on_every_rank<std::vector<Record>>(opt.comm, p, [&] {
    std::vector<Record> mine;
    auto keep = [&](Record const* r, std::size_t n) { mine.insert(mine.end(), r, r + n); };
    if (opt.backend == backend::cpu) {
      host::band_join_each(exec::cpu, pairs, column, lower, upper, x, keep, share, jopt);
      return mine;
    }
    int device = opt.scale.devices.empty() ? -1 : opt.scale.devices.front();
    if (device < 0) {
      int count = 0;
      TWOBODY_CUDA_TRY(cudaGetDeviceCount(&count));
      device = p.node_rank % count;
    }
    detail::device_scope on(device);
    host::band_join_each(exec::gpu, pairs, column, lower, upper, x, keep, share, jopt);
    return mine;
  });
  return detail::gather_records(opt.comm, p, opt.root, std::move(local));
}

/// mpi::band_join without a further predicate: index pairs.
template <class Points>
std::vector<index_pair> band_join(pair_set<Points> const& pairs, int column, typename Points::value_type lower,
                                  typename Points::value_type upper, options const& opt = {},
                                  host::band_join_options const& bopt = {}, join_options const& jopt = {})
{
  return band_join(pairs, column, lower, upper, twobody::detail::any_pair{}, opt, bopt, jopt);
}

}  // namespace twobody::mpi
