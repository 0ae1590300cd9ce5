/**
 * Event → membership-change latency (issue 13): the pipeline bench's harness (gateway, validator
 * and the segmenter on chdb — sink and segment engine — each in its own process on a Kafka broker
 * of its own), a segment created over HTTP with the API key, and 50-event uploads offered at
 * `--rate` events/s for `--seconds`, every upload from a new user. A user enters the segment on its
 * first matching event; per entered user:
 *
 *   latency = Kafka timestamp of its `entered` record on segments.membership
 *             − received_at of its earliest matching event (stamped by the gateway)
 *
 * beside the pipeline's own freshness in the same run (received_at → row inserted, over every row of
 * the phase, and over the matching rows alone), and the part the segment engine adds (record −
 * the matching row's inserted_at, split at the Kafka timestamp of the `users` work item that named
 * the user). p50/p95/p99/max.
 *
 * Before the timed phase, `--warmup` seconds of the same load (untimed, until stored), so the JIT
 * compilers of the fresh broker and services are not what is measured.
 *
 *   npm run bench:segments:latency -- [--rate 5000] [--seconds 30] [--warmup 30] [--history 0]
 *
 * `--history N` first stores N generated events of 100,000 other users of the same app over 300
 * days (bench/segments/dataset.ts), so each scoped evaluation runs against that history.
 */
import { createLogger, topics } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { awaitAllStored } from '../../dev/src/faults/counts';
import { KEYS, sideCall, type Harness } from '../../dev/src/faults/harness';
import { startLoad } from '../../dev/src/faults/load';
import { bounded, killAllChildren, runHarnessScript } from '../../dev/src/faults/processes';
import { benchHarness, warmUp } from '../pipeline/bench-harness';
import { historyInsert } from './dataset';
import { median, quantile } from './timing';
import { textOption } from '../options';

const RATE = Number(textOption('rate', '5000'));
const SECONDS = Number(textOption('seconds', '30'));
const HISTORY = Number(textOption('history', '0'));
const WARMUP_SECONDS = Number(textOption('warmup', '30'));

/** Enters on the first page view of one path: about two uploads in three carry one (paths /p/0…/p/49). */
const PATH = '/p/7';
const DEFINITION = { event: 'page', where: [{ prop: 'path', op: 'eq', value: PATH }] };

