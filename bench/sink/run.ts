/**
 * Sink throughput into chdb (issue 6), in one run beside a bare `INSERT … FORMAT JSONEachRow` of
 * the same rows, so both numbers share the machine's state. Not part of the test run.
 *
 *   npx tsx bench/sink/run.ts [--rows 200000] [--batch 10000] [--slice N] [--rounds 3] [--bus-concurrency N] [--trigger]
 *
 * - bare: the already-mapped rows (objects) inserted through the Analytics adapter as JSONEachRow,
 *   `--batch` rows per insert: the reference;
 * - bare compact: the same rows as value arrays with the events column list (JSONCompactEachRow),
 *   the format the sink inserts in: what the engine alone allows the sink;
 * - bare TabSeparated: the same value arrays as TSV through the client (formats.ts);
 * - bare RowBinary (file): the same events written as RowBinary by hand (formats.ts, the production
 *   RowBinaryWriter) and inserted with Analytics.insertRowBinary (on chdb: a file it reads), the
 *   fastest insert chdb takes for these rows: the reference of issue 28;
 * - sink: the same events as Avro messages (Confluent wire format) on events.core of the in-process
 *   bus, consumed by `createSink` (decode through the registry → canonicalFromAvro → row → batched
 *   insert → commit), timed from start to the last row inserted. The bus hands out `--batch`
 *   messages per batch, so both sides insert the same block size. With `--trigger` the sink has the
 *   segment engine's hook (issue 13): after each handler call's insert, the work items of five
 *   segments per app (one per event name, one on any event, one on the user catalog) are computed
 *   from the stored rows, as the engine does before producing them (the produce itself is left out).
 * Every phase reports rows/s and the process CPU per row (all threads). Rounds run the phases in
 * turn, each on a table emptied before and after it (so background merges of one phase do not run
 * into the next); the median round (by sink / fastest bare format) is reported.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { runMigrations } from '@evp/clickhouse';
import { allTopics, createLogger, topics, type Analytics } from '@evp/core';
import { createChdbAnalytics, createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { blockEventSchema, blockSubject, canonicalToAvro, type CanonicalEvent } from '@evp/schemas';
import { RowBinaryWriter } from '@evp/clickhouse';
import { EVENT_COLUMNS, EVENTS_ROW_BINARY, createSink, eventRow, eventValues, workForRows, type InsertedRow, type SegmentEntry } from '@evp/segmenter';
import { makeEvents } from './dataset';
import { benchClient, insertRowBinaryDirect, insertTsv, rowBinaryEvent } from './formats';
import { numberOption } from '../options';

const ROWS = numberOption('rows', 200_000);
const BATCH = numberOption('batch', 10_000);
const ROUNDS = numberOption('rounds', 3);
// Unset keeps the sink's own slice size (SINK_SLICE_ROWS).
const SLICE = process.argv.includes('--slice') ? numberOption('slice', 10_000) : undefined;
// Handler calls the bus runs at once (SINK_BUS_CONCURRENCY); unset keeps the sink's default.
const BUS_CONCURRENCY = process.argv.includes('--bus-concurrency') ? numberOption('bus-concurrency', 1) : undefined;
const TRIGGER = process.argv.includes('--trigger');

/** The segments the trigger matches rows against: per app, one per event name, one on any event, one on user records. */
const triggerSegments = (app: string): SegmentEntry[] =>
  [['page'], ['app'], ['media'], ['*'], ['identify']].map((events, i) => ({
    app_id: app,
    id: `seg-${i}`,
    compiled: { sql: '', params: {}, events, catalogs: i === 4 ? ['user'] : [], timeDriven: false, segments: [] },
  }));
let workItems = 0;
const trigger = async (rows: InsertedRow[]) => {
  workItems += workForRows(rows, triggerSegments, 1_000, Date.now()).length;
};

async function count(analytics: Analytics, table: string): Promise<number> {
  return (await analytics.query<{ c: number }>(`SELECT count() AS c FROM ${table}`))[0]?.c ?? 0;
}

/** One phase's rate and the process CPU (every thread: JS and chdb's) it took per row. */
interface Phase {
  rowsPerSecond: number;
  cpuUsPerRow: number;
}

