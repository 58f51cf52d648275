#pragma once
// Results tool, not part of the library: per-warp timestamps of a kernel's phases (add_probes.py).
#ifdef TWOBODY_PROBE_ENABLED
__device__ unsigned long long twobody_probe_records[1 << 17];
__device__ __forceinline__ void twobody_probe(int slot, bool once = false)
{
  if ((threadIdx.x & 31) != 0) { return; }
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  unsigned long long* r = twobody_probe_records + (blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) * 8;
  if (once && r[slot] != 0) { return; }
  r[slot] = t;
  if (slot == 0) { unsigned s; asm("mov.u32 %0, %%smid;" : "=r"(s)); r[7] = s; }
}
#define TWOBODY_PROBE(slot) twobody_probe(slot)
#define TWOBODY_PROBE_ONCE(slot) twobody_probe(slot, true)
#else
#define TWOBODY_PROBE(slot)
#define TWOBODY_PROBE_ONCE(slot)
#endif
