/// \file progress.cuh
/// \brief Progress reports from long calls, and stopping them.
///
///     twobody::progress_callback report = [&](twobody::progress_report const& p) {
///       std::fprintf(stderr, "\r%5.1f%%", 100.0 * double(p.done) / double(p.total));
///       if (stop_requested) { throw my_stop{}; }      // stops the call; my_stop propagates
///     };
///     auto h = twobody::histogram(twobody::exec::cpu.with_progress(&report), pairs, f, bins);
///
/// The callback runs on the calling thread, about every 100 ms while the call works and once
/// at its end (done == total), never concurrently with itself. `done` and `total` count pairs
/// (frames for batched frames); `done` only grows. An exception thrown by the callback stops
/// the call at its next check: the call frees what it allocated and the exception propagates
/// from the call. The policy holds a pointer: the callback must outlive the call.
///
/// Where it is called: the CPU backend's loops of every one-call statistic; on the GPU, while
/// the one-call forms wait for their kernels, which count the work units they take (the
/// reports' `done` is that share of the pairs) and stop taking units once the callback has
/// thrown, so that the call ends within about a report interval. GPU calls that run in several
/// steps report between them (out-of-core runs: host/out_of_core.cuh; batched frames from host
/// memory). Not interrupted: the cluster-shared histogram (output::cluster_privatized, whose
/// blocks must all meet its barriers) and output::two_pass joins report when they end; the
/// explicit forms never wait, and report nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace twobody {

/// How far a call is: `done` of `total` units of work (pairs, or frames).
struct progress_report {
  std::uint64_t done;
  std::uint64_t total;
};

/// Called with progress reports; throw from it to stop the call.
using progress_callback = std::function<void(progress_report const&)>;

}  // namespace twobody