// A full garbage collection before each phase: the garbage of one phase (the sink's 100,000
// messages, bus and registry) is not collected, and counted, in the next one.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Times `run` in wall clock and in process CPU time (user + system, all threads). */
async function measured(rows: number, run: () => Promise<void>): Promise<Phase> {
  collectGarbage();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { rowsPerSecond: rows / seconds, cpuUsPerRow: (used.user + used.system) / rows };
}

async function bare(analytics: Analytics, rows: object[], columns?: readonly string[]): Promise<Phase> {
  await analytics.command('TRUNCATE TABLE events_bare');
  const phase = await measured(rows.length, async () => {
    for (let i = 0; i < rows.length; i += BATCH) await analytics.insert('events_bare', rows.slice(i, i + BATCH), columns ? { columns } : {});
  });
  if ((await count(analytics, 'events_bare')) !== rows.length) throw new Error('bare insert lost rows');
  // Emptied at once, so background merges of these parts do not run into the next measurement.
  await analytics.command('TRUNCATE TABLE events_bare');
  return phase;
}

/** The same value arrays as TabSeparated, straight through the client on chdb (formats.ts). */
async function bareTsv(analytics: Analytics, client: ReturnType<typeof benchClient>, values: unknown[][]): Promise<Phase> {
  await analytics.command('TRUNCATE TABLE events_bare');
  const phase = await measured(values.length, async () => {
    for (let i = 0; i < values.length; i += BATCH) await insertTsv(client, 'bench.events_bare', EVENT_COLUMNS, values.slice(i, i + BATCH));
  });
  if ((await count(analytics, 'events_bare')) !== values.length) throw new Error('bare TSV insert lost rows');
  await analytics.command('TRUNCATE TABLE events_bare');
  return phase;
}

/**
 * The same events as RowBinary written by hand (formats.ts), inserted as the sink inserts its rows
 * (`insertRowBinary`: a file of its own per insert, removed afterwards) or, `direct`, as bare as chdb
 * allows: one file reused, the statement run as it is (insertRowBinaryDirect, bench only).
 */
async function bareRowBinary(analytics: Analytics, events: CanonicalEvent[], direct?: string): Promise<Phase> {
  await analytics.command('TRUNCATE TABLE events_bare');
  const writer = new RowBinaryWriter();
  const { columns, types } = EVENTS_ROW_BINARY;
  const phase = await measured(events.length, async () => {
    for (let i = 0; i < events.length; i += BATCH) {
      const rows = events.slice(i, i + BATCH).map((e) => rowBinaryEvent(writer, e));
      if (direct) await insertRowBinaryDirect(analytics, direct, 'events_bare', { columns, types, rows });
      else await analytics.insertRowBinary('events_bare', { columns, types, rows });
    }
  });
  if ((await count(analytics, 'events_bare')) !== events.length) throw new Error('bare RowBinary insert lost rows');
  await analytics.command('TRUNCATE TABLE events_bare');
  return phase;
}

