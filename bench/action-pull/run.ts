/**
 * Action pull benchmark on real Redis (issue 5): single-user pulls at a fixed arrival rate and at
 * full speed, and `*` pulls of 1,000 actions (cached and one-off). Every scenario runs right after
 * its own baseline, in the same run, with the same arrival rate or concurrency, so each row prints
 * a ratio that means something even when the shared machine is busy:
 * - store scenarios: a bare `EVALSHA` of `return 1` on the same connection (one Redis round trip
 *   with no work), or for `*` pulls a bare `GET` of a value as large as the pull's reply (the
 *   same bytes over the same wire, without Lua or JSON parsing);
 * - --http scenarios: a POST to a no-op route of the same server, same body and agent (the HTTP
 *   harness itself).
 * Prints a Markdown table.
 *
 *   REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/action-pull/run.ts [--rate 5000] [--seconds 10] [--http]
 *
 * Latencies are taken from each pull's scheduled start (not its actual start), so a stalled Redis
 * shows up in p99 instead of silently lowering the request rate (coordinated omission).
 * With --http the single-user cached scenarios go through the service's HTTP app on a real socket,
 * served from a worker thread (bench/action-pull/http-server.ts).
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import Redis from 'ioredis';
import { NEVER_EXPIRES, RedisActionStore, systemClock, type NewAction, type PullQuery } from '@evp/actions';
import { withReplicaGroup } from './replica-wait';
import { numberOption } from '../options';

const RATE = numberOption('rate', 5000);
const SECONDS = numberOption('seconds', 10);
const USERS = numberOption('users', 10_000);
const USE_HTTP = process.argv.includes('--http');
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const fmt = (ms: number) => ms.toFixed(3);

interface Stat {
  n: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
}

interface Row {
  scenario: string;
  baseline: string;
  entries: string;
  run: Stat;
  base: Stat;
}

function stat(latencies: number[], seconds: number): Stat {
  const s = [...latencies].sort((a, b) => a - b);
  return { n: s.length, perSecond: s.length / seconds, p50: pct(s, 50), p99: pct(s, 99), max: s[s.length - 1] ?? NaN };
}

/** Runs the baseline first, then the scenario, with the same load shape (`measure`). */
async function paired(
  rows: Row[],
  scenario: string,
  baseline: string,
  entries: string,
  measure: (op: (n: number) => Promise<unknown>) => Promise<{ latencies: number[]; seconds: number }>,
  baseOp: (n: number) => Promise<unknown>,
  op: (n: number) => Promise<unknown>,
): Promise<void> {
  const b = await measure(baseOp);
  const r = await measure(op);
  rows.push({ scenario, baseline, entries, base: stat(b.latencies, b.seconds), run: stat(r.latencies, r.seconds) });
  process.stderr.write(`done: ${scenario}\n`);
}

const action = (user: string, i: number, mode: 'one-off' | 'cached'): NewAction => ({
  user_id: user,
  type: 'message',
  render_method: 'in_app_message',
  delivery_mode: mode,
  content: { title: `Title ${i}`, body: `A body of moderate length for action ${i}, like a real in-app message.` },
  attr: { screen: i % 2 === 0 ? 'home' : 'cart', lang: 'en' },
  tags: ['bench'],
  expired_at: NEVER_EXPIRES,
  inv_id: 1,
  action_id: i,
});

/** Fixed arrival rate: every ms, start the pulls due by now; latency from the due time. */
async function openLoop(rate: number, seconds: number, pull: (n: number) => Promise<unknown>): Promise<number[]> {
  const total = Math.round(rate * seconds);
  const latencies: number[] = [];
  const start = performance.now();
  let issued = 0;
  const inflight = new Set<Promise<void>>();
  while (issued < total) {
    const now = performance.now();
    const due = Math.min(total, Math.floor(((now - start) / 1000) * rate));
    for (; issued < due; issued++) {
      const scheduled = start + (issued / rate) * 1000;
      const p = pull(issued).then(() => {
        latencies.push(performance.now() - scheduled);
        inflight.delete(p);
      });
      inflight.add(p);
    }
    await new Promise((r) => setImmediate(r));
  }
  await Promise.all(inflight);
  return latencies;
}

/** As fast as `concurrency` callers can go. */
async function closedLoop(concurrency: number, seconds: number, pull: (n: number) => Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await pull(n++);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return latencies;
}

