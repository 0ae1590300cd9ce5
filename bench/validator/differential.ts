/**
 * Differential check for hot-path work on the validator (issue 3): runs 4,000 generated raw messages
 * (valid and invalid corpus events, mutated properties, unknown keys, bad times, both envelope
 * forms, arrays of envelopes, broken JSON, size limits from 200 to 64 Ki characters) through
 * processRawMessage, canonicalToAvro and the in-process registry (plus deliberately broken records),
 * and hashes everything that comes out: canonical events, ids, catalog records, rejections,
 * warnings, Avro records, wire-format bytes and error messages, in order. Deterministic (seeded).
 *
 *   npx tsx bench/validator/differential.ts [out.txt]
 *
 * EXPECTED is the digest of the output after issue 12 (2026-11-23: events carry their warnings, the
 * spec's value rules and the real clients' normalisations; it was cb4ebc37… before); a change to the
 * output of the hot path changes it. Not part of the test run (it takes a few seconds).
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { rawHeaders } from '@evp/contract';
import { BLOCKS, topics, type BusMessage } from '@evp/core';
import { createInProcessRegistry } from '@evp/embedded/src/registry/in-process-registry';
import { blockEventSchema, blockSubject, canonicalToAvro, eventDef } from '@evp/schemas';
import { processRawMessage } from '@evp/validator';

const EXPECTED = 'a765f2d1da3112c4f80ed6d19139c0b82975effaf9a77cd58f74f0956f9934c1';
const out: string[] = [];
const dir = join(__dirname, '../../schemas/corpus/events');
interface Case {
  event: string;
  sent?: string;
  props: Record<string, unknown>;
  meta?: unknown;
}
const cases: Case[] = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .flatMap((f) => {
    const d = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    return [...d.valid, ...(d.invalid ?? [])];
  });
let a = 7;
const rand = () => {
  a = (a + 0x6d2b79f5) | 0;
  let t = Math.imul(a ^ (a >>> 15), 1 | a);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pickOf = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
const junk = (): unknown =>
  pickOf<() => unknown>([
    () => null,
    () => undefined,
    () => 'x',
    () => '',
    () => 3,
    () => -1,
    () => 2.5,
    () => 1e21,
    () => 2147483648,
    () => true,
    () => [],
    () => ['a', null],
    () => [1, 2],
    () => ({}),
    () => ({ a: 1 }),
    () => ({ __proto__x: 1, constructor: 2 }),
    () => 'é\u2028\ud800"\\\n',
    () => 'a'.repeat(Math.floor(rand() * 800)),
    () => [{ id: 'x', extra: 1 }],
    () => 1709280000000,
    () => ({ id: 'i', type: 'emergency', zz: [1] }),
    () => JSON.parse('{"__proto__": 5}'),
  ])();
function mutate(props: Record<string, unknown>): Record<string, unknown> {
  const p: Record<string, unknown> = JSON.parse(JSON.stringify(props));
  const keys = Object.keys(p);
  const n = Math.floor(rand() * 3);
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.3 && keys.length) delete p[pickOf(keys)];
    else if (r < 0.7 && keys.length) p[pickOf(keys)] = junk();
    else if (r < 0.85) p[`u${Math.floor(rand() * 5)}`] = junk();
    else if (keys.length) {
      const k = pickOf(keys);
      const v = p[k];
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        const ks = Object.keys(v);
        if (ks.length) (v as Record<string, unknown>)[pickOf(ks)] = junk();
        else (v as Record<string, unknown>).q = junk();
      }
    }
  }
  return p;
}
const times = ['2024-03-01 10:00:00.123', '2024-02-30 10:00:00.000', 'garbage', '2024-03-01T10:00:00+05:30', '2024-03-01 10:00:00'];
function body(i: number): unknown {
  const env = (k: number) => {
    const logs = Array.from({ length: 1 + Math.floor(rand() * 8) }, () => {
      const c = pickOf(cases);
      const props = rand() < 0.5 ? c.props : mutate(c.props ?? {});
      const t = Date.UTC(2024, 2, 1) + Math.floor(rand() * 1e9);
      if (k % 2 === 0) {
        const log: Record<string, unknown> = {
          time: rand() < 0.9 ? new Date(t).toISOString().replace('T', ' ').replace('Z', '') : pickOf(times),
          name: c.sent ?? c.event,
          property: rand() < 0.8 ? 'screen' : pickOf([null, 3, undefined]),
          ctx: { __ol: rand() > 0.05 ? rand() > 0.3 : 'yes', ...props, ...(c.meta !== undefined ? { meta: c.meta } : {}) },
        };
        if (rand() < 0.1) log.extra_key = junk();
        if (rand() < 0.05) return junk();
        return log;
      }
      const log: Record<string, unknown> = {
        block: rand() < 0.95 ? (eventDef(c.event)?.block ?? 'core') : 'core',
        ol: rand() < 0.97 ? true : undefined,
        ts: rand() < 0.9 ? new Date(t).toISOString() : pickOf(times),
        type: c.sent ?? c.event,
        props: c.meta !== undefined ? { ...props, meta: c.meta } : props,
      };
      if (rand() < 0.1) log.zzz = junk();
      return log;
    });
    const user = `u-${k % 7}`;
    if (k % 2 === 0) {
      const e: Record<string, unknown> = {
        id: user,
        tz: pickOf(['+05:30', 'UTC+5', 'Z', '+0530']),
        internal: {
          s_id: rand() < 0.9 ? `${user}_1709280000000_0` : 'bad',
          sdk: pickOf(['android/2.4.1', 'weird']),
          a_id: 'com.x',
          a_ver: pickOf(['1.2.3 (45)', '1.2']),
          d_id: 'd',
          os: 'android',
          ...(rand() < 0.2 ? { extra_int: 1 } : {}),
        },
        data: logs,
      };
      if (rand() < 0.2) e.env_extra = { a: [1, 'b'] };
      if (rand() < 0.03) delete e.tz;
      return e;
    }
    const e: Record<string, unknown> = {
      s_id: `${user}_1709280000000_1709280001000`,
      u_id: user,
      d_info: { brand: 'A', id: 'd', model: 'm', os: 'android', os_ver: '14' },
      app_info: { id: 'x', min_sdk_version: 24, target_sdk_version: 34, version_code: 45, version_name: '1.2.3', version: '1.2.3 (45)' },
      sdk: 'android_2.0.0',
      up: 1,
      dn: 2,
      data: logs,
    };
    if (rand() < 0.2) e.what = 'x';
    return e;
  };
  const r = rand();
  if (r < 0.03) return junk();
  if (r < 0.25) return [env(i), env(i + 1), ...(rand() < 0.1 ? [junk()] : [])];
  return env(i);
}
async function main() {
  const registry = createInProcessRegistry();
  const ids = new Map<string, number>();
  for (const block of BLOCKS) ids.set(block, await registry.register(blockSubject(topics.events(block)), blockEventSchema(block) as object));
  const h = createHash('sha256');
  let nEv = 0,
    nRej = 0,
    nWarn = 0;
  for (let i = 0; i < 4000; i++) {
    const b = body(i);
    const raw = rand() < 0.01 ? '{"bad json' : (JSON.stringify(b) ?? 'null');
    const msg: BusMessage = {
      topic: 'ingest.raw',
      partition: 0,
      offset: String(i),
      key: null,
      value: Buffer.from(raw),
      headers: {
        [rawHeaders.appId]: 'app-1',
        [rawHeaders.requestId]: `r${i}`,
        [rawHeaders.receivedAt]: '1709280000000',
        [rawHeaders.keyId]: 'k',
        [rawHeaders.payloadKind]: 'log',
      },
      timestamp: 1709280000000,
    };
    const limit = pickOf([65536, 200, 400, 700, 1000, 1500, 3000]);
    const o = processRawMessage(msg, { maxEventChars: limit });
    const line = JSON.stringify({ ev: o.events.map((a) => a.event), cat: o.catalog, rej: o.rejections, w: o.identifyProblems }, (_k, v) =>
      v === undefined ? '<undef>' : v,
    );
    h.update(line);
    out.push(line);
    nEv += o.events.length;
    nRej += o.rejections.length;
    nWarn += o.identifyProblems.length;
    for (const { event: e } of o.events) nWarn += e.warnings.length;
    const memo = new Map<object, string>();
    for (const { event: e } of o.events) {
      const rec = canonicalToAvro(e, memo);
      const recLine = JSON.stringify(rec);
      h.update(recLine);
      out.push(recLine);
      try {
        const buf = await registry.encode(ids.get(e.block)!, rec);
        h.update(buf);
        out.push(buf.toString('hex'));
      } catch (err) {
        out.push(`ERR ${(err as Error).message} ${String((err as { retriable?: unknown }).retriable)}`);
        h.update(out[out.length - 1]!);
      }
      // An invalid record must fail the same way.
      if (rand() < 0.05) {
        const bad: Record<string, unknown> = { ...rec };
        const k = pickOf(Object.keys(bad));
        bad[k] = pickOf<unknown>([undefined, 'str', 1.5, { x: 1 }, null, 2 ** 40]);
        try {
          const buf = await registry.encode(ids.get(e.block)!, bad);
          out.push('BADOK ' + buf.toString('hex'));
        } catch (err) {
          out.push(`BADERR ${(err as Error).message} ${String((err as { retriable?: unknown }).retriable)} ${(err as Error).constructor.name}`);
        }
        h.update(out[out.length - 1]!);
      }
    }
  }
  if (process.argv[2]) writeFileSync(process.argv[2], out.join('\n'));
  const digest = h.digest('hex');
  console.log(`events ${nEv}, rejections ${nRej}, warnings ${nWarn}; digest ${digest}`);
  if (digest !== EXPECTED) {
    console.error(`differs from the expected digest ${EXPECTED}`);
    process.exit(1);
  }
  console.log('identical to the reference output');
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
