// Similarity self-join and k-nearest-neighbour graph over 128-dimensional embeddings: N unit
// vectors in half precision, drawn around 64 random directions (a synthetic stand-in for
// sentence or image embeddings). Finds every pair with cosine similarity >= 0.9, and each
// point's 10 most similar others, on the tensor cores, with exact answers (docs/highdim.md).
// Prints the result sizes, rates, and how many neighbours share their point's direction;
// --check compares the join and the graph on a prefix of the points with the CPU backend,
// pair for pair and neighbour for neighbour.
//
//   example_embedding_graph [N] [--check] [--help]   (default N = 65,536 on the GPU, 2,048 on the CPU backend)
#include <twobody/twobody.cuh>

#include "example_common.hpp"

#include <cuda_fp16.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

constexpr int dims       = 128;
constexpr int directions = 64;
constexpr int k          = 10;

/// n unit vectors: direction (i % directions) plus Gaussian noise, normalised, in half.
std::vector<__half> make_embeddings(long long n, unsigned seed)
{
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> centre(static_cast<std::size_t>(directions) * dims);
  for (float& c : centre) { c = normal(rng); }
  std::vector<__half> x(static_cast<std::size_t>(n) * dims);
  std::vector<float> v(dims);
  for (long long i = 0; i < n; ++i) {
    float const* c = centre.data() + (i % directions) * dims;
    double len     = 0;
    for (int d = 0; d < dims; ++d) {
      v[d] = c[d] + 0.4f * normal(rng);
      len += double(v[d]) * v[d];
    }
    float const inv = static_cast<float>(1.0 / std::sqrt(len));
    for (int d = 0; d < dims; ++d) { x[static_cast<std::size_t>(i) * dims + d] = __float2half(v[d] * inv); }
  }
  return x;
}

int run(example::command_line const& cl)
{
  long long const n = cl.n;
  example::check_fits(n, dims * sizeof(__half) + k * 8 + 64, cl.gpu ? dims * sizeof(__half) + k * 8 + 64 : 0);
  std::vector<__half> const x = make_embeddings(n, 11);
  auto const rows             = twobody::make_rows(n, dims, x.data());
  auto const similar          = twobody::at_least(twobody::cosine_similarity{}, 0.9f);
  twobody::execution_policy const where = cl.gpu ? twobody::exec::gpu : twobody::exec::cpu;
  if (cl.gpu) {  // warm-up: context and module loading, not timed
    auto const few = twobody::make_rows(std::min(n, 256ll), dims, x.data());
    (void)twobody::join(where, twobody::self_pairs(few), similar);
    (void)twobody::nearest_neighbors(where, twobody::ordered_pairs(few), twobody::cosine_similarity{}, 1);
  }

  // The similarity self-join: every unordered pair with cos >= 0.9, as {i, j, cos}.
  auto t0 = std::chrono::steady_clock::now();
  twobody::join_options opt;
  opt.location   = twobody::result_location::host;
  auto join      = twobody::join(where, twobody::self_pairs(rows), similar, opt);
  double const join_s = example::seconds_since(t0);
  double const pairs  = double(n) * double(n - 1) / 2;
  std::printf("%lld embeddings of %d dimensions (half), %s\n", n, dims, cl.gpu ? "GPU" : "CPU backend");
  std::printf("similarity join, cos >= 0.9: %zu pairs (%.2f per point), %.3f s, %.3g pairs/s\n", join.size(),
              2.0 * double(join.size()) / double(n), join_s, pairs / join_s);

  // The k-nearest-neighbour graph: each point's 10 most similar others.
  t0               = std::chrono::steady_clock::now();
  auto const graph = twobody::nearest_neighbors(where, twobody::ordered_pairs(rows), twobody::cosine_similarity{}, k);
  double const knn_s = example::seconds_since(t0);
  long long same_direction = 0;
  double kth               = 0;
  for (long long i = 0; i < n; ++i) {
    for (int q = 0; q < k; ++q) { same_direction += graph.indices[i * k + q] % directions == i % directions ? 1 : 0; }
    kth += graph.values[i * k + k - 1];
  }
  std::printf("kNN graph, k = %d: %.3f s, %.3g pairs/s; %.1f%% of the neighbours share their point's direction, "
              "mean similarity of the %d-th %.4f\n",
              k, knn_s, 2 * pairs / knn_s, 100.0 * double(same_direction) / double(n * k), k, kth / double(n));
  std::printf("point 0's nearest: %d (cos %.4f), %d (cos %.4f)\n", graph.indices[0], graph.values[0], graph.indices[1],
              graph.values[1]);
  if (!cl.check) { return 0; }

  // Check on the first m points: the GPU's join and graph against the CPU backend's, which
  // evaluates every pair exactly.
  long long const m = std::min(n, 2048ll);
  auto const prefix = twobody::make_rows(m, dims, x.data());
  auto const want_join = twobody::join(twobody::exec::cpu, twobody::self_pairs(prefix), similar).to_host();
  auto got_join        = twobody::join(where, twobody::self_pairs(prefix), similar, opt);
  twobody::sort_by_index(got_join);
  auto const got = got_join.to_host();
  bool join_same = got.size() == want_join.size();
  for (std::size_t q = 0; join_same && q < got.size(); ++q) { join_same = got[q].i == want_join[q].i && got[q].j == want_join[q].j; }
  auto const want_graph = twobody::nearest_neighbors(twobody::exec::cpu, twobody::ordered_pairs(prefix), twobody::cosine_similarity{}, k);
  auto const got_graph  = twobody::nearest_neighbors(where, twobody::ordered_pairs(prefix), twobody::cosine_similarity{}, k);
  bool const graph_same = got_graph.indices == want_graph.indices && got_graph.values == want_graph.values;
  std::printf("check on the first %lld points against the CPU backend: join %s (%zu pairs), kNN graph %s\n", m,
              join_same ? "same" : "DIFFERENT", want_join.size(), graph_same ? "same" : "DIFFERENT");
  return join_same && graph_same ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv)
{
  example::command_spec spec{"similarity self-join (cos >= 0.9) and 10-NN graph of N 128-D half embeddings", 1ll << 16, 1ll << 11};
  spec.takes_check = true;
  return example::run_example(argc, argv, spec, run);
}
