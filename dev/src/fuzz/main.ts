/**
 * The long fuzz run: `npm run fuzz -- [seed] [count]` (defaults: a seed from the clock, 50,000
 * requests). Prints a JSON summary; exits 1 when any request failed a check (replay it by seed and index).
 */
import { randomInt } from 'node:crypto';
import { checkStillProcessing } from './after-fuzz';
import { FUZZ_CEILINGS } from './ceilings';
import { startPipelineUnderFuzz } from './pipeline-under-fuzz';
import { runFuzz } from './run';

async function main() {
  const seed = process.argv[2] ? Number(process.argv[2]) : randomInt(2 ** 31);
  const count = process.argv[3] ? Number(process.argv[3]) : 50_000;
  if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(count) || count < 1) throw new Error('usage: npm run fuzz -- [seed] [count]');
  const under = await startPipelineUnderFuzz(`fuzz_${seed}`);
  try {
    const summary = await runFuzz({ seed, count, targets: under.targets, keys: under.keys });
    const over = [
      summary.latencyMs.p99 >= FUZZ_CEILINGS.p99Ms ? `p99 ${summary.latencyMs.p99} ms` : '',
      summary.latencyMs.max >= FUZZ_CEILINGS.maxMs ? `max ${summary.latencyMs.max} ms` : '',
      summary.heapGrowthMb >= FUZZ_CEILINGS.heapGrowthMb ? `heap +${summary.heapGrowthMb} MB` : '',
    ].filter(Boolean);
    let afterwards = 'ok';
    await checkStillProcessing(under.pipeline, under.analytics, under.keys).catch((err: unknown) => (afterwards = (err as Error).message));
    console.log(
      JSON.stringify({ ...summary, failures: summary.failures.slice(0, 50), failureCount: summary.failures.length, overCeilings: over, afterwards }, null, 2),
    );
    process.exitCode = summary.failures.length > 0 || over.length > 0 || afterwards !== 'ok' ? 1 : 0;
  } finally {
    await under.stop();
  }
}

main().then(
  () => process.exit(),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
