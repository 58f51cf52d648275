// SDH spread over MPI ranks (twobody/host/mpi.cuh): every rank makes the same points (fixed
// seed), takes its share of the block pairs on its GPU (or on its cores with the CPU backend
// where there is no GPU), and MPI_Allreduce sums the histograms. Rank 0 prints a progress line
// for its share, the result and each rank's time for its share; with --check it also computes
// the histogram alone (one GPU, in core; the CPU backend without a GPU) and compares every bin.
// A small untimed run first loads the GPU code (as the one-GPU check then finds it loaded).
//
//   mpirun -np 2 example_mpi_sdh [N] [--check] [--help]   (default N = 2^22 on GPUs, 2^13 on CPUs)
#include <twobody/twobody.cuh>
#include <twobody/host/mpi.cuh>

#include "example_common.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

int run(int argc, char** argv)
{
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  example::command_spec spec{"SDH of N random points, block pairs shared by the MPI ranks", 1ll << 22, 1ll << 13};
  spec.takes_check = true;
  example::command_line cl;
  int const rc = example::parse_command_line(argc, argv, spec, cl, rank == 0);
  if (rc >= 0) { return rc; }
  bool const check  = cl.check;
  bool const gpu    = cl.gpu;
  long long const n = cl.n;
  example::check_fits(n, 3 * sizeof(float));  // every rank holds the points; GPUs get blocks
  float const box = 100.f;
  example::cloud const pts = example::uniform_box(n, box, 7);  // the same on every rank
  auto const pairs = twobody::self_pairs(twobody::make_points(n, pts.x.data(), pts.y.data(), pts.z.data()));
  twobody::distance_bins<float> const bins(box * std::sqrt(3.f), 256);

  twobody::mpi::options opt;
  opt.backend = gpu ? twobody::mpi::backend::gpu : twobody::mpi::backend::cpu;
  auto warm = pairs;
  warm.a.size = warm.b.size = std::min<long long>(n, 65536);
  (void)twobody::mpi::histogram(warm, twobody::squared_euclidean{}, bins, opt);
  if (rank == 0) { opt.scale.progress = example::progress_line("rank 0"); }
  MPI_Barrier(MPI_COMM_WORLD);
  auto const t0 = std::chrono::steady_clock::now();
  twobody::host::scale_stats st;
  auto const h = twobody::mpi::histogram(pairs, twobody::squared_euclidean{}, bins, opt, &st);
  double const s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double const mine[2] = {st.seconds, double(st.pairs)};
  std::vector<double> ranks(2 * static_cast<std::size_t>(size));
  MPI_Gather(mine, 2, MPI_DOUBLE, ranks.data(), 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank != 0) { return 0; }
  for (int r = 0; r < size; ++r) {
    std::printf("rank %d: %.4g pairs in %.3f s\n", r, ranks[2 * r + 1], ranks[2 * r]);
  }
  std::printf("SDH, 256 bins, %lld points, %d rank(s) on %s: %llu pairs (%.3f s, %.3g pairs/s); rank 0 ran %zu "
              "block pairs of %lld points\n",
              n, size, gpu ? "GPUs" : "CPUs", h.pairs, s, double(h.pairs) / s, st.block_pairs,
              static_cast<long long>(st.block_points));
  if (int const rc = example::check_counts_add_up(h, pairs.count()); rc != 0) { return rc; }
  if (check) {
    auto const t1 = std::chrono::steady_clock::now();
    auto const one = twobody::histogram(gpu ? twobody::exec::gpu : twobody::exec::cpu, pairs,
                                        twobody::squared_euclidean{}, bins);  // one GPU in core, or one process
    double const s1 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    if (one.counts != h.counts || one.outside != h.outside) {
      std::printf("CHECK FAILED: the %d-rank histogram differs from the one-%s histogram\n", size, gpu ? "GPU" : "CPU");
      return 3;
    }
    std::printf("check: all 256 bins and outside equal the one-%s histogram (%.3f s alone, %.2fx)\n",
                gpu ? "GPU" : "process", s1, s1 / s);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  // Every rank gets the same error, named by rank.
  int const rc = example::guarded(argv[0], [&] { return run(argc, argv); });
  // A rank that fails alone must not leave the others waiting: agree on the exit code.
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
