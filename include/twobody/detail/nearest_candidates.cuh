/// \file nearest_candidates.cuh
/// \brief The selection visitor of output::nearest_lists for traversals whose pairs come as
/// intervals (the tensor cores' value within its proven margin): each row keeps candidates
/// [lo, hi] and recomputes exactly only those still in the running at the unit's end.
///
/// With exact lists (nearest_lists_visitor), every partner that might beat a row's k-th score is
/// recomputed exactly when it arrives: in random order a list takes about k (1 + ln(n / k))
/// entries over n partners, so most recomputations are of partners a later one pushes out (knn
/// at k = 10 recomputed 151 partners per row and segment, D = 128, N = 65,536). Here a row keeps
/// up to `slots` candidates in shared memory: a part sorted by upper end hi, then offers appended
/// as they come. The row's bound is the k-th smallest hi of the sorted part: at least k
/// candidates are certainly no farther, so a partner whose lower end is above it can never be
/// among the k nearest, and neither can a candidate whose lower end is (dropped when the bound
/// falls). The appended offers are merged into the sorted part, a lane per row, when a row has no
/// slot left and at the unit's end. A candidate is recomputed exactly only when a merge leaves
/// its row more than half full past k (then every candidate of the row is, and the row keeps its
/// k best by exact key) and at the unit's end.
#pragma once

#include <twobody/math/neighbor_keys.cuh>
#include <twobody/points.cuh>

#include <cuda/std/limits>

#include <cstdint>

namespace twobody::detail {

/// Candidates per row of nearest_candidates_visitor for k neighbours: a multiple of 32 with room
/// for at least 16 candidates past the k-th; 0 where k is too large (the exact lists then).
__host__ __device__ constexpr int nearest_candidate_slots(int k) { return k <= 16 ? 32 : (k <= 48 ? 64 : 0); }

#ifdef __CUDACC__

/// The protocol: begin_unit(row_start, segment); bound(r), place(r) and put(r, at, lo, hi, j) by
/// any thread; merge(exact) block-wide when an offer found no slot; end_unit(exact).
/// `exact(r, j[B], count, v[B])` gives row r's exact scores (smaller is nearer, NaN for no
/// neighbour) of partners j, by the whole warp: the traversal's recomputation. `Rows` is the
/// traversal's rows per unit.
template <int Rows>
struct nearest_candidates_visitor {
  static constexpr bool can_fail                 = false;
  static constexpr bool compiler_register_budget = false;
  static constexpr bool takes_intervals          = true;
  static constexpr int max_slots                 = 64;  ///< candidates per row (a multiple of 32): nearest_candidate_slots
  static constexpr int batch                     = 4;   ///< partners a warp recomputes at once
  static constexpr std::uint32_t exact_flag      = 0x80000000u;  ///< on a candidate's index: lo == hi is its exact score

  struct params {
    neighbor_key* lists;  ///< rows of A x segments x k keys (written whole by each unit)
    int k;
    int segments;
    size_type rows;  ///< points of A
    int slots;       ///< candidates per row: a multiple of 32 above k, at most max_slots
  };
  struct temp_storage {
    float bound[Rows];  ///< the k-th smallest hi of each row's candidates (+inf while it has fewer than k)
    int count[Rows];
    int incoming[Rows];  ///< offers appended since the last merge (some may have found no slot)
  };

  /// Shared memory of the candidates (row_words per row).
  __host__ static std::size_t dynamic_bytes(int slots) { return sizeof(std::uint32_t) * static_cast<std::size_t>(Rows) * row_words(slots); }

  params const& p;
  temp_storage& s;
  std::uint32_t* words;
  neighbor_key* global_base = nullptr;
  size_type first_row       = 0;

  __device__ nearest_candidates_visitor(params const& p_, temp_storage& storage, unsigned char* smem)
    : p(p_), s(storage), words(reinterpret_cast<std::uint32_t*>(smem))
  {
  }

  /// A row's words: slots upper ends, slots lower ends, slots indices, and one more, so that
  /// lanes on different rows reach different banks.
  __host__ __device__ static int row_words(int slots) { return 3 * slots + 1; }
  __device__ std::uint32_t* row_of(int r) const { return words + r * row_words(p.slots); }
  __device__ float volatile* hi_of(int r) const { return reinterpret_cast<float volatile*>(row_of(r)); }
  __device__ float volatile* lo_of(int r) const { return reinterpret_cast<float volatile*>(row_of(r) + p.slots); }
  __device__ std::uint32_t volatile* index_of(int r) const { return row_of(r) + 2 * p.slots; }

