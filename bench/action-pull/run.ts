/**
 * Action pull benchmark on real Redis (issue 5): single-user pulls at a fixed arrival rate and at
 * full speed, and `*` pulls of 1,000 actions (cached and one-off). Prints a Markdown table.
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
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import Redis from 'ioredis';
import { NEVER_EXPIRES, RedisActionStore, systemClock, type NewAction, type PullQuery } from '@evp/actions';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const RATE = arg('rate', 5000);
const SECONDS = arg('seconds', 10);
const USERS = arg('users', 10_000);
const USE_HTTP = process.argv.includes('--http');
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const fmt = (ms: number) => ms.toFixed(3);

interface Row {
  scenario: string;
  pulls: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  entries: string;
}

function summarize(scenario: string, latencies: number[], seconds: number, entries: string): Row {
  const s = [...latencies].sort((a, b) => a - b);
  return { scenario, pulls: s.length, perSecond: s.length / seconds, p50: pct(s, 50), p99: pct(s, 99), max: s[s.length - 1] ?? NaN, entries };
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
  try {
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
      pullOne = (n) =>
        new Promise((resolve, reject) => {
          const body = JSON.stringify(single(n));
          const req = http.request(
            { host: '127.0.0.1', port, path: '/v1/action/pull', method: 'POST', agent, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
            (res) => {
              res.resume();
              res.on('end', () => (res.statusCode === 200 ? resolve(undefined) : reject(new Error(`HTTP ${res.statusCode}`))));
            },
          );
          req.on('error', reject);
          req.end(body);
        });
    }
    const via = USE_HTTP ? ' (HTTP)' : '';

    await closedLoop(16, 3, pullOne); // warm-up: scripts loaded, JIT warm, seeding garbage collected
    rows.push(summarize(`single-user cached pull at ${RATE}/s${via}`, await openLoop(RATE, SECONDS, pullOne), SECONDS, '3'));
    rows.push(summarize(`single-user cached pull, 32 concurrent, max speed${via}`, await closedLoop(32, SECONDS, pullOne), SECONDS, '3'));

    // One-off single-user: each pull takes one user's 1 action (seeded per pull).
    const oneOffUsers = Math.round(RATE * SECONDS);
    for (let u = 0; u < oneOffUsers; u += 1000) {
      await store.create('bench', Array.from({ length: Math.min(1000, oneOffUsers - u) }, (_, k) => action(`oo-${u + k}`, 100, 'one-off')));
    }
    const oneOff = (n: number) => store.pull('bench', { user_id: `oo-${n}`, type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' });
    rows.push(summarize(`single-user one-off pull at ${RATE}/s`, await openLoop(RATE, SECONDS, oneOff), SECONDS, '1'));

    // `*` pulls of 1,000: a dedicated app so the seeded users above do not count.
    await store.create('star', Array.from({ length: 1000 }, (_, i) => action(`s-${i % 100}`, i, 'cached')));
    const star = { user_id: '*', type: 'message', render_method: 'in_app_message', delivery_mode: 'cached' } as const;
    const starLat = await closedLoop(4, SECONDS / 2, async () => {
      const r = await store.pull('star', star);
      if (r.data.length !== 1000) throw new Error(`expected 1000, got ${r.data.length}`);
    });
    rows.push(summarize('`*` cached pull of 1,000, 4 concurrent', starLat, SECONDS / 2, '1,000'));

    const oneOffStar: number[] = [];
    for (let round = 0; round < 50; round++) {
      await store.create('star1', Array.from({ length: 1000 }, (_, i) => ({ ...action(`s-${i % 100}`, i, 'one-off'), inv_id: 10 + round })));
      const t = performance.now();
      const r = await store.pull('star1', { ...star, delivery_mode: 'one-off' });
      oneOffStar.push(performance.now() - t);
      if (r.data.length !== 1000 || r.more) throw new Error(`expected 1000 and no more, got ${r.data.length}`);
    }
    rows.push(summarize('`*` one-off pull of 1,000 (sequential)', oneOffStar, oneOffStar.reduce((a, b) => a + b, 0) / 1000, '1,000'));

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

  console.log('| scenario | pulls | pulls/s | p50 ms | p99 ms | max ms | entries/pull |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.scenario} | ${r.pulls} | ${Math.round(r.perSecond)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.max)} | ${r.entries} |`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
