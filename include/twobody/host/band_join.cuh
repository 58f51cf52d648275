/// \file band_join.cuh
/// \brief Band and equi-joins of host tables of any size: both tables partitioned by key range
/// so that each piece is a band join that fits the device, run sort-based there.
///
///     twobody::host::band_join_each(twobody::exec::gpu, twobody::cross_pairs(A, B), /*column*/ 0, -2, 2,
///                                   [&](twobody::index_pair const* r, std::size_t n) { ... });
///     twobody::mpi::band_join(...)   // the buckets dealt over MPI ranks (twobody/host/mpi.cuh)
///
/// A's rows are split into buckets of consecutive key ranges (splitters from a sample of A's
/// keys); each row of B goes to every bucket holding a key it can match (for a narrow band,
/// one or two), so every pair of the join lies in exactly one bucket: the bucket of its A row.
/// A bucket larger than band_join_options::bucket_rows on either side (one key shared by many
/// rows) is split into chunks, and each chunk pair is a band join of its own (sorted where that
/// is cheaper).
/// Records come back with input indices. Self mode runs each bucket as a cross join of its
/// rows against the rows they can match and keeps the pairs with i < j, called as (a_i, a_j):
/// each unordered pair once, as in the in-memory self join (about twice the work of one).
#pragma once

#include <twobody/band_join.cuh>
#include <twobody/dispatch/as_emitter.cuh>
#include <twobody/dispatch/backend.cuh>
#include <twobody/host/out_of_core_join.cuh>
#include <twobody/join_result.cuh>
#include <twobody/math/band_keys.cuh>
#include <twobody/points.cuh>
#include <twobody/util/device_array.cuh>

#include <cuda/std/type_traits>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace twobody::host {

/// Knobs of host::band_join_each.
struct band_join_options {
  /// Rows of each side of one chunk pair (a bucket larger than this is split); 0: 2^24.
  size_type bucket_rows = 0;
  /// Run only the buckets k with k % parts == part (one share of a run split over processes:
  /// twobody::mpi::band_join sets them to the rank and the number of ranks).
  std::size_t part  = 0;
  std::size_t parts = 1;
};

/// The key-range partition of a band join (host-tested): bucket k holds A's rows with keys in
/// [splitters[k - 1], splitters[k]) (no lower bound for the first, no upper for the last), and
/// every row of B that can be the partner of one of them. Row lists ascend; NaN keys are in none.
struct key_partition {
  std::vector<std::vector<std::uint32_t>> a_rows, b_rows;
  std::size_t buckets() const { return a_rows.size(); }
};

namespace detail {

/// Whether some key in [lo, hi) (no bound where the flag says so) can pair with b under the
/// band: b - lo >= lower and b - hi <= upper (the difference falls as the key rises). NaN
/// differences (equal infinities) count as possible: the bucket's own join decides.
template <class T>
bool bucket_reaches(twobody::detail::band_test<T> const& band, T lo, bool has_lo, T hi, bool has_hi, T b)
{
  if (has_lo) {
    auto const d = twobody::detail::band_test<T>::difference(lo, b);
    if (!twobody::detail::key_is_nan(d) && d < band.lower) { return false; }
  }
  if (has_hi) {
    auto const d = twobody::detail::band_test<T>::difference(hi, b);
    if (!twobody::detail::key_is_nan(d) && d > band.upper) { return false; }
  }
  return true;
}

}  // namespace detail