async function sink(analytics: Analytics, events: CanonicalEvent[]): Promise<Phase> {
  await analytics.command('TRUNCATE TABLE events');
  const bus = createInProcessBus({ maxBatchSize: BATCH });
  await bus.ensureTopics(allTopics());
  const registry = createInProcessRegistry();
  const topic = topics.events('core');
  const id = await registry.register(blockSubject(topic), blockEventSchema('core') as object);
  const producer = await bus.producer();
  const messages = await Promise.all(events.map(async (e) => ({ key: `${e.app_id}:${e.user_id}`, value: await registry.encode(id, canonicalToAvro(e)) })));
  for (let i = 0; i < messages.length; i += 10_000) await producer.send(topic, messages.slice(i, i + 10_000));
  const s = createSink({
    bus,
    registry,
    analytics,
    logger: createLogger('bench', 'silent'),
    config: {
      batchMaxRows: BATCH,
      batchMaxWaitMs: 1_000,
      ...(SLICE ? { sliceRows: SLICE } : {}),
      ...(BUS_CONCURRENCY ? { busConcurrency: BUS_CONCURRENCY } : {}),
    },
    ...(TRIGGER ? { onInserted: trigger } : {}),
  });
  const inserted = s.metrics.getSingleMetric('segmenter_sink_rows_inserted_total');
  const phase = await measured(events.length, async () => {
    await s.start();
    for (;;) {
      if (((await inserted?.get())?.values[0]?.value ?? 0) >= events.length) break;
      await new Promise((r) => setTimeout(r, 2));
    }
  });
  await s.stop();
  await bus.close();
  if ((await count(analytics, 'events')) !== events.length) throw new Error('sink lost or duplicated rows');
  await analytics.command('TRUNCATE TABLE events');
  return phase;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'evp-bench-sink-'));
  const analytics = createChdbAnalytics({ path: dir, database: 'bench' });
  try {
    await runMigrations({ analytics });
    await analytics.command('CREATE TABLE IF NOT EXISTS events_bare AS events');
    const events = makeEvents(ROWS);
    const rows = events.map(eventRow);
    const values = events.map(eventValues);
    const client = benchClient(dir);
    const results: { bare: number; compact: number; tsv: number; rowBinary: number; sink: number; fastest: number; fastestClient: number; cpuRatio: number }[] =
      [];
    const directFile = join(dir, 'rowbinary-direct.bin');
    const show = (p: Phase) => `${Math.round(p.rowsPerSecond)} (${p.cpuUsPerRow.toFixed(1)} µs CPU/row)`;
    for (let r = 0; r < ROUNDS; r++) {
      const b = await bare(analytics, rows);
      const c = await bare(analytics, values, EVENT_COLUMNS);
      const t = await bareTsv(analytics, client, values);
      const viaPort = await bareRowBinary(analytics, events);
      const direct = await bareRowBinary(analytics, events, directFile);
      const s = await sink(analytics, events);
      // The reference: the faster of the two RowBinary inserts in this round.
      const rb = direct.rowsPerSecond >= viaPort.rowsPerSecond ? direct : viaPort;
      const fastestClient = Math.max(b.rowsPerSecond, c.rowsPerSecond, t.rowsPerSecond);
      const fastest = Math.max(fastestClient, rb.rowsPerSecond);
      results.push({
        bare: b.rowsPerSecond,
        compact: c.rowsPerSecond,
        tsv: t.rowsPerSecond,
        rowBinary: rb.rowsPerSecond,
        sink: s.rowsPerSecond,
        fastest,
        fastestClient,
        cpuRatio: rb.cpuUsPerRow / s.cpuUsPerRow,
      });
      console.error(
        `round ${r + 1}: rows/s JSONEachRow ${show(b)}, JSONCompactEachRow ${show(c)}, TabSeparated ${show(t)}, RowBinary via insertRowBinary ${show(viaPort)}, RowBinary direct ${show(direct)}, sink ${show(s)}: ` +
          `${(s.rowsPerSecond / fastest).toFixed(2)}× the fastest bare format, ${(s.rowsPerSecond / fastestClient).toFixed(2)}× the fastest through the client; ` +
          `sink / the faster RowBinary ${(s.rowsPerSecond / rb.rowsPerSecond).toFixed(2)}× in rows/s, ${(rb.cpuUsPerRow / s.cpuUsPerRow).toFixed(2)}× in CPU per row (its µs / the sink's)`,
      );
    }
    const median = [...results].sort((a, b) => a.sink / a.fastest - b.sink / b.fastest)[Math.floor(results.length / 2)] as (typeof results)[number];
    console.log(
      `| rows | rows/insert | JSONEachRow rows/s | JSONCompactEachRow rows/s | TabSeparated rows/s | RowBinary (file) rows/s | sink rows/s | sink / fastest bare | sink / fastest via client | RowBinary / sink CPU per row |`,
    );
    console.log(`|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|`);
    console.log(
      `| ${ROWS} | ${BATCH} | ${Math.round(median.bare)} | ${Math.round(median.compact)} | ${Math.round(median.tsv)} | ${Math.round(median.rowBinary)} | ${Math.round(median.sink)} | ${(median.sink / median.fastest).toFixed(2)} | ${(median.sink / median.fastestClient).toFixed(2)} | ${median.cpuRatio.toFixed(2)} |`,
    );
    if (TRIGGER) console.error(`trigger: ${workItems} work items computed from the stored rows`);
    await client.close();
  } finally {
    await analytics.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