async function api<T>(h: Harness, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${h.segmenterUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${KEYS.api}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Users of `tag` with a matching event, and the received_at / inserted_at (epoch ms) of their earliest one. */
async function entrants(h: Harness, tag: string): Promise<Map<string, { received: number; inserted: number }>> {
  const rows = await h.query<{ user_id: string; received: string; inserted: string }>(
    `SELECT user_id, toString(toUnixTimestamp64Milli(min(received_at))) AS received, toString(toUnixTimestamp64Milli(argMin(inserted_at, received_at))) AS inserted
     FROM events WHERE app_id = {app:String} AND startsWith(user_id, {prefix:String}) AND name = 'page' AND props.path.:String = {path:String}
     GROUP BY user_id`,
    { app: KEYS.appId, prefix: `${tag}-`, path: PATH },
  );
  return new Map(rows.map((r) => [r.user_id, { received: Number(r.received), inserted: Number(r.inserted) }]));
}

/**
 * Since `from`, by user: the Kafka timestamp of the segment's `entered` record (seq 1), and of the
 * first `users` work item naming the user (produced by the sink's hook once the row was stored).
 */
async function timestamps(brokers: string[], segmentId: string, from: number): Promise<{ entered: Map<string, number>; work: Map<string, number> }> {
  const entered = new Map<string, number>();
  const work = new Map<string, number>();
  await withBus(brokers, async (bus) => {
    await bus.scan('segments.membership', from, (m) => {
      if (m.headers.segment_id !== segmentId) return;
      // change_id = segment_id:user_id:seq; odd seq = entered.
      const [, user, seq] = (m.headers.change_id ?? '').split(':');
      if (user && Number(seq) % 2 === 1 && !entered.has(user)) entered.set(user, m.timestamp);
    });
    await bus.scan('segments.work', from, (m) => {
      const item = JSON.parse(m.value.toString('utf8')) as { kind: string; segment_id: string; users?: string[] };
      if (item.segment_id !== segmentId || item.kind !== 'users') return;
      for (const u of item.users ?? []) if (!work.has(u)) work.set(u, m.timestamp);
    });
  });
  return { entered, work };
}

async function withBus(brokers: string[], fn: (bus: ReturnType<typeof createKafkaBus>) => Promise<void>): Promise<void> {
  const bus = createKafkaBus({ brokers, clientId: 'bench-segments-latency', logger: createLogger('bench', 'warn') });
  try {
    await fn(bus);
  } finally {
    await bus.close();
  }
}

/**
 * Since `from`, by user (keys are `app_id:user_id`; every upload is one new user's, so its events
 * travel together): the Kafka timestamp of the user's first message on `topic`.
 */
async function firstByUser(brokers: string[], topic: string, from: number): Promise<Map<string, number>> {
  const first = new Map<string, number>();
  await withBus(brokers, (bus) =>
    bus.scan(topic, from, (m) => {
      const user = m.key?.slice(m.key.indexOf(':') + 1);
      if (user !== undefined && !first.has(user)) first.set(user, m.timestamp);
    }),
  );
  return first;
}

const stats = (xs: number[]) => ({
  n: xs.length,
  p50: median(xs),
  p95: quantile(xs, 0.95),
  p99: quantile(xs, 0.99),
  max: xs.length > 0 ? Math.max(...xs) : NaN,
});

/** Scoped evaluations of the run: count and mean seconds (the engine's histogram on the sink's side port). */
async function evaluations(h: Harness): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${h.ports.sinkQuery}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name}\\{kind="users"\\} ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN);
  const count = value('segmenter_segments_evaluation_seconds_count');
  const sum = value('segmenter_segments_evaluation_seconds_sum');
  return `${count} scoped evaluations, mean ${((sum / count) * 1000).toFixed(1)} ms`;
}

