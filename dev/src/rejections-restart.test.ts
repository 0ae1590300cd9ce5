import { rawHeaders } from '@evp/contract';
import { allTopics, createLogger, topics, type Analytics, type OutgoingMessage } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { createSink } from '@evp/segmenter';
import { useMigratedChdb, waitFor } from '@evp/testkit';
import { startValidator } from '@evp/validator';

// `npm start` restarted on one chdb data directory: the in-process bus starts every topic at offset
// 0 again, so each run's rejections sit at the offsets of the previous run's. Rejections are keyed by
// content (request, position, payload), and the sink's dedup by row ids, so every distinct rejection
// is one row and nothing new is taken for a replay.
const chdb = useMigratedChdb('restarts');
const logger = createLogger('restarts', 'silent');
const app = 'app-restarts';
let analytics: Analytics;

beforeAll(async () => {
  analytics = chdb.analytics;
});

const badRate = (i: number) => ({
  time: '2023-11-15 03:43:22.000',
  __ol: true,
  name: 'rate',
  property: 'x',
  ctx: { rate_value: 6 + i, type: 'app', subject_id: 's' },
});
const envelope = (data: unknown[]) => ({
  id: 'user-42',
  tz: '+05:30',
  internal: { s_id: 'user-42_1700000000000_0', sdk: 'android/2.4.1', a_id: 'com.example.app', a_ver: '1.2.3 (45)', d_id: 'device-9', os: 'android' },
  data,
});

/** One run's uploads as the gateway writes them: 11 rejections (9 bad events in one upload, 2 unreadable bodies). */
/**
 * When the gateway received this test's uploads: a minute ago, fixed for the whole file (each run's
 * replay must be byte-identical). Recent, because rejected rows expire 30 days after it by default
 * (docs/privacy.md, "Retention per app"): a 2023 receipt would be gone at its first merge.
 */
const RECEIVED = Date.now() - 60_000;

function uploads(run: number): OutgoingMessage[] {
  const raw = (i: number, body: string): OutgoingMessage => ({
    key: `${app}:user-42`,
    value: Buffer.from(body),
    headers: {
      [rawHeaders.appId]: app,
      [rawHeaders.requestId]: `run${run}-req${i}`,
      [rawHeaders.receivedAt]: String(RECEIVED + run * 1_000 + i),
      [rawHeaders.keyId]: 'k-sdk',
      [rawHeaders.payloadKind]: 'log',
    },
  });
  return [raw(0, JSON.stringify(envelope(Array.from({ length: 9 }, (_, i) => badRate(i))))), raw(1, '{not json'), raw(2, '{not json')];
}

/** One `npm start`: a fresh in-process bus (offsets from 0), validator and sink, on the shared chdb. */
async function run(messages: OutgoingMessage[]): Promise<void> {
  const bus = createInProcessBus({ retryDelayMs: 5, maxRetryDelayMs: 20 });
  await bus.ensureTopics(allTopics());
  const registry = createInProcessRegistry();
  const validator = await startValidator({ bus, registry, logger });
  const sink = createSink({ bus, registry, analytics, logger, config: { batchMaxWaitMs: 20 } });
  await sink.start();
  const producer = await bus.producer();
  try {
    await producer.send(topics.raw, messages);
    const inserted = async () =>
      (await sink.metrics.getSingleMetric('segmenter_sink_rows_inserted_total')!.get()).values.find((v) => v.labels.table === 'rejected')?.value ?? 0;
    await waitFor(async () => (await inserted()) === 11 || undefined, { timeoutMs: 20_000, what: "this run's 11 rejected rows" });
  } finally {
    await Promise.all([validator.stop(), sink.stop()]);
    await producer.close();
    await bus.close();
  }
}

const counts = async () =>
  (
    await analytics.query<{ rows: number; ids: number; final: number }>(
      `SELECT count() AS rows, uniqExact(rejection_id) AS ids, (SELECT count() FROM rejected FINAL WHERE app_id = {app:String}) AS final FROM rejected WHERE app_id = {app:String}`,
      { app },
    )
  )[0];

describe('rejections across restarts whose offsets start at 0 again (embedded, one chdb data dir)', () => {
  it('keeps one row per distinct rejection: three runs of the same 11 give 33, a replay of one run adds none', async () => {
    for (const r of [1, 2, 3]) await run(uploads(r));
    expect(await counts()).toEqual({ rows: 33, ids: 33, final: 33 });
    const perRun = await analytics.query<{ kind: string; c: number }>(
      `SELECT kind, count() AS c FROM rejected FINAL WHERE app_id = {app:String} AND startsWith(request_id, 'run2-') GROUP BY kind ORDER BY kind`,
      { app },
    );
    expect(perRun).toEqual([
      { kind: 'parse_violation', c: 2 },
      { kind: 'schema_violation', c: 9 },
    ]);
    // The same raw messages again (same request ids and receipt times): the same ids, no new row.
    await run(uploads(2));
    expect(await counts()).toEqual({ rows: 33, ids: 33, final: 33 });
  });
});
