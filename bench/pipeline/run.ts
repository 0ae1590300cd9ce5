/**
 * End-to-end pipeline benchmark (issue 11): the fault suite's harness (dev/src/faults) with every
 * stage in its own process — gateway, validator, segmenter sink on chdb — on a Kafka broker and
 * registry of its own. For each offered load, 50-event uploads are sent at a steady rate for
 * `--seconds`; then, once every acknowledged event is a row:
 *   - sustained events/s: rows of the phase / (last row inserted − first event received);
 *   - freshness: `inserted_at − received_at` per row (the gateway stamps received_at, the insert
 *     stamps inserted_at: when the row became queryable), p50/p95/p99;
 *   - bare: the same rows inserted again by the sink process into a copy of `events` as value arrays
 *     (JSONCompactEachRow, the sink's format), 10,000 per insert, timed alone — the reference the
 *     pipeline is set against, in the same run.
 *
 * A warm-up at the first rate for `--warmup` seconds comes first (untimed, until stored).
 *
 *   npm run bench:pipeline -- [--rates 5000,20000] [--seconds 30] [--warmup 30]
 */
import { awaitAllStored } from '../../dev/src/faults/counts';
import { KEYS, sideCall } from '../../dev/src/faults/harness';
import { bounded, killAllChildren, runHarnessScript } from '../../dev/src/faults/processes';
import { startLoad } from '../../dev/src/faults/load';
import { benchHarness, warmUp } from './bench-harness';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? dflt) : dflt;
};
const RATES = arg('rates', '5000,20000').split(',').map(Number);
const SECONDS = Number(arg('seconds', '30'));
const WARMUP_SECONDS = Number(arg('warmup', '30'));

interface Phase {
  offered: number;
  acked: number;
  rows: number;
  lost: number;
  sustained: number;
  p50: number;
  p95: number;
  p99: number;
  bare: number;
}

async function main() {
  const h = benchHarness('bench-pipeline').harness;
  const runId = Date.now().toString(36);
  const phases: Phase[] = [];
  try {
    await bounded(h.start(), 5 * 60_000, 'the stack and services to start');
    await warmUp(h, `warm-${runId}`, { seconds: WARMUP_SECONDS, eventsPerSecond: RATES[0] });
    for (const rate of RATES) {
      const tag = `p${rate}-${runId}`;
      console.log(`--- ${rate} events/s offered for ${SECONDS} s`);
      const load = startLoad({ gatewayUrl: h.gatewayUrl, key: KEYS.sdk, tag, seed: rate, rate: rate / 50, maxInFlight: 512 });
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      const tally = await load.stop();
      const { counts } = await awaitAllStored((s, p) => h.query(s, p), tally, [tag], { timeoutMs: 300_000, since: Date.now() });
      const where = `startsWith(ifNull(property, ''), '${tag}:')`;
      const [f] = await h.query<Record<string, number>>(
        `SELECT count() AS rows, dateDiff('millisecond', min(received_at), max(inserted_at)) AS span,
                quantiles(0.5, 0.95, 0.99)(dateDiff('millisecond', received_at, inserted_at)) AS q
         FROM events WHERE ${where}`,
      );
      const q = (f as any).q as number[];
      const bare = await sideCall<{ rows: number; ms: number }>(h.ports.sinkQuery, '/bare-insert', { where, batch: 10_000 }, 600_000);
      const phase = {
        offered: rate,
        acked: counts.acked,
        rows: Number(f?.rows),
        lost: counts.lost,
        sustained: Math.round(Number(f?.rows) / (Number(f?.span) / 1000)),
        p50: q[0] ?? NaN,
        p95: q[1] ?? NaN,
        p99: q[2] ?? NaN,
        bare: Math.round(bare.rows / (bare.ms / 1000)),
      };
      phases.push(phase);
      console.log(JSON.stringify(phase));
    }
  } finally {
    await bounded(h.stop(), 3 * 60_000, 'the harness to stop').catch((err) => console.error(err));
    killAllChildren();
  }
  console.log(
    '\n| offered events/s | acked | rows | lost | sustained events/s | freshness p50 / p95 / p99 ms | bare compact insert rows/s | pipeline / bare |',
  );
  console.log('|---:|---:|---:|---:|---:|---|---:|---:|');
  for (const p of phases) {
    console.log(
      `| ${p.offered} | ${p.acked} | ${p.rows} | ${p.lost} | ${p.sustained} | ${p.p50} / ${p.p95} / ${p.p99} | ${p.bare} | ${(p.sustained / p.bare).toFixed(2)} |`,
    );
  }
}

runHarnessScript(main);
