/**
 * Validator throughput (issue 3): events/s through normalise + validate + Avro-encode, beside a
 * baseline of JSON.parse + JSON.stringify of the very same raw bodies in the same run, so the ratio
 * stays meaningful on a noisy shared machine. Not part of the test run.
 *
 *   npx tsx bench/validator/bench.ts [--envelopes 400] [--runs 5] [--seconds 2] [--batch 64] [--workers N] [--stages] [--pipeline-only | --pool-only] [--future-times] [--before <dir>]
 *
 * Input: a realistic mix built from the valid examples of the event corpus (schemas/corpus/events),
 * weighted like SDK traffic (page/app/media dominate), 50 events per envelope, current and earlier
 * envelope forms alternating, every fourth body a JSON array of two envelopes. Every event has its own
 * time, so event ids (a hash per event) are computed as in production.
 *
 * Pipeline: the validator's own encode pool (services/validator/src/encode-pool.ts) over batches of
 * raw messages (--batch, default 64 messages ≈ 700 KB, about one Kafka fetch): per message
 * processRawMessage (Buffer → JSON.parse → normalise → validate, props through the generated prop
 * checks), then per accepted event its generated Avro writer (schemas/generated/event-writers.ts)
 * framed in the Confluent wire format with the registered schema ids,
 * events back on the calling thread as Buffers. Measured twice: inline (workers 0, one thread) and
 * with --workers threads (default: the CPUs this process may use, as VALIDATOR_WORKERS=auto).
 * Each run times every side for about `--seconds`; the median run is reported.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { join, resolve } from 'node:path';
import { rawHeaders } from '@evp/contract';
import { DEFAULT_PRIVACY_TABLE, privacyOf, topics, type BusMessage } from '@evp/core';
import { createInProcessRegistry } from '@evp/embedded/src/registry/in-process-registry';
import { AvroOut, canonicalToAvro, DEFAULT_NORMALIZE_OPTIONS, eventDef, writeEventAvro } from '@evp/schemas';
import { rng } from '@evp/schemas/src/__fixtures__/corpus';
import { clientQuirk } from '@evp/schemas/src/quirks';
import type { RuleName } from '@evp/schemas/src/rules/registry';
import { processRawMessage } from '@evp/validator';
import { createEncodePool, type EncodePool } from '@evp/validator/src/encode-pool';
import { registerOutputSchemas } from '@evp/validator/src/output-schemas';
import { applyEventPrivacy } from '@evp/validator/src/privacy';
import { numberOption } from '../options';

const ENVELOPES = numberOption('envelopes', 400);
const RUNS = numberOption('runs', 5);
const SECONDS = numberOption('seconds', 2);
const BATCH = numberOption('batch', 64);
const WORKERS = numberOption('workers', availableParallelism());
const INFLIGHT = numberOption('inflight', 2);
const PER_ENVELOPE = 50;

/** Relative frequency per event type; anything not listed (all other blocks) weighs 1. */
const WEIGHTS: Record<string, number> = { page: 30, app: 15, media: 8, search: 5, module_selection: 5, nudge_response: 3, identify: 2, rate: 2 };

interface Case {
  event: string;
  sent?: string;
  props: Record<string, unknown>;
  meta?: unknown;
  /** Set on client-quirk cases valid in one envelope form only (schemas/corpus/README.md). */
  forms?: string[];
  warnings?: { rule: string }[];
}

function loadCorpus(): Case[] {
  const dir = join(__dirname, '../../schemas/corpus/events');
  return (
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .flatMap((f) => (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { valid: Case[] }).valid)
      // Bodies alternate the envelope forms: only cases valid in both make an all-valid input. The
      // fixture sdks (android) are no known client, so cases that need a client's quirk are left out.
      .filter((c) => eventDef(c.event) !== undefined && c.forms === undefined)
      .filter((c) => !(c.warnings ?? []).some((w) => clientQuirk(w.rule as RuleName) !== undefined))
  );
}

