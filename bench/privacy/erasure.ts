/**
 * Erasure in ClickHouse (issue 40): `--requests` erasure requests (one user id each, 1,000 by default)
 * carried out by the segmenter's privacy processor (createPrivacyService(...).runOnce: one pass takes
 * every request accepted → completed) against `--events` events (10,000,000 by default) in chdb.
 *
 * Printed:
 * - the statements the run issued, per kind and per table, through a wrapper of the Analytics port:
 *   the deletes must be one DELETE and one APPLY DELETED MASK per table for the whole batch (per
 *   partition of a table over CHUNK_ROWS rows, privacy/chunks.ts), and the evidence one count per
 *   table (per partition) per phase (before, after, after with the mask ignored);
 * - the time of each step, from the requests' own stored steps;
 * - the p50/p99 of an analyst query mix run during the erasure, beside the same mix run without it
 *   just before (the baseline), in the same process, as a ratio;
 * - the machine's load average at the start and the end (the figures depend on what else runs).
 *
 *   npm run bench:privacy -- [--events 10000000] [--requests 1000] [--baseline-queries 300] [--dir PATH]
 *
 * The events (bench/segments' generator, app `bench`, users u000000…u099999) are generated once into
 * `--dir` (default .local/bench-privacy). Each run erases the first `--requests` users still present,
 * so runs go on erasing different users of the same data set (each run shrinks it by ≈ 1%).
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { runMigrations } from '@evp/clickhouse';
import { createLogger, type Analytics } from '@evp/core';
import { createChdbAnalytics } from '@evp/embedded';
import { createPrivacyService } from '@evp/segmenter';
import { APP, NOW, historyInsert } from '../segments/dataset';
import { numberOption, textOption } from '../options';

const EVENTS = numberOption('events', 10_000_000);
const REQUESTS = numberOption('requests', 1000);
const BASELINE_QUERIES = numberOption('baseline-queries', 300);
const DIR = textOption('dir', resolve(__dirname, '..', '..', '.local', 'bench-privacy'));
const INSERTS = 10;
/** A statement slower than this is printed as it ends. */
const SLOW_MS = 5000;

const since = `toDateTime64('${NOW.toISOString().slice(0, 23).replace('T', ' ')}', 3, 'UTC') - toIntervalDay(30)`;
/** What an analyst runs while erasures go on: a breakdown, a daily active count, one user's history. */
const MIX = [
  `SELECT name, count() AS n FROM events WHERE app_id = '${APP}' GROUP BY name`,
  `SELECT toDate(time) AS d, uniq(user_id) AS n FROM events WHERE app_id = '${APP}' AND time > ${since} GROUP BY d ORDER BY d`,
  `SELECT count() AS n FROM events WHERE app_id = '${APP}' AND user_id = 'u050000'`,
];

/**
 * The Analytics port with every statement counted and timed: kind (the first word, or ALTER … APPLY)
 * and table. The time is the call's (queueing in the session included): which statement a mix query
 * waited behind.
 */
