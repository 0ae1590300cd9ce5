import { DEFAULT_PRIVACY_TABLE, topics, type BusMessage } from '@evp/core';
import { createInProcessRegistry } from '@evp/embedded';
import { createEncodePool, type EncodePool } from './encode-pool';
import { Framer, registerOutputSchemas } from './output-schemas';
import { addRawOutputs, batchOutputs, type BatchOutputs, type OutputWriter } from './raw-outputs';

const NOW = 1_709_280_100_000;
const msg = (offset: number, body: unknown, headers: Record<string, string>): BusMessage => ({
  topic: topics.raw,
  partition: 0,
  offset: String(offset),
  key: 'app-1:u',
  value: Buffer.from(JSON.stringify(body)),
  headers: { app_id: 'app-1', request_id: `req-${offset}`, received_at: '1709280000000', key_id: 'k-sdk', ...headers },
  timestamp: 1709280000000,
});

const page = (i: number) => ({
  time: `2024-03-01 08:00:0${i}.000`,
  name: 'page',
  property: 'screen',
  ctx: { __ol: true, path: `/p-${i}`, title: 'Home', duration: 1, render_time: 2 },
});
const envelope = {
  id: 'u-1',
  tz: '+05:30',
  internal: { s_id: 'u-1_1709280000000_0', sdk: 'android/2.4.1', a_id: 'com.example', a_ver: '1.2.3 (45)', d_id: 'd-1', os: 'android' },
  data: [page(1), { time: '2024-03-01 08:00:02.000', name: 'no_such_event', property: 'screen', ctx: {} }, page(3)],
};
const hcw = [{ id: 'h-1', name: 'Dr. Otieno' }, { id: 'h-2', site_id_list: 's-1' }, { id: 'h-3' }];

let pool: EncodePool;
let framer: Framer;
beforeAll(async () => {
  const schemas = await registerOutputSchemas(createInProcessRegistry());
  framer = new Framer(schemas);
  pool = createEncodePool({ workers: 0, schemas, normalize: { maxEventChars: 64 * 1024 } });
});
afterAll(() => pool.close());

async function outputsOf(maxBatchBytes: (topic: string) => number, ...messages: BusMessage[]): Promise<BatchOutputs> {
  const writer: OutputWriter = { framer, maxBatchBytes, now: () => NOW };
  const out = batchOutputs();
  const outcomes = await pool.encode(messages, DEFAULT_PRIVACY_TABLE);
  outcomes.forEach((o, i) => addRawOutputs(writer, messages[i] as BusMessage, o, out));
  return out;
}

const shape = (out: BatchOutputs) => ({
  byTopic: Object.fromEntries([...out.byTopic].map(([topic, ms]) => [topic, ms.map((m) => m.key)])),
  eventsByBlock: Object.fromEntries(out.eventsByBlock),
  catalogByKind: Object.fromEntries(out.catalogByKind),
  rejectedEventsByKind: Object.fromEntries(out.rejectedEventsByKind),
});

describe('addRawOutputs', () => {
  it('adds each message’s events, catalog records, rejections and receipt to the batch, counted by block, kind and rejection kind', async () => {
    const out = await outputsOf(() => 1024 * 1024, msg(0, envelope, {}), msg(1, hcw, { payload_kind: 'catalog:hcw' }));
    const s = shape(out);
    expect(Object.keys(s.byTopic).sort()).toEqual(['catalog.hcw', 'events.core', 'ingest.receipts', 'ingest.rejected']);
    expect(s.byTopic['events.core']).toHaveLength(2);
    expect(s.byTopic['catalog.hcw']).toEqual(['app-1:h-1', 'app-1:h-3']);
    expect(s.byTopic['ingest.receipts']).toEqual(['app-1:req-0', 'app-1:req-1']);
    expect(s.byTopic['ingest.rejected']).toHaveLength(2);
    expect([s.eventsByBlock, s.catalogByKind]).toEqual([{ core: 2 }, { hcw: 2 }]);
    // The unknown event and the record whose site_id_list is no list.
    expect(s.rejectedEventsByKind).toEqual({ schema_violation: 2 });
  });

  it('turns an output too large for its topic into a size_violation (not written, not counted as accepted)', async () => {
    const out = await outputsOf((topic) => (topic === 'catalog.hcw' ? 10 : 1024 * 1024), msg(1, hcw.slice(0, 1), { payload_kind: 'catalog:hcw' }));
    expect(shape(out)).toEqual({
      byTopic: { 'ingest.rejected': [expect.stringMatching(/^app-1:/)], 'ingest.receipts': ['app-1:req-1'] },
      eventsByBlock: {},
      catalogByKind: {},
      rejectedEventsByKind: { size_violation: 1 },
    });
  });

  it('copies each nudge_response (action_response is mapped onto it) to actions.feedback with the events.core message’s key, value and headers; other events are not copied', async () => {
    const response = (i: number, name: string, r: string) => ({
      time: `2024-03-01 08:00:0${i}.000`,
      name,
      property: r,
      ctx: { __ol: true, ref: `7:${i}`, time: '2024-03-01T08:00:00Z', response: r },
    });
    const upload = { ...envelope, data: [page(1), response(2, 'nudge_response', 'shown'), page(3), response(4, 'action_response', 'open')] };
    const out = await outputsOf(() => 1024 * 1024, msg(0, upload, {}));
    const core = out.byTopic.get(topics.events('core')) ?? [];
    expect(core.map((m) => m.headers?.name)).toEqual(['page', 'nudge_response', 'page', 'nudge_response']);
    // The same objects: the copy is the original message, written in the same sendBatch.
    expect(out.byTopic.get(topics.actionsFeedback)).toEqual([core[1], core[3]]);
    expect(out.byTopic.get(topics.actionsFeedback)?.[0]).toBe(core[1]);
    // Counted once, as events.core events: the copy is no accepted event of its own.
    expect(Object.fromEntries(out.eventsByBlock)).toEqual({ core: 4 });
  });
});