async function main() {
  const { harness: h, brokers } = benchHarness('bench-segments');
  const runId = Date.now().toString(36);
  try {
    await bounded(h.start(), 5 * 60_000, 'the stack and services to start');
    if (HISTORY > 0) {
      const t = Date.now();
      await sideCall(h.ports.sinkQuery, '/command', { sql: historyInsert(KEYS.appId, HISTORY) }, 1_800_000);
      await h.command('OPTIMIZE TABLE events FINAL');
      console.log(`history: ${HISTORY} events stored and merged in ${Math.round((Date.now() - t) / 1000)} s`);
    }
    const segment = await api<{ id: string }>(h, 'POST', '/v1/segments', { name: 'viewed page 7', definition: DEFINITION });
    const created = Date.now();
    // Until the engine evaluates the segment for users as their events arrive (it learns of new
    // segments every SEGMENTS_REFRESH_INTERVAL_MS): rounds of warm-up load by new users, until every
    // matching user of a round entered.
    for (let round = 0; ; round++) {
      if (round === 20) throw new Error('the segment engine never evaluated the warm-up users');
      const tag = `warm${round}-${runId}`;
      await warmUp(h, tag, { seconds: 2, users: Infinity });
      const expected = await entrants(h, tag);
      const deadline = Date.now() + 15_000;
      let entered = 0;
      while (Date.now() < deadline) {
        const { entered: got } = await timestamps(brokers, segment.id, created);
        entered = [...expected.keys()].filter((u) => got.has(u)).length;
        if (entered === expected.size) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      console.log(`warm-up round ${round}: ${entered}/${expected.size} matching users entered`);
      if (expected.size > 0 && entered === expected.size) break;
    }

    if (WARMUP_SECONDS > 0) {
      await warmUp(h, `load-${runId}`, { seconds: WARMUP_SECONDS, eventsPerSecond: RATE, users: Infinity });
      console.log(`warm-up: ${RATE} events/s for ${WARMUP_SECONDS} s, stored`);
    }
    const tag = `s${RATE}-${runId}`;
    console.log(`--- ${RATE} events/s offered for ${SECONDS} s, a new user per 50-event upload`);
    const start = Date.now();
    const load = startLoad({ gatewayUrl: h.gatewayUrl, key: KEYS.sdk, tag, seed: RATE, rate: RATE / 50, maxInFlight: 512, users: Infinity });
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const tally = await load.stop();
    const { counts } = await awaitAllStored((s, p) => h.query(s, p), tally, [tag], { timeoutMs: 300_000, since: Date.now() });
    const expected = await entrants(h, tag);
    let got = { entered: new Map<string, number>(), work: new Map<string, number>() };
    const deadline = Date.now() + 300_000;
    while (Date.now() < deadline) {
      got = await timestamps(brokers, segment.id, start);
      if ([...expected.keys()].every((u) => got.entered.has(u))) break;
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const latency: number[] = [];
    const engine: number[] = [];
    const hook: number[] = [];
    const evaluation: number[] = [];
    const matchingFreshness: number[] = [];
    // The matching rows' freshness split at the gateway's and the validator's Kafka writes.
    const [raw, validated] = await Promise.all([firstByUser(brokers, topics.raw, start), firstByUser(brokers, topics.events('core'), start)]);
    const gateway: number[] = [];
    const validator: number[] = [];
    const sink: number[] = [];
    for (const [user, e] of expected) {
      const r = raw.get(user);
      const v = validated.get(user);
      if (r !== undefined && v !== undefined) {
        gateway.push(r - e.received);
        validator.push(v - r);
        sink.push(e.inserted - v);
      }
      const at = got.entered.get(user);
      const work = got.work.get(user);
      if (at === undefined || work === undefined) continue;
      latency.push(at - e.received);
      engine.push(at - e.inserted);
      hook.push(work - e.inserted);
      evaluation.push(at - work);
      matchingFreshness.push(e.inserted - e.received);
    }
    const [f] = await h.query<{ q: number[]; rows: string }>(
      `SELECT toString(count()) AS rows, quantiles(0.5, 0.95, 0.99)(dateDiff('millisecond', received_at, inserted_at)) AS q
       FROM events WHERE startsWith(ifNull(property, ''), {marker:String})`,
      { marker: `${tag}:` },
    );
    const freshness = f?.q ?? [];
    console.log(JSON.stringify({ counts, entrants: expected.size, entered: latency.length, evaluations: await evaluations(h) }));
    const row = (label: string, s: ReturnType<typeof stats>) => `| ${label} | ${s.n} | ${s.p50} | ${s.p95} | ${s.p99} | ${s.max} |`;
    console.log(`\n${RATE} events/s offered for ${SECONDS} s; ${counts.acked} acked, ${counts.stored} stored, ${counts.lost} lost\n`);
    console.log('| ms | samples | p50 | p95 | p99 | max |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    console.log(row('**event → `entered` record** (per entered user)', stats(latency)));
    console.log(
      `| freshness received_at → row inserted, every row of the phase (baseline) | ${f?.rows} | ${freshness[0]} | ${freshness[1]} | ${freshness[2]} | |`,
    );
    console.log(row('freshness of the matching rows', stats(matchingFreshness)));
    console.log(row('… received_at → upload on ingest.raw (the gateway)', stats(gateway)));
    console.log(row('… ingest.raw → event on events.core (the validator)', stats(validator)));
    console.log(row('… events.core → row inserted (the sink)', stats(sink)));
    console.log(row('row inserted → `entered` record (the segment engine)', stats(engine)));
    console.log(row("… row inserted → its `users` work item produced (the sink's hook)", stats(hook)));
    console.log(row('… work item produced → `entered` record (consumed, evaluated, published)', stats(evaluation)));
    if (latency.length !== expected.size) throw new Error(`${expected.size - latency.length} matching users never entered`);
  } finally {
    await bounded(h.stop(), 3 * 60_000, 'the harness to stop').catch((err) => console.error(err));
    killAllChildren();
  }
}

runHarnessScript(main);