async function main() {
  const redis = new Redis(url);
  const prefix = `bench:act:${randomBytes(4).toString('hex')}:`;
  const store = new RedisActionStore({ redis, clock: systemClock(), prefix });
  const rows: Row[] = [];
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');
  try {
    // Baselines: one round trip through the same client and connection doing no work.
    const trivialSha = String(await redis.script('LOAD', 'return 1'));
    const evalTrivial = () => redis.evalsha(trivialSha, 0);
    const bigKey = `${prefix}baseline:big`;
    const getBig = () => redis.get(bigKey);

    // Seed: every user has 3 cached actions; 50 one-off actions per user would be too many for
    // quick setup, so the one-off single-user scenario seeds exactly what it will pull.
    process.stderr.write(`seeding ${USERS} users × 3 cached actions...\n`);
    for (let u = 0; u < USERS; u += 300) {
      const batch: NewAction[] = [];
      for (let k = u; k < Math.min(USERS, u + 300); k++) for (let i = 0; i < 3; i++) batch.push(action(`user-${k}`, i, 'cached'));
      await store.create('bench', batch);
    }

    const single = (n: number): PullQuery => ({ user_id: `user-${n % USERS}`, type: 'message', render_method: 'in_app_message', delivery_mode: 'cached' });
    let pullOne: (n: number) => Promise<unknown> = (n) => store.pull('bench', single(n));
    let singleBase: (n: number) => Promise<unknown> = evalTrivial;
    let singleBaseName = '`EVALSHA` of `return 1`';
    let worker: Worker | undefined;
    if (USE_HTTP) {
      const KEY = 'bench-api-key-0123456789';
      // Workers do not inherit tsx's loader; register it inside the worker, then load the server.
      const boot = `require('tsx/cjs/api').register(); require(${JSON.stringify(resolve(__dirname, 'http-server.ts'))});`;
      worker = new Worker(boot, { eval: true, workerData: { url, prefix, key: KEY } });
      const port = await new Promise<number>((res, rej) => {
        worker?.once('message', (m: { port: number }) => res(m.port));
        worker?.once('error', rej);
      });
      const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
      const post = (path: string, n: number) =>
        new Promise((resolve, reject) => {
          const body = JSON.stringify(single(n));
          const req = http.request(
            {
              host: '127.0.0.1',
              port,
              path,
              method: 'POST',
              agent,
              headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
            },
            (res) => {
              res.resume();
              res.on('end', () => (res.statusCode === 200 ? resolve(undefined) : reject(new Error(`HTTP ${res.statusCode}`))));
            },
          );
          req.on('error', reject);
          req.end(body);
        });
      pullOne = (n) => post('/v1/action/pull', n);
      singleBase = (n) => post('/bench/noop', n);
      singleBaseName = 'HTTP POST to a no-op route';
    }
    const via = USE_HTTP ? ' (HTTP)' : '';
    const openAt = (rate: number) => async (op: (n: number) => Promise<unknown>) => ({ latencies: await openLoop(rate, SECONDS, op), seconds: SECONDS });
    const closedAt = (c: number, seconds: number) => async (op: (n: number) => Promise<unknown>) => ({ latencies: await closedLoop(c, seconds, op), seconds });

    await closedLoop(16, 3, pullOne); // warm-up: scripts loaded, JIT warm, seeding garbage collected
    await closedLoop(16, 1, singleBase);
    await paired(rows, `single-user cached pull at ${RATE}/s${via}`, singleBaseName, '3', openAt(RATE), singleBase, pullOne);
    await paired(rows, `single-user cached pull, 32 concurrent, max speed${via}`, singleBaseName, '3', closedAt(32, SECONDS), singleBase, pullOne);

    // One-off single-user: each pull takes one user's 1 action (seeded per pull).
    const oneOffUsers = Math.round(RATE * SECONDS);
    for (let u = 0; u < oneOffUsers; u += 1000) {
      await store.create(
        'bench',
        Array.from({ length: Math.min(1000, oneOffUsers - u) }, (_, k) => action(`oo-${u + k}`, 100, 'one-off')),
      );
    }
    const oneOff = (n: number) => store.pull('bench', { user_id: `oo-${n}`, type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' });
    await paired(rows, `single-user one-off pull at ${RATE}/s`, '`EVALSHA` of `return 1`', '1', openAt(RATE), evalTrivial, oneOff);

    // The replica wait: the same one-off pulls on a primary with one replica, with and without WAIT 1.
    await withReplicaGroup(async ({ plain, waiting, seed }) => {
      const n = Math.round(RATE * SECONDS);
      const byUser = (store: RedisActionStore, app: string) => async (i: number) => {
        const r = await store.pull(app, { user_id: `oo-${i}`, type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' });
        if (r.data.length !== 1) throw new Error(`${app}: pull ${i} found ${r.data.length} actions, not 1`);
      };
      await Promise.all([seed('plain', n), seed('waiting', n)]);
      await paired(
        rows,
        `single-user one-off pull at ${RATE}/s, WAIT 1 (primary + 1 replica)`,
        'the same pull without WAIT',
        '1',
        openAt(RATE),
        byUser(plain, 'plain'),
        byUser(waiting, 'waiting'),
      );
      // Closed loop: pulls/s is the figure; each pull takes its own user's action, seeded beforehand.
      // Enough for 32 callers at full speed on a quiet machine (60,000 ran out at ≈ 12k pulls/s).
      const most = 200_000;
      await Promise.all([seed('plain-max', most), seed('waiting-max', most)]);
      await paired(
        rows,
        'single-user one-off pull, 32 concurrent, max speed, WAIT 1 (primary + 1 replica)',
        'the same pull without WAIT',
        '1',
        closedAt(32, SECONDS / 2),
        byUser(plain, 'plain-max'),
        byUser(waiting, 'waiting-max'),
      );
    });

    // `*` pulls of 1,000: a dedicated app so the seeded users above do not count.
    await store.create(
      'star',
      Array.from({ length: 1000 }, (_, i) => action(`s-${i % 100}`, i, 'cached')),
    );
    const star = { user_id: '*', type: 'message', render_method: 'in_app_message', delivery_mode: 'cached' } as const;
    // The baseline value is the pull's own reply, so both move the same bytes.
    const sample = await store.pull('star', star);
    await redis.set(bigKey, JSON.stringify(sample.data));
    const bigSize = `${Math.round(Buffer.byteLength(JSON.stringify(sample.data)) / 1024)} KiB`;
    await paired(rows, '`*` cached pull of 1,000, 4 concurrent', `\`GET\` of ${bigSize}`, '1,000', closedAt(4, SECONDS / 2), getBig, async () => {
      const r = await store.pull('star', star);
      if (r.data.length !== 1000) throw new Error(`expected 1000, got ${r.data.length}`);
    });

    // One-off `*`: re-seeded between pulls, so only the pull itself is timed (sequential).
    const timedRounds = async (op: (round: number) => Promise<void>, before?: (round: number) => Promise<void>) => {
      const latencies: number[] = [];
      for (let round = 0; round < 50; round++) {
        await before?.(round);
        const t = performance.now();
        await op(round);
        latencies.push(performance.now() - t);
      }
      return { latencies, seconds: latencies.reduce((a, b) => a + b, 0) / 1000 };
    };
    const b = await timedRounds(async () => {
      await getBig();
    });
    const r = await timedRounds(
      async () => {
        const res = await store.pull('star1', { ...star, delivery_mode: 'one-off' });
        if (res.data.length !== 1000 || res.more) throw new Error(`expected 1000 and no more, got ${res.data.length}`);
      },
      async (round) => {
        await store.create(
          'star1',
          Array.from({ length: 1000 }, (_, i) => ({ ...action(`s-${i % 100}`, i, 'one-off'), inv_id: 10 + round })),
        );
      },
    );
    rows.push({
      scenario: '`*` one-off pull of 1,000 (sequential)',
      baseline: `\`GET\` of ${bigSize}`,
      entries: '1,000',
      base: stat(b.latencies, b.seconds),
      run: stat(r.latencies, r.seconds),
    });

    await worker?.terminate();
  } finally {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 5000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
    await redis.quit();
  }

  // Ratios: latency ÷ baseline latency (how many bare round trips one pull costs) and
  // throughput ÷ baseline throughput (1.00 by construction in the fixed-rate rows).
  const x = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  console.log(`Load average at start (1/5/15 min): ${load}; ${SECONDS} s per measurement.\n`);
  console.log(
    '| scenario | entries/pull | pulls | pulls/s | p50 ms | p99 ms | max ms | baseline (same run, same rate or concurrency) | base ops/s | base p50 ms | base p99 ms | p50 ratio | p99 ratio | pulls/s ratio |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|');
  for (const { scenario, baseline, entries, run, base } of rows) {
    console.log(
      `| ${scenario} | ${entries} | ${run.n} | ${Math.round(run.perSecond)} | ${fmt(run.p50)} | ${fmt(run.p99)} | ${fmt(run.max)} | ${baseline} | ${Math.round(base.perSecond)} | ${fmt(base.p50)} | ${fmt(base.p99)} | ${x(run.p50, base.p50)} | ${x(run.p99, base.p99)} | ${x(run.perSecond, base.perSecond)} |`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