  /// Block-wide: rows row_start .. + Rows (those past the set take nothing), lists of `segment`.
  __device__ void begin_unit(size_type row_start, int segment)
  {
    first_row   = row_start;
    global_base = p.lists + (row_start * p.segments + segment) * p.k;
    for (int r = static_cast<int>(threadIdx.x); r < Rows; r += static_cast<int>(blockDim.x)) {
      s.bound[r] = row_start + r < p.rows ? cuda::std::numeric_limits<float>::infinity() : -cuda::std::numeric_limits<float>::infinity();
      s.count[r]    = 0;
      s.incoming[r] = 0;
    }
    __syncthreads();
  }

  /// Row r's bound (merges, which change it, run between barriers).
  __device__ float bound(int r) const { return s.bound[r]; }

  /// Row r's candidates now (volatile: resolve writes them through volatile pointers).
  __device__ int count(int r) const { return static_cast<int const volatile&>(s.count[r]); }

  /// The key (score, index) of row r's candidate e once exact (empty_neighbor where the score
  /// is NaN: never a neighbour).
  __device__ neighbor_key exact_key(int r, int e) const
  {
    float const score = hi_of(r)[e];
    return isnan(score) ? empty_neighbor : make_neighbor_key(score, index_of(r)[e] & ~exact_flag);
  }

  /// The row's bound from its sorted candidates (count n).
  __device__ float bound_of(int r, int n) const
  {
    return n >= p.k ? hi_of(r)[p.k - 1] : cuda::std::numeric_limits<float>::infinity();
  }

  /// By the whole warp that holds row r (in a merge, or at the unit's end): every candidate not
  /// yet exact recomputed, the k best by exact key (score, index) kept, sorted, as exact entries.
  /// Candidates whose exact score is NaN are dropped.
  template <class Exact>
  __device__ void resolve(int r, Exact& exact)
  {
    constexpr int chunks = max_slots / 32;
    int const lane       = static_cast<int>(threadIdx.x & 31u);
    float volatile* hi   = hi_of(r);
    float volatile* lo   = lo_of(r);
    std::uint32_t volatile* ix = index_of(r);
    int const n          = count(r);
    // The exact scores of the candidates not yet exact, `batch` at a time.
    for (int e = 0; e < n;) {
      size_type js[batch];
      int at[batch];
      int q = 0;
      for (; e < n && q < batch; ++e) {
        std::uint32_t const x = ix[e];
        if ((x & exact_flag) == 0) {
          js[q] = x;
          at[q] = e;
          ++q;
        }
      }
      if (q == 0) { break; }
      float v[batch];  // (js past q are not read: exact pads a batch with its first pair)
      exact(r, js, q, v);
      __syncwarp();
      if (lane == 0) {
        for (int b = 0; b < q; ++b) {
          hi[at[b]] = v[b];
          lo[at[b]] = v[b];
          ix[at[b]] = static_cast<std::uint32_t>(js[b]) | exact_flag;
        }
      }
      __syncwarp();
    }
    // Ranks by exact key (NaN scores last, and dropped).
    neighbor_key key[chunks];
    float score[chunks];
#pragma unroll
    for (int c = 0; c < chunks; ++c) {
      int const e = c * 32 + lane;
      score[c]    = e < n ? hi[e] : 0.0f;
      key[c]      = e < n ? exact_key(r, e) : empty_neighbor;
    }
    int rank[chunks];
#pragma unroll
    for (int c = 0; c < chunks; ++c) { rank[c] = 0; }
    int valid = 0;
    for (int f = 0; f < n; ++f) {
      neighbor_key const kf = exact_key(r, f);
      valid += kf != empty_neighbor ? 1 : 0;
#pragma unroll
      for (int c = 0; c < chunks; ++c) { rank[c] += kf < key[c] ? 1 : 0; }
    }
    int const kept = valid < p.k ? valid : p.k;
    __syncwarp();  // every lane has read the candidates before any moves
#pragma unroll
    for (int c = 0; c < chunks; ++c) {
      if (key[c] != empty_neighbor && rank[c] < kept) {
        hi[rank[c]] = score[c];
        lo[rank[c]] = score[c];
        ix[rank[c]] = static_cast<std::uint32_t>(key[c]) | exact_flag;
      }
    }
    __syncwarp();
    if (lane == 0) {
      s.count[r] = kept;
      s.bound[r] = bound_of(r, kept);
    }
    __syncwarp();
  }

