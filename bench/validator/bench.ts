/**
 * Validator throughput (issue 3): events/s through normalise + validate + Avro-encode, beside a
 * baseline of JSON.parse + JSON.stringify of the very same raw bodies in the same run, so the ratio
 * stays meaningful on a noisy shared machine. Not part of the test run.
 *
 *   npx tsx bench/validator/bench.ts [--envelopes 400] [--runs 5] [--seconds 2] [--stages] [--pipeline-only]
 *
 * Input: a realistic mix built from the valid examples of the event corpus (schemas/corpus/events),
 * weighted like SDK traffic (page/app/media dominate), 50 events per envelope, current and earlier
 * envelope forms alternating, every fourth body a JSON array of two envelopes. Every event has its own
 * time, so event ids (a hash per event) are computed as in production.
 *
 * Pipeline (what the validator does per raw message): processRawMessage (Buffer → JSON.parse →
 * normalise → validate) then, per accepted event, canonicalToAvro (one `client` JSON memo per message,
 * as the validator keeps) + the in-process registry's encode (Avro body + Confluent wire-format
 * header; isValid runs only to explain a value avsc refused), awaited one by one as the validator does.
 * Each run times both sides for about `--seconds`; the median run is reported.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BLOCKS, rawHeaders, topics, type Block, type BusMessage, type SchemaRegistry } from '@evp/core';
import { createInProcessRegistry } from '@evp/embedded/src/registry/in-process-registry';
import { parseAvroSchema } from '@evp/registry';
import { blockEventSchema, blockSubject, canonicalToAvro, DEFAULT_NORMALIZE_OPTIONS, eventDef } from '@evp/schemas';
import { processRawMessage } from '@evp/validator';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ENVELOPES = arg('envelopes', 400);
const RUNS = arg('runs', 5);
const SECONDS = arg('seconds', 2);
const PER_ENVELOPE = 50;

/** Relative frequency per event type; anything not listed (all other blocks) weighs 1. */
const WEIGHTS: Record<string, number> = { page: 30, app: 15, media: 8, search: 5, module_selection: 5, nudge_response: 3, identify: 2, rate: 2 };

interface Case { event: string; sent?: string; props: Record<string, unknown>; meta?: unknown }

function loadCorpus(): Case[] {
  const dir = join(__dirname, '../../schemas/corpus/events');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { valid: Case[] }).valid)
    .filter((c) => eventDef(c.event) !== undefined);
}

/** Deterministic PRNG (mulberry32): the same input every run and every machine. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function buildBodies(): { bodies: Buffer[]; events: number; mix: Map<string, number> } {
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
  let t = Date.UTC(2024, 2, 1, 8, 0, 0);
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
  let events = 0;
  for (let i = 0; i < ENVELOPES; ) {
    if (bodies.length % 4 === 3 && i + 1 < ENVELOPES) {
      bodies.push(Buffer.from(JSON.stringify([envelope(i), envelope(i + 1)])));
      i += 2;
    } else {
      bodies.push(Buffer.from(JSON.stringify(envelope(i))));
      i += 1;
    }
  }
  events = ENVELOPES * PER_ENVELOPE;
  return { bodies, events, mix };
}

const message = (value: Buffer, i: number): BusMessage => ({
  topic: topics.raw,
  partition: 0,
  offset: String(i),
  key: null,
  value,
  headers: { [rawHeaders.appId]: 'app-1', [rawHeaders.requestId]: `req-${i}`, [rawHeaders.receivedAt]: '1709280000000', [rawHeaders.keyId]: 'k-sdk', [rawHeaders.payloadKind]: 'log' },
  timestamp: 1709280000000,
});

async function pipelinePass(messages: BusMessage[], registry: SchemaRegistry, ids: Map<string, number>): Promise<{ accepted: number; rejected: number; bytes: number }> {
  let accepted = 0;
  let rejected = 0;
  let bytes = 0;
  for (const msg of messages) {
    const out = processRawMessage(msg, DEFAULT_NORMALIZE_OPTIONS);
    const clientJson = new Map<object, string>(); // per message, as the validator does
    for (const e of out.events) {
      const buf = await registry.encode(ids.get(e.block)!, canonicalToAvro(e, clientJson));
      bytes += buf.length;
      accepted += 1;
    }
    for (const r of out.rejections) rejected += r.event_count;
  }
  return { accepted, rejected, bytes };
}

/** The pipeline cut after a stage, to show where the time goes (`--stages`). */
async function stagePass(messages: BusMessage[], stage: 'normalise' | 'to-avro' | 'avsc', typeOf: (block: string) => { toBuffer(v: unknown): Buffer }): Promise<void> {
  for (const msg of messages) {
    const out = processRawMessage(msg, DEFAULT_NORMALIZE_OPTIONS);
    if (stage === 'normalise') continue;
    const clientJson = new Map<object, string>();
    for (const e of out.events) {
      const record = canonicalToAvro(e, clientJson);
      if (stage === 'avsc') typeOf(e.block).toBuffer(record);
    }
  }
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
}