function buildBodies(): { bodies: Buffer[]; events: number; mix: Map<string, number>; lastTime: number } {
  const corpus = loadCorpus();
  const byEvent = new Map<string, Case[]>();
  for (const c of corpus) byEvent.set(c.event, [...(byEvent.get(c.event) ?? []), c]);
  const names = [...byEvent.keys()];
  const cumulative: [number, string][] = [];
  let total = 0;
  for (const n of names) cumulative.push([(total += WEIGHTS[n] ?? 1), n]);
  const rand = rng(42);
  const pick = (): Case => {
    const x = rand() * total;
    const name = cumulative.find(([w]) => x < w)![1];
    const cases = byEvent.get(name)!;
    return cases[Math.floor(rand() * cases.length)]!;
  };
  const mix = new Map<string, number>();
  let t = FIRST_TIME;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const localTime = (ms: number) => {
    const d = new Date(ms + 5.5 * 3600_000); // envelope tz +05:30
    return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
  };
  const envelope = (i: number) => {
    const user = `user-${i % 97}`;
    const start = t;
    const logs = Array.from({ length: PER_ENVELOPE }, () => {
      const c = pick();
      mix.set(c.event, (mix.get(c.event) ?? 0) + 1);
      t += 1 + Math.floor(rand() * 5000);
      return { c, t };
    });
    if (i % 2 === 0) {
      return {
        id: user,
        tz: '+05:30',
        internal: { s_id: `${user}_${start}_0`, sdk: 'android/2.4.1', a_id: 'com.example.app', a_ver: '1.2.3 (45)', d_id: `dev-${i % 97}`, os: 'android' },
        data: logs.map(({ c, t: at }) => ({
          time: localTime(at),
          name: c.sent ?? c.event,
          property: 'screen',
          ctx: { __ol: rand() > 0.1, ...c.props, ...(c.meta !== undefined ? { meta: c.meta } : {}) },
        })),
      };
    }
    return {
      s_id: `${user}_${start}_${t}`,
      u_id: user,
      d_info: { brand: 'Acme', id: `dev-${i % 97}`, model: 'A1', os: 'android', os_ver: '14' },
      app_info: { id: 'com.example.app', min_sdk_version: 24, target_sdk_version: 34, version_code: 45, version_name: '1.2.3', version: '1.2.3 (45)' },
      sdk: 'android_2.0.0',
      up: 512,
      dn: 2048,
      data: logs.map(({ c, t: at }) => ({
        block: eventDef(c.event)!.block,
        ol: rand() > 0.1,
        ts: new Date(at).toISOString(),
        type: c.sent ?? c.event,
        props: c.meta !== undefined ? { ...c.props, meta: c.meta } : c.props,
      })),
    };
  };
  const bodies: Buffer[] = [];
  for (let i = 0; i < ENVELOPES;) {
    if (bodies.length % 4 === 3 && i + 1 < ENVELOPES) {
      bodies.push(Buffer.from(JSON.stringify([envelope(i), envelope(i + 1)])));
      i += 2;
    } else {
      bodies.push(Buffer.from(JSON.stringify(envelope(i))));
      i += 1;
    }
  }
  return { bodies, events: ENVELOPES * PER_ENVELOPE, mix, lastTime: t };
}

/**
 * The receipt time of every message: by default just after the input's last event, so every event is
 * dated before its upload is received, as real traffic is. Until 2026-11-27 it was the first event's
 * time, which dated almost every event hours after its receipt: each one then carried a `future_time`
 * warning (skewed device clocks; rare in real traffic), about a fifth of the pipeline's work.
 * `--future-times` keeps that input, to compare with figures measured on it.
 */
const FUTURE_TIMES = process.argv.includes('--future-times');
const FIRST_TIME = Date.UTC(2024, 2, 1, 8, 0, 0);

const message =
  (receivedAt: number) =>
  (value: Buffer, i: number): BusMessage => ({
    topic: topics.raw,
    partition: 0,
    offset: String(i),
    key: null,
    value,
    headers: {
      [rawHeaders.appId]: 'app-1',
      [rawHeaders.requestId]: `req-${i}`,
      [rawHeaders.receivedAt]: String(receivedAt),
      [rawHeaders.keyId]: 'k-sdk',
      [rawHeaders.payloadKind]: 'log',
    },
    timestamp: receivedAt,
  });

