/**
 * What the fuzzer holds every run to (documented in dev/src/fuzz/README.md). Generous for a loaded
 * 2-core machine: they catch work that grows with hostile input (seconds per request, hundreds of
 * MB), not ordinary jitter. Heap is measured after a full GC, so it is memory retained — most of it
 * the in-process bus keeping every acknowledged upload. Measured on that machine: 2,000 requests
 * p99 14.5 ms, max 78 ms, +8.9 MB; 50,000 requests p99 7.9 ms, max 93 ms, +82 MB.
 */
export const FUZZ_CEILINGS = { p99Ms: 500, maxMs: 3000, heapGrowthMb: 256 } as const;
