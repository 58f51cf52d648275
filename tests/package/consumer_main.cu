// Package consumer test: the umbrella header reaches the compiler through the twobody::twobody
// target, and the CPU backend runs on every core where OpenMP is there (the target carries it).
// Does not need a GPU.
#include <twobody/twobody.cuh>

#include <cstdio>
#include <thread>

int main()
{
  float x[4] = {0.f, 1.f, 2.f, 4.f};
  auto const n = twobody::count_pairs(twobody::exec::cpu, twobody::self_pairs(twobody::make_points(4, x)),
                                      twobody::within_radius(1.5f));
  int const threads = twobody::cpu::threads();
  std::printf("consumer: %llu pairs within 1.5 (want 2), CPU backend on %d thread(s)\n", n, threads);
  if (n != 2) { return 1; }
  if (threads < 2 && std::thread::hardware_concurrency() > 1) {
    std::printf("consumer: the CPU backend runs on one thread: OpenMP did not reach the consumer\n");
    return 1;
  }
  return 0;
}