/**
 * Every batch through the pool, `inflight` batches at a time (as the validator's consumer handles
 * that many partitions at once; see validator.ts).
 */
async function pipelinePass(batches: BusMessage[][], pool: EncodePool, inflight: number): Promise<{ accepted: number; rejected: number; bytes: number }> {
  let accepted = 0;
  let rejected = 0;
  let bytes = 0;
  let next = 0;
  const lane = async () => {
    while (next < batches.length) {
      const batch = batches[next++]!;
      for (const out of await pool.encode(batch, DEFAULT_PRIVACY_TABLE)) {
        for (const e of out.events) bytes += e.value.length;
        accepted += out.events.length;
        for (const r of out.rejections) rejected += r.event_count;
      }
    }
  };
  await Promise.all(Array.from({ length: inflight }, lane));
  return { accepted, rejected, bytes };
}

/** The pipeline cut after a stage, to show where the time goes (`--stages`). */
async function stagePass(messages: BusMessage[], stage: 'normalise' | 'write', out: AvroOut): Promise<void> {
  for (const msg of messages) {
    const result = processRawMessage(msg, DEFAULT_NORMALIZE_OPTIONS);
    if (stage === 'normalise') continue;
    const clientJson = new Map<object, string>();
    out.pos = 0;
    // The generated event writers, unframed (the validator's Framer adds the 5-byte head).
    for (const { event: e } of result.events) if (!writeEventAvro(out, e, clientJson)) throw new Error(`no generated write for ${e.name}`);
  }
}

/**
 * `--before <dir>`: the validator as it was at an earlier commit, measured beside this one in the same
 * run (issue 28): `<dir>` holds that commit's tree (`git archive <commit> | tar -x -C <dir>`) with a
 * node_modules whose `@evp/*` links point into it (bench/validator/README.md shows how). Its own
 * module graph is loaded from there, so both sides run in one process on the same input.
 */
function beforePool(dir: string, schemas: Parameters<typeof createEncodePool>[0]['schemas']): EncodePool {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a module graph chosen at run time
  const earlier = require(join(resolve(dir), 'services/validator/src/encode-pool')) as { createEncodePool: typeof createEncodePool };
  return earlier.createEncodePool({ workers: 0, schemas, normalize: DEFAULT_NORMALIZE_OPTIONS });
}

function baselinePass(bodies: Buffer[]): number {
  let chars = 0;
  for (const b of bodies) chars += JSON.stringify(JSON.parse(b.toString('utf8'))).length;
  return chars;
}

interface Rate {
  /** events per wall-clock second */
  wall: number;
  /** events per second of this process's CPU time (user + system): steadier on a shared machine */
  cpu: number;
  /** young-generation collections of this thread per 100,000 events */
  scavengesPer100k: number;
}

/** Repeats `pass` until about `seconds` elapsed. */
/** Young-generation collections of this thread so far: the allocation figure of --pipeline-only and --pool-only. */
let scavenges = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if ((e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++;
}).observe({ entryTypes: ['gc'] });

