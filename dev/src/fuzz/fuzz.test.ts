import { uniqueName } from '@evp/testkit';
import { checkStillProcessing } from './after-fuzz';
import { FUZZ_CEILINGS } from './ceilings';
import { startPipelineUnderFuzz } from './pipeline-under-fuzz';
import { runFuzz } from './run';

/** The short run of the seeded fuzzer (the long one: `npm run fuzz`). See dev/src/fuzz/README.md. */
describe('seeded fuzzer, short run (2,000 hostile requests against the embedded pipeline)', () => {
  let under: Awaited<ReturnType<typeof startPipelineUnderFuzz>>;
  beforeAll(async () => {
    under = await startPipelineUnderFuzz(uniqueName('fuzz').replace(/-/g, '_'));
  });
  afterAll(() => under.stop());

  it('answers no 5xx, every error in the documented shape, within the latency and heap ceilings, and still accepts uploads and actions afterwards', async () => {
    const summary = await runFuzz({ seed: 20261123, count: 2000, targets: under.targets, keys: under.keys });
    expect(summary.failures).toEqual([]);
    expect(Object.keys(summary.byStatus).filter((s) => Number(s) >= 500)).toEqual([]);
    expect(Object.values(summary.byStatus).reduce((a, b) => a + b, 0)).toBe(2000);
    // The run must reach the checks it is for, not stop at auth or routing.
    const reached = [
      'too_deep',
      'too_many_events',
      'invalid_request',
      'unsupported_media_type',
      'malformed_request',
      'headers_too_large',
      'expectation_failed',
      'unknown_catalog_kind',
      // Hostile user tokens (tokens.ts) verified under the enforcing app's policy.
      'user_token_invalid',
      'user_token_expired',
    ];
    expect(reached.filter((code) => !summary.byCode[code])).toEqual([]);
    expect(summary.byStatus['200']).toBeGreaterThan(100);
    expect(summary.latencyMs.p99).toBeLessThan(FUZZ_CEILINGS.p99Ms);
    expect(summary.latencyMs.max).toBeLessThan(FUZZ_CEILINGS.maxMs);
    expect(summary.heapGrowthMb).toBeLessThan(FUZZ_CEILINGS.heapGrowthMb);
    await checkStillProcessing(under.pipeline, under.analytics, under.keys);
  });
});
