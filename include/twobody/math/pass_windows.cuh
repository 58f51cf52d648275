#pragma once

/// The windows of passes over the bins (device and host; no standard library headers, so that
/// run-time compiled kernels take it too).

namespace twobody::detail {

/// The windows of a histogram's passes (one copy past shared memory): `passes` windows of
/// `window` slots spread evenly over the slots (the first at slot 0, the last ending at the last
/// slot), so that they overlap where passes x window > slots, and a partition of the slots into
/// one own range per pass, each inside its pass's window. A pass counts the pairs of a tile pair
/// whose slots provably all lie in one window in the first window that holds them (and no other
/// pass visits that tile pair: on points ordered into compact tiles most tile pairs span few
/// slots), and every other pair in its own range. Host and device.
struct pass_windows {
  int slots  = 0;
  int window = 0;
  int passes = 1;

  __host__ __device__ int begin(int k) const
  {
    return passes <= 1 ? 0 : static_cast<int>(static_cast<long long>(k) * (slots - window) / (passes - 1));
  }
  __host__ __device__ int own_begin(int k) const { return static_cast<int>(static_cast<long long>(k) * slots / passes); }
  __host__ __device__ int own_end(int k) const { return own_begin(k + 1); }
  /// The first pass whose window holds slots lo .. hi, or -1 (the windows' ends grow with k:
  /// the first whose end passes hi, from an estimate and a step or two).
  __host__ __device__ int holding(int lo, int hi) const
  {
    if (passes <= 1) { return hi < window && lo >= 0 ? 0 : -1; }
    long long const over = static_cast<long long>(hi) - window + 1;  // the first window must begin at or past this
    int k = over <= 0 ? 0 : static_cast<int>(over * (passes - 1) / (slots - window));
    while (k > 0 && begin(k - 1) + window > hi) { --k; }
    while (k < passes && begin(k) + window <= hi) { ++k; }
    return k < passes && begin(k) <= lo ? k : -1;
  }
  /// How many windows hold any of slots lo .. hi (lo <= hi): the passes that stage a tile pair of
  /// these slots to decide on its sub-tile pairs (tile_traversal.cuh).
  __host__ __device__ int meeting(int lo, int hi) const
  {
    if (passes <= 1) { return lo < window ? 1 : 0; }
    long long const span = slots - window;
    // last: the last window beginning at or before hi; first: the first ending past lo.
    int last = span <= 0 ? passes - 1 : static_cast<int>(static_cast<long long>(hi) * (passes - 1) / span);
    last     = last < passes - 1 ? last : passes - 1;
    while (last + 1 < passes && begin(last + 1) <= hi) { ++last; }
    while (last >= 0 && begin(last) > hi) { --last; }
    long long const over = static_cast<long long>(lo) - window + 1;
    int first = over <= 0 || span <= 0 ? 0 : static_cast<int>(over * (passes - 1) / span);
    first     = first < passes ? first : passes - 1;
    while (first > 0 && begin(first - 1) + window > lo) { --first; }
    while (first < passes && begin(first) + window <= lo) { ++first; }
    return last >= first ? last - first + 1 : 0;
  }
  /// The pass whose own range holds slot s.
  __host__ __device__ int owner(int s) const
  {
    return static_cast<int>(((static_cast<long long>(s) + 1) * passes + slots - 1) / slots) - 1;
  }
};

}  // namespace twobody::detail
