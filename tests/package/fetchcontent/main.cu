// Package consumer smoke test: the umbrella header must be reachable through
// the twobody::twobody target and compile with nvcc. Does not touch the GPU.
#include <twobody/twobody.cuh>

int main() { return 0; }
