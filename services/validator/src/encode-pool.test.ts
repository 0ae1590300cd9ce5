import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PRIVACY_TABLE, InfraError, resolvePrivacy, topics, type BusMessage, type PrivacyTable } from '@evp/core';
import { createInProcessRegistry } from '@evp/embedded';
import { canonicalToAvro } from '@evp/schemas';
import { createEncodePool, sliceByBytes, type EncodePool, type EncodedMessage } from './encode-pool';
import { registerOutputSchemas } from './output-schemas';
import { processRawMessage } from './process-raw';

const normalize = { maxEventChars: 64 * 1024 };
const at = (i: number) => `2024-03-01 08:00:${String(i % 60).padStart(2, '0')}.000`;

const msg = (offset: number, body: unknown, headers: Record<string, string> = {}): BusMessage => ({
  topic: topics.raw,
  partition: 0,
  offset: String(offset),
  key: 'app-1:u',
  value: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  headers: { app_id: 'app-1', request_id: `req-${offset}`, received_at: '1709280000000', key_id: 'k-sdk', ...headers },
  timestamp: 1709280000000,
});

const PROPS: Record<string, (i: number) => object> = {
  page: (i) => ({ path: `/p-${i}`, title: 'Home', duration: 12.5, render_time: 340 }),
  app: (i) => ({ action: 'open', start_time: i }),
  item: () => ({ action: 'add_favorite', item: { id: 'g-1' } }),
};

const current = (user: string, names: string[]) => ({
  id: user,
  tz: '+05:30',
  internal: { s_id: `${user}_1709280000000_0`, sdk: 'android/2.4.1', a_id: 'com.example', a_ver: '1.2.3 (45)', d_id: 'd-1', os: 'android' },
  data: names.map((name, i) => ({ time: at(i), name, property: 'screen', ctx: { __ol: true, ...PROPS[name]?.(i) } })),
});

/** Events of several blocks, a bad event beside good ones, a body that is not JSON, a catalog submission. */
const MESSAGES: BusMessage[] = [
  msg(0, current('u-1', ['page', 'item', 'app'])),
  msg(1, current('u-2', ['app', 'no_such_event', 'page'])),
  msg(2, '{not json'),
  msg(3, [{ id: 'g-1', name: 'G' }, { id: 'g-2' }], { payload_kind: 'catalog:chat_group' }),
  msg(4, [current('u-3', ['item']), current('u-4', ['app', 'page'])]),
];

async function registered() {
  const registry = createInProcessRegistry();
  return { schemas: await registerOutputSchemas(registry), registry };
}

const pools: EncodePool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});
const pool = (p: EncodePool) => (pools.push(p), p);