function counting(analytics: Analytics) {
  const counts = new Map<string, number>();
  const slowest = new Map<string, number>();
  const progress = { report: true };
  const timed = async <T>(sql: string, run: () => Promise<T>): Promise<T> => {
    const s = sql.trim().replace(/\s+/g, ' ');
    const kind = /APPLY DELETED MASK/.test(s) ? 'APPLY DELETED MASK' : (s.split(' ')[0] ?? '').toUpperCase();
    const table = /^(DELETE FROM|ALTER TABLE|INSERT INTO|TRUNCATE TABLE) (\w+)/.exec(s)?.[2] ?? /FROM (\w+)/.exec(s)?.[1] ?? '?';
    const key = `${kind} ${table}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const t = performance.now();
    try {
      return await run();
    } finally {
      const ms = performance.now() - t;
      slowest.set(key, Math.max(slowest.get(key) ?? 0, ms));
      // A run that does not end in the time there is still leaves its progress in the output.
      if (progress.report && ms > SLOW_MS) console.log(`  ${new Date().toISOString()} ${key}: ${Math.round(ms)} ms`);
    }
  };
  const wrapped: Analytics = {
    ...analytics,
    command: (sql, params) => timed(sql, () => analytics.command(sql, params)),
    query: (sql, params) => timed(sql, () => analytics.query(sql, params)),
    insert: (table, rows) => timed(`INSERT INTO ${table}`, () => analytics.insert(table, rows)),
  };
  return { analytics: wrapped, counts, slowest, progress };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};

async function timedQuery(a: Analytics, i: number): Promise<number> {
  const t = performance.now();
  await a.query(MIX[i % MIX.length] ?? '');
  return performance.now() - t;
}

async function ensureEvents(a: Analytics): Promise<void> {
  const [row] = await a.query<{ n: string }>(`SELECT count() AS n FROM events WHERE app_id = '${APP}'`);
  // Earlier runs erased ≈ 1% each: regenerate once half is gone or the size asked for differs.
  if (Number(row?.n) > EVENTS / 2 && Number(row?.n) <= EVENTS) return;
  console.log(`generating ${EVENTS} events (once, into ${DIR})`);
  await a.command('TRUNCATE TABLE events');
  const t0 = Date.now();
  const per = Math.ceil(EVENTS / INSERTS);
  for (let i = 0; i < INSERTS; i++) {
    await a.command(historyInsert(APP, Math.min(per, EVENTS - i * per), i * per));
    console.log(`  ${Math.min((i + 1) * per, EVENTS)} events (${Math.round((Date.now() - t0) / 1000)} s)`);
  }
  await a.command('OPTIMIZE TABLE events FINAL');
}

async function main() {
  const base = createChdbAnalytics({ path: DIR, database: 'privbench' });
  try {
    await runMigrations({ analytics: base });
    await ensureEvents(base);
    const [present] = await base.query<{ n: string }>(`SELECT count() AS n FROM events`);
    const users = (
      await base.query<{ user_id: string }>(`SELECT user_id FROM events WHERE app_id = '${APP}' GROUP BY user_id ORDER BY user_id LIMIT ${REQUESTS}`)
    ).map((r) => r.user_id);
    console.log(`${present?.n} events; erasing ${users.length} users (${users[0]}…${users.at(-1)}), one request each`);

    // Baseline: the mix alone (after one untimed round for caches).
    for (let i = 0; i < MIX.length; i++) await timedQuery(base, i);
    const alone: number[] = [];
    for (let i = 0; i < BASELINE_QUERIES; i++) alone.push(await timedQuery(base, i));

    const { analytics, counts, slowest, progress } = counting(base);
    const privacy = createPrivacyService({ analytics, logger: createLogger('bench', 'silent'), hashKey: 'bench-key' });
    const created: string[] = [];
    for (const u of users) created.push((await privacy.createErasure(APP, [{ kind: 'user', id: u }])).id);
    counts.clear(); // the statements of the erasure run only (creating requests is the route's work)
    slowest.clear();

    // The erasure run, and the same mix in a loop beside it until it ends.
    let running = true;
    const during: number[] = [];
    const mix = (async () => {
      for (let i = 0; running; i++) during.push(await timedQuery(base, i));
    })();
    const load = () =>
      loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
    console.log(`load average before the run: ${load()}`);
    const t0 = performance.now();
    await privacy.runOnce();
    const runMs = performance.now() - t0;
    running = false;
    await mix;
    // Taken before the bench's own reads of the requests below, which go through the same wrapper
    // (the 1,002 reads of privacy_requests in the first 1M run's figures were mostly those).
    const runCounts = new Map(counts);
    const runSlowest = new Map(slowest);
    progress.report = false;

    // The time of each step, from the requests' stored steps (first request in → last out).
    const reqs = await Promise.all(created.map((id) => privacy.get(APP, 'erasure', id)));
    const states = reqs.map((r) => (r && 'steps' in r ? r.state : 'missing'));
    const bad = states.filter((s) => s !== 'completed').length;
    const at = (state: string, pick: (a: number, b: number) => number) =>
      reqs
        .flatMap((r) => (r && 'steps' in r ? r.steps : []))
        .filter((s) => s.state === state)
        .map((s) => Date.parse(s.at))
        // Not reduce(pick): reduce passes the index and the array too, and Math.max of an array is NaN.
        .reduce((a, b) => pick(a, b));
    const steps = ['accepted', 'suppressed', 'deleting', 'verifying', 'completed'];
    console.log(`load average after the run: ${load()}`);
    console.log(`\nerasure run: ${Math.round(runMs)} ms for ${created.length} requests; ${created.length - bad} completed, ${bad} not`);
    console.log('step (all requests)                | ms');
    for (let i = 1; i < steps.length; i++) {
      const from = i === 1 ? Math.round(t0 + performance.timeOrigin) : at(steps[i - 1] ?? '', Math.max);
      console.log(`${steps[i - 1]} → ${steps[i]} | ${at(steps[i] ?? '', Math.max) - from}`);
    }

    console.log('\nstatements issued by the run (kind table: count, slowest ms)');
    for (const [k, n] of [...runCounts].sort()) console.log(`  ${k}: ${n}, ${Math.round(runSlowest.get(k) ?? 0)}`);
    const deletes = [...runCounts].filter(([k]) => k.startsWith('DELETE ') || k.startsWith('APPLY '));
    // One DELETE and one APPLY DELETED MASK per chunk of each table (the whole table, or each partition of a large one).
    const tables = [...new Set(deletes.map(([k]) => k.split(' ').at(-1) ?? ''))];
    const perTable = tables.every((t) => runCounts.get(`DELETE ${t}`) === runCounts.get(`APPLY DELETED MASK ${t}`));
    // The evidence: one count per table (per partition of a large one) per phase (before, after, after with the mask ignored) for the whole batch.
    const evidence = privacy.targets.map((t) => `${t.table} ${runCounts.get(`SELECT ${t.table}`) ?? 0}`);
    console.log(`counts per table for the batch (3 per chunk: one per phase): ${evidence.join(', ')}`);
    console.log(
      `deletes: ${deletes.reduce((n, [, c]) => n + c, 0)} statements over ${privacy.targets.length} tables + the work table; one DELETE and one APPLY per chunk of each: ${perTable}`,
    );

    const p = (xs: number[], q: number) => pct(xs, q).toFixed(1);
    console.log(`\n${present?.n} events, ${created.length} erasures; analyst mix (${MIX.length} queries in turn):\n`);
    console.log('| figure | mix alone (baseline) | mix during the erasure run | ratio |');
    console.log('| --- | ---: | ---: | ---: |');
    console.log(`| queries | ${alone.length} | ${during.length} | |`);
    for (const q of [50, 99]) console.log(`| p${q} ms | ${p(alone, q)} | ${p(during, q)} | ${(pct(during, q) / pct(alone, q)).toFixed(2)}× |`);
    if (bad > 0 || !perTable) process.exitCode = 1;
  } finally {
    await base.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
