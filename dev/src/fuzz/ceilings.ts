/**
 * What the fuzzer holds every run to (documented in dev/src/fuzz/README.md). Generous for a loaded
 * 2-core machine: they catch work that grows with hostile input (seconds per request, hundreds of
 * MB), not ordinary jitter. Measured on that machine: p99 ≈ 13 ms, max ≈ 85 ms, heap +62 MB over
 * 2,000 requests (garbage not yet collected, mostly).
 */
export const FUZZ_CEILINGS = { p99Ms: 500, maxMs: 3000, heapGrowthMb: 400 } as const;