describe('encode pool', () => {
  it('inline: outcomes in message order, each event framed exactly as the registry port encodes it', async () => {
    const { schemas, registry } = await registered();
    const out = await pool(createEncodePool({ workers: 0, schemas, normalize })).encode(MESSAGES, DEFAULT_PRIVACY_TABLE);
    expect(out.map((o) => [o.events.length, o.catalog.length, o.rejections.map((r) => r.kind)])).toEqual([
      [3, 0, []],
      [2, 0, ['schema_violation']],
      [0, 0, ['parse_violation']],
      [0, 1, ['schema_violation']],
      [3, 0, []],
    ]);
    for (let i = 0; i < MESSAGES.length; i++) {
      const expected = processRawMessage(MESSAGES[i] as BusMessage, normalize);
      const got = out[i] as EncodedMessage;
      expect(got.events.map((e) => [e.block, e.key, e.app_id, e.event_id])).toEqual(
        expected.events.map(({ event: e }) => [e.block, `${e.app_id}:${e.user_id}`, e.app_id, e.event_id]),
      );
      for (let j = 0; j < expected.events.length; j++) {
        const e = expected.events[j]!.event;
        const id = schemas.find((s) => s.topic === topics.events(e.block))!.id;
        expect(got.events[j]!.value.equals(await registry.encode(id, canonicalToAvro(e)))).toBe(true);
      }
      expect({ catalog: got.catalog, rejections: got.rejections, identifyReasons: got.identifyReasons, ctx: got.ctx, payloadKind: got.payloadKind }).toEqual({
        catalog: expected.catalog,
        rejections: expected.rejections,
        identifyReasons: expected.identifyReasons,
        ctx: expected.ctx,
        payloadKind: expected.payloadKind,
      });
    }
  });

  it('a worker applies the privacy table of each batch: a reload’s new table reaches it, and the next batch after it too', async () => {
    const { schemas } = await registered();
    const workers = pool(createEncodePool({ workers: 1, schemas, normalize }));
    const patient = msg(9, [{ id: 'PAT-0042' }], { payload_kind: 'catalog:patient' });
    const pseudonymising: PrivacyTable = {
      apps: { 'app-1': resolvePrivacy({ classes: { direct_identifier: 'pseudonymise' } }, { version: 1, secret: 'demo-app pseudonym key v1, 32 bytes!!' }) },
      default: DEFAULT_PRIVACY_TABLE.default,
    };
    const idWith = async (table: PrivacyTable) => (await workers.encode([patient], table))[0]!.catalog[0]!.record.id;
    expect(await idWith(DEFAULT_PRIVACY_TABLE)).toBe('PAT-0042');
    // Golden value: packages/core/src/privacy/pseudonym.test.ts.
    expect(await idWith(pseudonymising)).toBe('p1:JBzJmddArzd_3Jmbb6r8bw');
    expect(await idWith(pseudonymising)).toBe('p1:JBzJmddArzd_3Jmbb6r8bw');
    expect(await idWith(DEFAULT_PRIVACY_TABLE)).toBe('PAT-0042');
  });

  it('events without warnings or person ids share one frozen empty list of each: a write to it throws, never reaches another event', async () => {
    const { schemas } = await registered();
    const out = await pool(createEncodePool({ workers: 0, schemas, normalize })).encode([MESSAGES[0] as BusMessage], DEFAULT_PRIVACY_TABLE);
    const [a, b] = (out[0] as EncodedMessage).events;
    expect([a?.warnings, a?.persons, b?.warnings, b?.persons]).toEqual([[], [], [], []]);
    expect(a?.warnings).toBe(b?.warnings);
    expect(a?.persons).toBe(b?.persons);
    expect(Object.isFrozen(a?.warnings) && Object.isFrozen(a?.persons)).toBe(true);
    expect(() => (a?.warnings as unknown[]).push('x')).toThrow(TypeError);
    expect(b?.warnings).toEqual([]);
  });

  it('two workers give exactly the inline outcomes, in the same order, batch after batch', async () => {
    const { schemas } = await registered();
    const inline = await pool(createEncodePool({ workers: 0, schemas, normalize })).encode(MESSAGES, DEFAULT_PRIVACY_TABLE);
    const workers = pool(createEncodePool({ workers: 2, schemas, normalize }));
    expect(workers.workers).toBe(2);
    // Concurrent batches (several partitions at once) each come back whole and in order.
    const [a, b] = await Promise.all([workers.encode(MESSAGES, DEFAULT_PRIVACY_TABLE), workers.encode(MESSAGES.slice(1), DEFAULT_PRIVACY_TABLE)]);
    expect(a).toEqual(inline);
    expect(b).toEqual(inline.slice(1));
    expect(await workers.encode([], DEFAULT_PRIVACY_TABLE)).toEqual([]);
    expect(await workers.encode([MESSAGES[0]!], DEFAULT_PRIVACY_TABLE)).toEqual(inline.slice(0, 1));
  });

  it('a worker that dies fails its batch as retriable and the next batch gets a fresh worker', async () => {
    const { schemas } = await registered();
    // A worker entry that exits on its first request stands in for a crash (out of memory, a native fault).
    const dying = join(tmpdir(), `dying-worker-${process.pid}.js`);
    writeFileSync(dying, "require('node:worker_threads').parentPort.on('message', () => process.exit(3));\n");
    const p = pool(createEncodePool({ workers: 1, schemas, normalize, workerFile: dying }));
    for (let i = 0; i < 2; i++) {
      const err: unknown = await p.encode(MESSAGES, DEFAULT_PRIVACY_TABLE).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(InfraError);
      expect([(err as InfraError).retriable, (err as InfraError).message]).toEqual([true, 'encode-worker: worker died: exited with code 3']);
    }
  });
});

describe('sliceByBytes', () => {
  const sized = (...sizes: number[]) => sizes.map((n) => ({ value: Buffer.alloc(n) }));
  const lengths = (slices: { value: Buffer }[][]) => slices.map((s) => s.map((m) => m.value.length));

  it('cuts contiguous slices of about equal bytes, at most n, none empty', () => {
    expect(lengths(sliceByBytes(sized(10, 10, 10, 10), 2))).toEqual([
      [10, 10],
      [10, 10],
    ]);
    expect(lengths(sliceByBytes(sized(30, 5, 5, 5, 5), 2))).toEqual([[30], [5, 5, 5, 5]]);
    expect(lengths(sliceByBytes(sized(1, 1, 1), 4))).toEqual([[1], [1], [1]]);
    expect(lengths(sliceByBytes(sized(5), 2))).toEqual([[5]]);
    expect(sliceByBytes([], 2)).toEqual([]);
  });
});