async function timed(seconds: number, events: number, pass: () => unknown): Promise<Rate> {
  let passes = 0;
  const scavenges0 = scavenges;
  const start = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  let elapsed: number;
  do {
    await pass();
    passes += 1;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  } while (elapsed < seconds);
  const cpu = process.cpuUsage(cpu0);
  // gc entries arrive asynchronously: let them in before counting.
  await new Promise((r) => setTimeout(r, 20));
  return {
    wall: (passes * events) / elapsed,
    cpu: (passes * events) / ((cpu.user + cpu.system) / 1e6),
    scavengesPer100k: ((scavenges - scavenges0) * 100_000) / (passes * events),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main() {
  const { bodies, events, mix, lastTime } = buildBodies();
  const messages = bodies.map(message(FUTURE_TIMES ? FIRST_TIME : lastTime + 1000));
  const batches: BusMessage[][] = [];
  for (let i = 0; i < messages.length; i += BATCH) batches.push(messages.slice(i, i + BATCH));
  const registry = createInProcessRegistry();
  const schemas = await registerOutputSchemas(registry);
  const inline = createEncodePool({ workers: 0, schemas, normalize: DEFAULT_NORMALIZE_OPTIONS });
  const pool = createEncodePool({ workers: WORKERS, schemas, normalize: DEFAULT_NORMALIZE_OPTIONS });

  const beforeAt = process.argv.indexOf('--before');
  const before = beforeAt > 0 ? beforePool(process.argv[beforeAt + 1]!, schemas) : undefined;

  const check = await pipelinePass(batches, inline, 1);
  if (before !== undefined) {
    const ref = await pipelinePass(batches, before, 1);
    if (ref.accepted !== check.accepted || ref.bytes !== check.bytes) throw new Error(`the before path disagrees: ${JSON.stringify({ ref, check })}`);
  }
  if (check.rejected > 0 || check.accepted !== events)
    throw new Error(`input not all valid: ${check.accepted} accepted, ${check.rejected} rejected of ${events}`);
  const pooled = await pipelinePass(batches, pool, INFLIGHT);
  if (pooled.accepted !== check.accepted || pooled.bytes !== check.bytes)
    throw new Error(`the pool disagrees with inline: ${JSON.stringify({ pooled, check })}`);
  // The framed bytes are the registry port's own: spot-check the first message's events.
  const first = processRawMessage(messages[0]!, DEFAULT_NORMALIZE_OPTIONS);
  const [firstOut] = await inline.encode([messages[0]!], DEFAULT_PRIVACY_TABLE);
  for (let i = 0; i < first.events.length; i++) {
    const e = first.events[i]!.event;
    // The pool applies the default privacy policy (free text dropped) before it encodes: so does the port's side.
    applyEventPrivacy(first.events[i]!, privacyOf(DEFAULT_PRIVACY_TABLE, e.app_id), {});
    const viaPort = await registry.encode(schemas.find((s) => s.topic === topics.events(e.block))!.id, canonicalToAvro(e));
    if (!viaPort.equals(firstOut!.events[i]!.value)) throw new Error(`event ${i} is framed unlike the registry port's encode`);
  }
  const bytesMb = bodies.reduce((s, b) => s + b.length, 0) / 1e6;
  console.log(
    `input: ${bodies.length} bodies in batches of ${BATCH}, ${events} events (${PER_ENVELOPE}/envelope), ${bytesMb.toFixed(1)} MB JSON, ${mix.size} event types; Avro out ${(check.bytes / 1e6).toFixed(1)} MB; events dated ${FUTURE_TIMES ? 'after their receipt (--future-times)' : 'before their receipt'}`,
  );
  console.log(`node ${process.version}, ${availableParallelism()} CPUs, ${RUNS} runs × ~${SECONDS}s per side; pool: ${WORKERS} worker threads\n`);

  try {
    if (process.argv.includes('--pipeline-only')) {
      // For profiling: node --cpu-prof --import tsx bench/validator/bench.ts --pipeline-only
      const rate = await timed(SECONDS, events, () => pipelinePass(batches, inline, 1));
      console.log(
        `pipeline only (inline): ${fmt(rate.wall)} events/s (${fmt(rate.cpu)} per CPU-s), ${rate.scavengesPer100k.toFixed(1)} scavenges per 100k events`,
      );
      return;
    }
    if (process.argv.includes('--pool-only')) {
      // The main thread's share of the worker side (slicing, transfers, the replies' clones, materialize):
      // node --cpu-prof --import tsx bench/validator/bench.ts --pool-only (the profile is the main thread's)
      const rate = await timed(SECONDS, events, () => pipelinePass(batches, pool, INFLIGHT));
      console.log(
        `pool only (${WORKERS} workers): ${fmt(rate.wall)} events/s (${fmt(rate.cpu)} per CPU-s), main thread ${rate.scavengesPer100k.toFixed(1)} scavenges per 100k events`,
      );
      return;
    }
    // Warm every path before measuring (JIT, schema resolvers, the workers' JIT).
    await timed(0.5, events, () => pipelinePass(batches, inline, 1));
    await timed(0.5, events, () => pipelinePass(batches, pool, INFLIGHT));
    await timed(0.5, events, () => baselinePass(bodies));

    if (before !== undefined) await timed(0.5, events, () => pipelinePass(batches, before, 1));

    const one: Rate[] = [];
    const many: Rate[] = [];
    const base: Rate[] = [];
    const old: Rate[] = [];
    for (let r = 0; r < RUNS; r++) {
      // Rotate the order so drift on the shared machine does not favour one side.
      const sides = [
        async () => one.push(await timed(SECONDS, events, () => pipelinePass(batches, inline, 1))),
        async () => many.push(await timed(SECONDS, events, () => pipelinePass(batches, pool, INFLIGHT))),
        async () => base.push(await timed(SECONDS, events, () => baselinePass(bodies))),
        ...(before !== undefined ? [async () => old.push(await timed(SECONDS, events, () => pipelinePass(batches, before, 1)))] : []),
      ];
      for (let k = 0; k < sides.length; k++) await sides[(r + k) % sides.length]!();
      const [p1, pn, b] = [one[r]!, many[r]!, base[r]!];
      const o = old[r];
      console.log(
        `run ${r + 1}: inline ${fmt(p1.wall)} events/s (${fmt(p1.cpu)} per CPU-s), ${WORKERS} workers ${fmt(pn.wall)} events/s, baseline ${fmt(b.wall)} events/s; ratios ${(p1.wall / b.wall).toFixed(3)} / ${(pn.wall / b.wall).toFixed(3)}` +
          (o === undefined ? '' : `; before (inline) ${fmt(o.wall)} events/s (${fmt(o.cpu)} per CPU-s), ratio ${(o.wall / b.wall).toFixed(3)}`),
      );
    }
    const med = (xs: Rate[], k: keyof Rate) => median(xs.map((x) => x[k]));
    const ratio = (xs: Rate[]) => median(xs.map((p, i) => p.wall / base[i]!.wall));
    if (process.argv.includes('--stages')) {
      const out = new AvroOut();
      console.log('\nstages (cumulative, inline, one run each, per CPU-second):');
      for (const stage of ['normalise', 'write'] as const) {
        const rate = await timed(SECONDS, events, () => stagePass(messages, stage, out));
        console.log(`  ${stage.padEnd(10)} ${fmt(rate.cpu)} events/CPU-s`);
      }
      console.log(`  ${'framed'.padEnd(10)} ${fmt(med(one, 'cpu'))} events/CPU-s (full inline pipeline, median above)`);
    }
    console.log(
      `\nmedian of ${RUNS}: inline (1 thread)  ${fmt(med(one, 'wall'))} events/s (${fmt(med(one, 'cpu'))} per CPU-s), ratio to baseline ${ratio(one).toFixed(3)}`,
    );
    console.log(
      `           ${WORKERS} worker threads  ${fmt(med(many, 'wall'))} events/s (${fmt(med(many, 'cpu'))} per CPU-s), ratio to baseline ${ratio(many).toFixed(3)}`,
    );
    if (before !== undefined) {
      console.log(
        `           before (inline, 1 thread) ${fmt(med(old, 'wall'))} events/s (${fmt(med(old, 'cpu'))} per CPU-s), ratio to baseline ${ratio(old).toFixed(3)}`,
      );
    }
    console.log(`           baseline JSON.parse+stringify ${fmt(med(base, 'wall'))} events/s (${fmt(med(base, 'cpu'))} per CPU-s)`);
    console.log(`target ≥ 50,000 events/s in one process (${WORKERS} worker threads): ${med(many, 'wall') >= 50_000 ? 'met' : 'NOT met'}`);
  } finally {
    await pool.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
