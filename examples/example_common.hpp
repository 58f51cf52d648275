// Plumbing shared by the examples (and the benchmark suite): strict command lines, one-line
// errors, size checks before allocating, seeded random points in a box, and CPU runs that say
// how long they will take and show progress.
#pragma once

#include <twobody/error.cuh>
#include <twobody/points.cuh>
#include <twobody/results.cuh>

#include <cuda_runtime_api.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

/// Throws twobody::error naming the call when a CUDA runtime call fails.
#define EXAMPLE_CUDA_CHECK(call)                                                                  \
  do {                                                                                            \
    cudaError_t const status_ = (call);                                                           \
    if (status_ != cudaSuccess) {                                                                 \
      throw twobody::error(std::string(#call) + " failed: " + cudaGetErrorString(status_));        \
    }                                                                                             \
  } while (0)

namespace example {

inline bool have_gpu()
{
  int n                    = 0;
  cudaError_t const status = cudaGetDeviceCount(&n);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return n > 0;
}

/// Says which backend runs (when `talk`); returns true for the GPU.
inline bool announce_backend(bool talk = true)
{
  bool const gpu = have_gpu();
  if (!gpu && talk) { std::printf("no CUDA GPU found: running on the CPU backend (twobody::exec::cpu)\n"); }
  return gpu;
}

// ---------------------------------------------------------------------------------------------
// Command lines

/// What an example accepts: [N] always, [budget MiB] and --check where it says so.
struct command_spec {
  char const* what;              ///< one line: what the example computes
  long long gpu_default;         ///< N on the GPU when none is given
  long long cpu_default;         ///< N on the CPU backend when none is given
  bool takes_budget = false;     ///< a second positional: device memory budget in MiB
  bool takes_check  = false;     ///< --check: compare against a reference run
};

/// The parsed command line.
struct command_line {
  long long n          = 0;
  long long budget_mib = 0;  ///< 0: not given
  bool check           = false;
  bool gpu             = false;
};

inline void print_usage(std::FILE* out, char const* prog, command_spec const& s)
{
  std::fprintf(out, "usage: %s [N]%s%s [--help]\n", prog, s.takes_budget ? " [budget MiB]" : "",
               s.takes_check ? " [--check]" : "");
  std::fprintf(out, "  %s\n", s.what);
  std::fprintf(out, "  N             number of points, an integer >= 2 (default %lld on a GPU, %lld on the CPU backend)\n",
               s.gpu_default, s.cpu_default);
  if (s.takes_budget) {
    std::fprintf(out, "  budget MiB    device memory the run may use, an integer >= 1 (default: a quarter of free memory)\n");
  }
  if (s.takes_check) { std::fprintf(out, "  --check       compare the result with a reference run, exit 3 if they differ\n"); }
  std::fprintf(out, "  --help, -h    print this help and exit\n");
  std::fprintf(out, "Without a GPU the example runs on the CPU backend (OpenMP).\n");
}

/// A whole decimal integer (no sign, no suffix, no trailing characters) in [lo, hi].
inline bool parse_integer(char const* text, long long lo, long long hi, long long& value)
{
  if (text == nullptr || *text < '0' || *text > '9') { return false; }
  errno       = 0;
  char* end   = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) { return false; }
  value = v;
  return true;
}

/// Parses argv strictly. Returns -1 to go on, otherwise the exit code: 0 after --help, 2 after a
/// bad argument (with the usage on stderr). `talk` false keeps it silent (MPI ranks but one).
inline int parse_command_line(int argc, char** argv, command_spec const& s, command_line& out, bool talk = true)
{
  int positional = 0;
  long long n    = -1;
  for (int k = 1; k < argc; ++k) {
    char const* a = argv[k];
    if (std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0) {
      if (talk) { print_usage(stdout, argv[0], s); }
      return 0;
    }
    if (s.takes_check && std::strcmp(a, "--check") == 0) {
      out.check = true;
      continue;
    }
    long long v = 0;
    if (positional == 0 && parse_integer(a, 2, (1ll << 40), v)) {
      n = v;
    } else if (positional == 1 && s.takes_budget && parse_integer(a, 1, (1ll << 30), v)) {
      out.budget_mib = v;
    } else {
      if (talk) {
        std::fprintf(stderr, "%s: bad argument '%s'\n", argv[0], a);
        print_usage(stderr, argv[0], s);
      }
      return 2;
    }
    ++positional;
  }
  out.gpu = announce_backend(talk);
  out.n   = n > 0 ? n : (out.gpu ? s.gpu_default : s.cpu_default);
  return -1;
}

/// Runs body(), turning any exception into one line on stderr and exit code 1.
template <class Body>
int guarded(char const* prog, Body&& body)
{
  try {
    return body();
  } catch (std::bad_alloc const&) {
    std::fprintf(stderr, "%s: error: out of host memory (try a smaller N)\n", prog);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "%s: error: %s\n", prog, e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: error: unknown exception\n", prog);
  }
  return 1;
}

/// An example's main(): parse argv by `spec`, then run(command_line), every exception as one line.
template <class Run>
int run_example(int argc, char** argv, command_spec const& spec, Run&& run)
{
  return guarded(argv[0], [&] {
    command_line cl;
    int const rc = parse_command_line(argc, argv, spec, cl);
    return rc >= 0 ? rc : run(cl);
  });
}

// ---------------------------------------------------------------------------------------------
// Sizes

inline double gib(double bytes) { return bytes / double(1ull << 30); }

/// Throws twobody::error before anything is allocated when n points of bytes_per_point do not
/// fit in host memory (half of it), or, when device_bytes_per_point > 0, in free device memory.
inline void check_fits(long long n, double host_bytes_per_point, double device_bytes_per_point = 0)
{
  double const host_need = double(n) * host_bytes_per_point;
  double const host_have = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  if (host_have > 0 && host_need > 0.5 * host_have) {
    throw twobody::error("N = " + std::to_string(n) + " needs " + std::to_string(gib(host_need)) +
                         " GiB of host memory, more than half of this machine's " + std::to_string(gib(host_have)) +
                         " GiB: use a smaller N");
  }
  if (device_bytes_per_point > 0) {
    std::size_t free_bytes = 0, total = 0;
    EXAMPLE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    double const dev_need = double(n) * device_bytes_per_point;
    if (dev_need > 0.9 * double(free_bytes)) {
      throw twobody::error("N = " + std::to_string(n) + " needs " + std::to_string(gib(dev_need)) +
                           " GiB of device memory, but " + std::to_string(gib(double(free_bytes))) +
                           " GiB are free: use a smaller N (or example_sdh_host, which works in blocks)");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Data

/// A progress callback for twobody::host::scale_options::progress: one line on stderr,
/// rewritten in place at most twice a second, ended after the last block pair.
inline auto progress_line(std::string what)
{
  auto last = std::make_shared<double>(-1.0);
  return [what, last](auto const& p) {
    bool const done = p.block_pairs_done == p.block_pairs_total;
    if (!done && p.seconds - *last < 0.5) { return; }
    *last = p.seconds;
    std::fprintf(stderr, "\r%s: block pairs %zu/%zu, %.3g pairs, %.3g pairs/s, %.1f s%s", what.c_str(),
                 p.block_pairs_done, p.block_pairs_total, double(p.pairs_done), p.pairs_per_s, p.seconds,
                 done ? "\n" : "   ");
    std::fflush(stderr);
  };
}

/// n uniform random points in [0, side)^3 (fixed seed).
struct cloud {
  std::vector<float> x, y, z;
};
inline cloud uniform_box(long long n, float side, unsigned seed)
{
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, side);
  auto draw = [&] {
    float const v = u(rng);
    return v < side ? v : 0.f;  // uniform_real_distribution<float> can round up to side
  };
  cloud c{std::vector<float>(n), std::vector<float>(n), std::vector<float>(n)};
  for (long long i = 0; i < n; ++i) {
    c.x[i] = draw();
    c.y[i] = draw();
    c.z[i] = draw();
  }
  return c;
}

// ---------------------------------------------------------------------------------------------
// CPU runs that say how long they take

/// Adds a histogram of part of the pairs into `total` (counts sized on first use).
template <class Count>
void add_histogram(twobody::histogram_result<Count>& total, twobody::histogram_result<Count> const& part)
{
  if (total.counts.empty()) { total.counts.assign(part.counts.size(), Count{}); }
  for (std::size_t k = 0; k < part.counts.size(); ++k) { total.counts[k] += part.counts[k]; }
  total.outside += part.outside;
  total.pairs += part.pairs;
}

/// Checks that a histogram's counts and outside add up to `expected_pairs`; prints the verdict
/// and returns the exit code (0, or 3 when they do not).
template <class Count>
int check_counts_add_up(twobody::histogram_result<Count> const& h, unsigned long long expected_pairs)
{
  unsigned long long total = h.outside;
  for (auto c : h.counts) { total += c; }
  if (total != h.pairs || h.pairs != expected_pairs) {
    std::printf("CHECK FAILED: sum(counts) + outside = %llu, pairs = %llu, expected %llu\n", total, h.pairs,
                expected_pairs);
    return 3;
  }
  std::printf("check: sum(counts) + outside == pairs (%llu)\n", h.pairs);
  return 0;
}

/// Points [begin, end) of p as a view.
template <class Points>
Points slice(Points p, twobody::size_type begin, twobody::size_type end)
{
  for (auto& c : p.coords) { c += begin; }
  if constexpr (Points::weighted) { p.weights += begin; }
  p.size = end - begin;
  return p;
}

inline double seconds_since(std::chrono::steady_clock::time_point t0)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The self pairs of p on the CPU backend, in row blocks: run(piece) computes a statistic of a
/// piece (self pairs of a block, or the block x the rows after it) and merge(result, a0, b0)
/// adds it (a0, b0: the first rows of the piece's two sides). The rate is measured on a sample
/// first; a run expected to take more than a few seconds says so and shows a progress line.
template <class Points, class Run, class Merge>
void cpu_self_pairs_in_blocks(Points const& p, Run&& run, Merge&& merge)
{
  using twobody::size_type;
  size_type const n      = p.size;
  double const all_pairs = 0.5 * double(n) * double(n - 1);
  size_type const sample = n < 2048 ? n : 2048;
  (void)run(twobody::self_pairs(slice(p, 0, sample)));  // the first call starts the threads: not timed
  auto const t0 = std::chrono::steady_clock::now();
  (void)run(twobody::self_pairs(slice(p, 0, sample)));
  double const rate    = (0.5 * double(sample) * double(sample - 1)) / std::max(seconds_since(t0), 1e-6);
  double const predict = all_pairs / rate;
  bool const slow      = predict > 3.0;
  if (slow) {
    std::fprintf(stderr,
                 "CPU backend: %.3g pairs at about %.3g pairs/s (measured on %lld points) will take about %.0f s; "
                 "a GPU or a smaller N is faster\n",
                 all_pairs, rate, static_cast<long long>(sample), predict);
  }
  // About 1% of the pairs per block, at least 256 rows.
  size_type rows = static_cast<size_type>(double(n) / 200.0);
  if (rows < 256) { rows = 256; }
  double done   = 0;
  auto const t1 = std::chrono::steady_clock::now();
  for (size_type r0 = 0; r0 < n; r0 += rows) {
    size_type const r1 = r0 + rows < n ? r0 + rows : n;
    merge(run(twobody::self_pairs(slice(p, r0, r1))), r0, r0);
    if (r1 < n) { merge(run(twobody::cross_pairs(slice(p, r0, r1), slice(p, r1, n))), r0, r1); }
    done += 0.5 * double(r1 - r0) * double(r1 - r0 - 1) + double(r1 - r0) * double(n - r1);
    if (slow) {
      std::fprintf(stderr, "\rCPU backend: %5.1f%% of %.3g pairs, %.0f s", 100.0 * done / all_pairs, all_pairs,
                   seconds_since(t1));
      std::fflush(stderr);
    }
  }
  if (slow) { std::fprintf(stderr, "\n"); }
}

}  // namespace example