/** Repeats `pass` until about `seconds` elapsed. */
async function timed(seconds: number, events: number, pass: () => unknown): Promise<Rate> {
  let passes = 0;
  const start = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  let elapsed = 0;
  do {
    await pass();
    passes += 1;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  } while (elapsed < seconds);
  const cpu = process.cpuUsage(cpu0);
  return { wall: (passes * events) / elapsed, cpu: (passes * events) / ((cpu.user + cpu.system) / 1e6) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main() {
  const { bodies, events, mix } = buildBodies();
  const messages = bodies.map(message);
  const registry = createInProcessRegistry();
  const ids = new Map<string, number>();
  for (const block of BLOCKS) ids.set(block, await registry.register(blockSubject(topics.events(block as Block)), blockEventSchema(block) as object));

  const check = await pipelinePass(messages, registry, ids);
  if (check.rejected > 0 || check.accepted !== events) throw new Error(`input not all valid: ${check.accepted} accepted, ${check.rejected} rejected of ${events}`);
  const bytesMb = bodies.reduce((s, b) => s + b.length, 0) / 1e6;
  console.log(`input: ${bodies.length} bodies, ${events} events (${PER_ENVELOPE}/envelope), ${bytesMb.toFixed(1)} MB JSON, ${mix.size} event types; Avro out ${(check.bytes / 1e6).toFixed(1)} MB`);
  console.log(`node ${process.version}, ${RUNS} runs × ~${SECONDS}s per side\n`);

  if (process.argv.includes('--pipeline-only')) {
    // For profiling: node --cpu-prof --import tsx bench/validator/bench.ts --pipeline-only
    console.log(`pipeline only: ${fmt((await timed(SECONDS, events, () => pipelinePass(messages, registry, ids))).wall)} events/s`);
    return;
  }
  // Warm both paths before measuring (JIT, schema resolvers).
  await timed(0.5, events, () => pipelinePass(messages, registry, ids));
  await timed(0.5, events, () => baselinePass(bodies));

  const pipe: Rate[] = [];
  const base: Rate[] = [];
  for (let r = 0; r < RUNS; r++) {
    // Alternate the order so drift on the shared machine does not favour one side.
    const first = r % 2 === 0;
    const p1 = first ? await timed(SECONDS, events, () => pipelinePass(messages, registry, ids)) : undefined;
    const b = await timed(SECONDS, events, () => baselinePass(bodies));
    const p = p1 ?? (await timed(SECONDS, events, () => pipelinePass(messages, registry, ids)));
    pipe.push(p);
    base.push(b);
    console.log(
      `run ${r + 1}: pipeline ${fmt(p.wall)} events/s (${fmt(p.cpu)} per CPU-s), baseline ${fmt(b.wall)} events/s (${fmt(b.cpu)} per CPU-s), ratio ${(p.wall / b.wall).toFixed(3)}`,
    );
  }
  const med = (xs: Rate[], k: keyof Rate) => median(xs.map((x) => x[k]));
  const ratio = median(pipe.map((p, i) => p.wall / base[i]!.wall));
  if (process.argv.includes('--stages')) {
    // Same avsc types the registry holds (parsed with AVRO_PARSE_OPTIONS), via plain toBuffer (no framing).
    const types = new Map(BLOCKS.map((b) => [b as string, parseAvroSchema(blockEventSchema(b) as object)]));
    const typeOf = (b: string) => types.get(b)!;
    console.log('\nstages (cumulative, one run each, per CPU-second):');
    for (const stage of ['normalise', 'to-avro', 'avsc'] as const) {
      const rate = await timed(SECONDS, events, () => stagePass(messages, stage, typeOf));
      console.log(`  ${stage.padEnd(10)} ${fmt(rate.cpu)} events/CPU-s`);
    }
    console.log(`  ${'registry'.padEnd(10)} ${fmt(med(pipe, 'cpu'))} events/CPU-s (full pipeline, median above)`);
  }
  console.log(`\nmedian of ${RUNS}: pipeline ${fmt(med(pipe, 'wall'))} events/s (${fmt(med(pipe, 'cpu'))} per CPU-s)`);
  console.log(`           baseline JSON.parse+stringify ${fmt(med(base, 'wall'))} events/s (${fmt(med(base, 'cpu'))} per CPU-s)`);
  console.log(`           ratio pipeline/baseline ${ratio.toFixed(3)} (median of per-run ratios)`);
  console.log(`target ≥ 50,000 events/s in one process: ${med(pipe, 'wall') >= 50_000 ? 'met' : 'NOT met'}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