/// Partitions A's rows (keys ka) into buckets of about `bucket_rows` rows by key range, and B's
/// rows (keys kb) into the buckets they can match under `band`.
template <class T>
key_partition partition_by_key(T const* ka, size_type na, T const* kb, size_type nb,
                               twobody::detail::band_test<T> const& band, size_type bucket_rows)
{
  TWOBODY_EXPECTS(bucket_rows >= 1, "host::band_join: bucket_rows must be >= 1");
  // Splitters: quantiles of a sample of A's non-NaN keys, strictly ascending.
  std::vector<T> sample;
  size_type valid = 0;
  for (size_type i = 0; i < na; ++i) { valid += twobody::detail::key_is_nan(ka[i]) ? 0 : 1; }
  size_type const stride = std::max<size_type>(1, na / 65536);
  for (size_type i = 0; i < na; i += stride) {
    if (!twobody::detail::key_is_nan(ka[i])) { sample.push_back(ka[i]); }
  }
  std::sort(sample.begin(), sample.end());
  std::vector<T> splitters;
  size_type const buckets = std::max<size_type>(1, (valid + bucket_rows - 1) / bucket_rows);
  for (size_type k = 1; k < buckets && !sample.empty(); ++k) {
    T const s = sample[static_cast<std::size_t>(k * static_cast<size_type>(sample.size()) / buckets)];
    if (splitters.empty() || splitters.back() < s) { splitters.push_back(s); }
  }
  std::size_t const P = splitters.size() + 1;
  key_partition part;
  part.a_rows.resize(P);
  part.b_rows.resize(P);
  for (size_type i = 0; i < na; ++i) {
    if (twobody::detail::key_is_nan(ka[i])) { continue; }
    auto const k = static_cast<std::size_t>(std::upper_bound(splitters.begin(), splitters.end(), ka[i]) - splitters.begin());
    part.a_rows[k].push_back(static_cast<std::uint32_t>(i));
  }
  for (size_type j = 0; j < nb; ++j) {
    T const b = kb[j];
    if (twobody::detail::key_is_nan(b)) { continue; }
    auto reaches = [&](std::size_t k) {
      return detail::bucket_reaches(band, k > 0 ? splitters[k - 1] : T(0), k > 0, k + 1 < P ? splitters[k] : T(0),
                                    k + 1 < P, b);
    };
    // The buckets b reaches are consecutive: find the first, then walk while they hold.
    std::size_t lo = 0, hi = P;  // first k with `b - hi_k <= upper` (a suffix property)
    while (lo < hi) {
      std::size_t const mid = (lo + hi) / 2;
      bool const below = mid + 1 < P && [&] {
        auto const d = twobody::detail::band_test<T>::difference(splitters[mid], b);
        return !twobody::detail::key_is_nan(d) && d > band.upper;
      }();
      if (below) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    for (std::size_t k = lo; k < P && reaches(k); ++k) { part.b_rows[k].push_back(static_cast<std::uint32_t>(j)); }
  }
  return part;
}

namespace detail {

/// The rows `rows` of `t` gathered into contiguous columns (host), as a table view.
template <class Points>
struct gathered_rows {
  using T = typename Points::value_type;
  std::vector<T> cols[Points::dims];
  Points view;
  gathered_rows(Points const& t, std::uint32_t const* rows, std::size_t n)
  {
    for (int c = 0; c < Points::dims; ++c) {
      cols[c].resize(n);
      for (std::size_t k = 0; k < n; ++k) { cols[c][k] = t.coords[c][rows[k]]; }
      view.coords[c] = cols[c].data();
    }
    view.size = static_cast<size_type>(n);
  }
};

/// Self mode's filter: keep a chunk pair's (i, j) only where A's input row precedes B's, so
/// each unordered pair comes once, called as (a_i, a_j).
template <class E>
struct rows_in_order {
  using record_type = typename E::record_type;
  E e;
  std::uint32_t const* a_rows;  ///< input row of each chunk row (device memory on the GPU)
  std::uint32_t const* b_rows;
  template <class P>
  __host__ __device__ bool operator()(P const& a, P const& b, size_type i, size_type j, record_type& r) const
  {
    return a_rows[i] < b_rows[j] && e(a, b, i, j, r);
  }
};

}  // namespace detail

/// Calls consume(records, n) (host memory, valid during the call) for the records of the band
/// join of host tables `pairs` on `column` (lower <= b - a <= upper) that `x` (a predicate or
/// emitter on the rows) keeps, bucket by bucket (key_partition above), with input indices.
/// Each chunk pair is a band_join on `exec` (sorted or nested loop by jopt.method). Returns the
/// summed statistics.
template <class Points, class X, class Consume,
          class = cuda::std::enable_if_t<twobody::detail::is_emitter<X>::value ||
                                         cuda::std::is_invocable_v<X const&, typename Points::point_type const&,
                                                                   typename Points::point_type const&>>>
join_stats band_join_each(execution_policy const& exec, pair_set<Points> const& pairs, int column,
                          typename Points::value_type lower, typename Points::value_type upper, X const& x,
                          Consume&& consume, band_join_options const& opt = {}, join_options const& jopt = {})
{
  using T      = typename Points::value_type;
  auto const e = twobody::detail::as_emitter(x);
  using E      = decltype(e);
  using Record = typename E::record_type;
  twobody::detail::validate(pairs);
  twobody::detail::check_band(pairs, column, lower, upper, jopt);
  TWOBODY_EXPECTS(pairs.mode != pair_mode::ordered, "host::band_join: self or cross pairs");
  twobody::detail::check_host_readable(pairs);
  TWOBODY_EXPECTS(opt.parts >= 1 && opt.part < opt.parts, "host::band_join: need part < parts");
  size_type const bucket_rows = opt.bucket_rows > 0 ? opt.bucket_rows : size_type(1) << 24;
  bool const self   = pairs.mode == pair_mode::self;
  Points const& b   = self ? pairs.a : pairs.b;
  auto const band   = twobody::detail::make_band_test(lower, upper);
  bool const on_gpu = twobody::detail::runs_on_gpu(exec, "host::band_join");
  key_partition const part =
    partition_by_key(pairs.a.coords[column], pairs.a.size, b.coords[column], b.size, self ? band.hull() : band, bucket_rows);

  join_options chunk_opt = jopt;
  chunk_opt.location     = result_location::host;
  join_stats total;
  total.method = join_method::sorted;
  std::vector<Record> mapped;
  for (std::size_t k = opt.part; k < part.buckets(); k += opt.parts) {
    auto const& ar = part.a_rows[k];
    auto const& br = part.b_rows[k];
    for (std::size_t a0 = 0; a0 < ar.size(); a0 += static_cast<std::size_t>(bucket_rows)) {
      std::size_t const an = std::min(ar.size() - a0, static_cast<std::size_t>(bucket_rows));
      detail::gathered_rows<Points> const ga(pairs.a, ar.data() + a0, an);
      for (std::size_t b0 = 0; b0 < br.size(); b0 += static_cast<std::size_t>(bucket_rows)) {
        std::size_t const bn = std::min(br.size() - b0, static_cast<std::size_t>(bucket_rows));
        detail::gathered_rows<Points> const gb(b, br.data() + b0, bn);
        auto const chunk = cross_pairs(ga.view, gb.view);
        join_result<Record> r;
        if (self) {
          // the filter reads the input rows where the emitter runs
          twobody::detail::device_array<std::uint32_t> da, db;
          std::uint32_t const *arows = ar.data() + a0, *brows = br.data() + b0;
          if (on_gpu) {
            da = twobody::detail::device_array<std::uint32_t>(an);
            db = twobody::detail::device_array<std::uint32_t>(bn);
            TWOBODY_CUDA_TRY(cudaMemcpy(da.data(), arows, an * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
            TWOBODY_CUDA_TRY(cudaMemcpy(db.data(), brows, bn * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
            arows = da.data();
            brows = db.data();
          }
          r = band_join(exec, chunk, column, lower, upper, detail::rows_in_order<E>{e, arows, brows}, chunk_opt);
        } else if constexpr (cuda::std::is_same_v<X, twobody::detail::any_pair>) {
          r = band_join(exec, chunk, column, lower, upper, chunk_opt);  // every candidate: the exact path
        } else {
          r = band_join(exec, chunk, column, lower, upper, e, chunk_opt);
        }
        mapped.assign(r.data(), r.data() + r.size());
        for (Record& rec : mapped) {
          rec.i = ar[a0 + rec.i];
          rec.j = br[b0 + rec.j];
        }
        if (!mapped.empty()) { consume(static_cast<Record const*>(mapped.data()), mapped.size()); }
        detail::add_join_stats(total, r.stats());
      }
    }
  }
  return total;
}

/// band_join_each without a further predicate: index pairs.
template <class Points, class Consume>
join_stats band_join_each(execution_policy const& exec, pair_set<Points> const& pairs, int column,
                          typename Points::value_type lower, typename Points::value_type upper, Consume&& consume,
                          band_join_options const& opt = {}, join_options const& jopt = {})
{
  return band_join_each(exec, pairs, column, lower, upper, twobody::detail::any_pair{}, consume, opt, jopt);
}

}  // namespace twobody::host