  /// Any thread, between merges: a slot for an offer to row r, past its sorted candidates (the
  /// offers of a row are appended unsorted), or -1 if the row has none left (then the block
  /// merges, and the offer comes again).
  __device__ int place(int r)
  {
    int const at = s.count[r] + atomicAdd(&s.incoming[r], 1);
    return at < p.slots ? at : -1;
  }

  /// Partner j, whose score lies in [lo, hi] (lo not NaN), into slot `at` of row r (place).
  __device__ void put(int r, int at, float lo, float hi, std::uint32_t j)
  {
    std::uint32_t* const row = row_of(r);
    row[at]               = __float_as_uint(hi);
    row[p.slots + at]     = __float_as_uint(lo);
    row[2 * p.slots + at] = j;
  }

  /// Block-wide, after a barrier (and a barrier after it before the next offers or reads of
  /// other rows): each row's appended offers sorted into its candidates, by one lane per row
  /// (warp w's lane l: row w + warps l), so that the block merges all its rows at once. An
  /// offer is a sorted insertion by upper end (in place: the sorted part never passes the next
  /// appended offer) and, when the bound falls, a sweep of the entries past the k-th. A row
  /// whose offers found no slot and that is still more than half full past its k is then
  /// resolved by its warp, leaving room for them (resolving every such row recomputed 1.4x the
  /// pairs at D = 960).
  template <class Exact>
  __device__ void merge(Exact& exact)
  {
    int const lane  = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
    int const warps = static_cast<int>(blockDim.x >> 5);
    int const r     = warp + warps * lane;
    bool const mine = lane * warps < Rows;
    bool crowded    = false;
    if (mine && s.incoming[r] > 0) {
      int const k             = p.k;
      std::uint32_t* const row = row_of(r);
      float* const hi         = reinterpret_cast<float*>(row);
      float* const lo         = hi + p.slots;
      std::uint32_t* const ix = row + 2 * p.slots;
      int n                   = s.count[r];
      int const offered       = n + s.incoming[r];  // slots the offers asked for
      int const end           = offered < p.slots ? offered : p.slots;
      crowded                 = offered > p.slots;
      s.incoming[r]           = 0;
      float b                 = s.bound[r];
      for (int at = n; at < end; ++at) {
        float const hi_o = hi[at], lo_o = lo[at];
        std::uint32_t const x = ix[at];
        if (lo_o > b) { continue; }
        int q = n;
        for (; q > 0 && hi[q - 1] > hi_o; --q) {  // its place by upper end
          hi[q] = hi[q - 1];
          lo[q] = lo[q - 1];
          ix[q] = ix[q - 1];
        }
        hi[q] = hi_o;
        lo[q] = lo_o;
        ix[q] = x;
        ++n;
        if (q < k && n >= k) {
          b = hi[k - 1];  // the bound fell: the entries past the k-th whose lower end is above it go
          int kept = k;
          for (int e = k; e < n; ++e) {
            if (!(lo[e] > b)) {
              hi[kept] = hi[e];
              lo[kept] = lo[e];
              ix[kept] = ix[e];
              ++kept;
            }
          }
          n = kept;
        }
      }
      s.count[r] = n;
      s.bound[r] = b;
      crowded    = crowded && 2 * n > k + p.slots;
    }
    // Rows whose offers found no slot: the k best by exact key (resolve leaves k).
    for (unsigned full = __ballot_sync(0xffffffffu, crowded); full != 0; full &= full - 1) {
      resolve(warp + warps * (__ffs(static_cast<int>(full)) - 1), exact);
    }
  }

  /// Block-wide: each row's candidates resolved, its k best written to its list in device memory
  /// (empty_neighbor past the partners it has).
  template <class Exact>
  __device__ void end_unit(Exact& exact)
  {
    __syncthreads();
    merge(exact);
    __syncthreads();
    int const lane  = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
    int const warps = static_cast<int>(blockDim.x >> 5);
    int const valid = static_cast<int>(p.rows - first_row < Rows ? p.rows - first_row : Rows);
    for (int r = warp; r < valid; r += warps) {
      resolve(r, exact);
      int const n       = count(r);
      neighbor_key* out = global_base + static_cast<size_type>(r) * p.segments * p.k;
      for (int q = lane; q < p.k; q += 32) { out[q] = q < n ? exact_key(r, q) : empty_neighbor; }
    }
    __syncthreads();  // before the next unit clears them
  }
  __device__ void finish() {}
};

#endif  // __CUDACC__

}  // namespace twobody::detail
