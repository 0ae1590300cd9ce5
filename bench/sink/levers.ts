/**
 * Engine-side levers for the sink's insert into chdb (issue 28): the same `events` rows inserted as
 * JSONCompactEachRow (the sink's format) through @clickhouse/client on chdb's connection, one lever
 * changed per phase, in the same run, so each is a ratio to the sink's current settings. Not part of
 * the test run.
 *
 *   npx tsx bench/sink/levers.ts [--rows 50000] [--batch 10000] [--rounds 3]
 *
 * Phases (each on its own table, emptied before and after it):
 * - current: the `events` table and the settings the Analytics adapter sends today;
 * - optimize_on_insert=0: ReplacingMergeTree does not collapse duplicates inside the inserted block
 *   (FINAL and merges still do);
 * - no parallel parsing: input_format_parallel_parsing=0 (the parser's thread pool on two cores);
 * - String not LowCardinality: a copy of `events` whose LowCardinality columns are plain String;
 * - props/client as String: the two JSON columns as their JSON text (what parsing JSON columns costs);
 * - Null engine: a copy of `events` that stores nothing (the parse alone);
 * - 5,000 and 25,000 rows per insert (the insert size).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseSettings } from '@clickhouse/client';
import { runMigrations } from '@evp/clickhouse';
import { EVENT_COLUMNS, eventValues } from '@evp/segmenter';
import { createChdbAnalytics } from '@evp/embedded';
import { makeEvents } from './dataset';
import { benchClient } from './formats';
import { numberOption } from '../options';

const ROWS = numberOption('rows', 50_000);
const BATCH = numberOption('batch', 10_000);
const ROUNDS = numberOption('rounds', 3);

const CURRENT: ClickHouseSettings = { input_format_try_infer_dates: 0, input_format_try_infer_datetimes: 0, insert_deduplication_token: '' };

interface Lever {
  name: string;
  table: string;
  settings: ClickHouseSettings;
  batch: number;
  /** Row values as sent (the JSON columns turned into text for the String-column table). */
  values?: (v: unknown[]) => unknown[];
}

const PROPS = EVENT_COLUMNS.indexOf('props');
const CLIENT = EVENT_COLUMNS.indexOf('client');
const asText = (v: unknown[]) => v.map((x, i) => (i === PROPS || i === CLIENT ? JSON.stringify(x) : x));

const LEVERS: Lever[] = [
  { name: 'current', table: 'events', settings: CURRENT, batch: BATCH },
  { name: 'optimize_on_insert=0', table: 'events', settings: { ...CURRENT, optimize_on_insert: 0 }, batch: BATCH },
  { name: 'no parallel parsing', table: 'events', settings: { ...CURRENT, input_format_parallel_parsing: 0 }, batch: BATCH },
  { name: 'String not LowCardinality', table: 'events_plain', settings: CURRENT, batch: BATCH },
  { name: 'props/client as String', table: 'events_text', settings: CURRENT, batch: BATCH, values: asText },
  { name: 'Null engine (parse only)', table: 'events_null', settings: CURRENT, batch: BATCH },
  { name: '5,000 rows per insert', table: 'events', settings: CURRENT, batch: 5_000 },
  { name: '25,000 rows per insert', table: 'events', settings: CURRENT, batch: 25_000 },
];

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'evp-bench-levers-'));
  const analytics = createChdbAnalytics({ path: dir, database: 'bench' });
  const client = benchClient(dir);
  try {
    await runMigrations({ analytics });
    const ddl =
      (
        await analytics.query<{ statement: string }>("SELECT create_table_query AS statement FROM system.tables WHERE database = 'bench' AND name = 'events'")
      )[0]?.statement ?? '';
    const plain = ddl.replace('bench.events', 'bench.events_plain').replace(/LowCardinality\((Nullable\(String\)|String)\)/g, '$1');
    const text = ddl.replace('bench.events', 'bench.events_text').replace(/`(props|client)` JSON/g, '`$1` String');
    await analytics.command(plain);
    await analytics.command(text);
    await analytics.command('CREATE TABLE events_null AS events ENGINE = Null');
    const values = makeEvents(ROWS).map((e) => eventValues(e) as unknown[]);
    const perLever = new Map<string, { rps: number[]; cpu: number[] }>(LEVERS.map((l) => [l.name, { rps: [], cpu: [] }]));
    // Round 0 warms up the JIT and the engine and is not counted.
    for (let r = 0; r <= ROUNDS; r++) {
      for (const lever of LEVERS) {
        const rows = lever.values ? values.map(lever.values) : values;
        const truncate = () => (lever.table === 'events_null' ? Promise.resolve() : analytics.command(`TRUNCATE TABLE ${lever.table}`));
        await truncate();
        const cpu = process.cpuUsage();
        const started = performance.now();
        for (let i = 0; i < rows.length; i += lever.batch) {
          await client.insert({
            table: `bench.${lever.table}`,
            values: rows.slice(i, i + lever.batch),
            format: 'JSONCompactEachRow',
            columns: EVENT_COLUMNS,
            clickhouse_settings: lever.settings,
          });
        }
        const seconds = (performance.now() - started) / 1000;
        const used = process.cpuUsage(cpu);
        if (lever.table !== 'events_null') {
          const n = (await analytics.query<{ c: number }>(`SELECT count() AS c FROM ${lever.table}`))[0]?.c;
          if (n !== rows.length) throw new Error(`${lever.name}: ${String(n)} rows stored, ${rows.length} inserted`);
        }
        await truncate();
        if (r === 0) continue;
        const m = perLever.get(lever.name) as { rps: number[]; cpu: number[] };
        m.rps.push(rows.length / seconds);
        m.cpu.push((used.user + used.system) / rows.length);
      }
      console.error(r === 0 ? 'warm-up round done' : `round ${r} done`);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const base = perLever.get('current') as { rps: number[]; cpu: number[] };
    console.log('| lever | rows/s (median) | CPU µs/row (median) | CPU / current |');
    console.log('|---|---:|---:|---:|');
    for (const lever of LEVERS) {
      const m = perLever.get(lever.name) as { rps: number[]; cpu: number[] };
      console.log(`| ${lever.name} | ${Math.round(median(m.rps))} | ${median(m.cpu).toFixed(1)} | ${(median(m.cpu) / median(base.cpu)).toFixed(2)} |`);
    }
  } finally {
    await client.close();
    await analytics.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
