// Probe: when do the blocks of a wide launch start and end on each SM (globaltimer)?
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
__device__ unsigned long long gtime() { unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t; }
__global__ void probe(unsigned long long* rec, int iters, float* sink) {
  unsigned long long t0 = gtime();
  float x = threadIdx.x, y = 1.0001f;
  for (int i = 0; i < iters; ++i) { x = fmaf(x, y, 0.5f); }
  if (x == 12345.f) sink[0] = x;
  __syncthreads();
  unsigned long long t1 = gtime();
  if (threadIdx.x == 0) { unsigned s; asm("mov.u32 %0, %smid;" : "=r"(s)); rec[3*blockIdx.x] = t0; rec[3*blockIdx.x+1] = t1; rec[3*blockIdx.x+2] = s; }
}
int main() {
  unsigned long long* rec; float* sink; cudaMalloc(&rec, 3*8*4096); cudaMalloc(&sink, 4);
  struct cfg { int blocks, threads; } cfgs[] = {{528,256},{264,512},{132,1024},{1056,128},{132,128}};
  for (int iters : {0, 2000}) for (auto c : cfgs) for (int coop = 0; coop < 2; ++coop) {
    std::vector<double> spans, starts, works;
    for (int rep = 0; rep < 30; ++rep) {
      void* args[] = {&rec, &iters, &sink};
      if (coop) cudaLaunchCooperativeKernel((void*)probe, c.blocks, c.threads, args, 0, 0);
      else probe<<<c.blocks, c.threads>>>(rec, iters, sink);
      cudaDeviceSynchronize();
      std::vector<unsigned long long> h(3*c.blocks); cudaMemcpy(h.data(), rec, 8*h.size(), cudaMemcpyDeviceToHost);
      unsigned long long s0=~0ull, s1=0, e1=0; double w=0;
      for (int b = 0; b < c.blocks; ++b) { s0 = std::min(s0, h[3*b]); s1 = std::max(s1, h[3*b]); e1 = std::max(e1, h[3*b+1]); w += h[3*b+1]-h[3*b]; }
      if (rep >= 5) { starts.push_back(double(s1-s0)); spans.push_back(double(e1-s0)); works.push_back(w/c.blocks); }
    }
    auto med = [](std::vector<double> v){ std::sort(v.begin(), v.end()); return v[v.size()/2]; };
    printf("iters %5d blocks %5d x %4d coop %d: start skew %7.0f ns, first start to last end %7.0f ns, mean block %7.0f ns (err %s)\n",
           iters, c.blocks, c.threads, coop, med(starts), med(spans), med(works), cudaGetErrorString(cudaGetLastError()));
  }
}
