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
});
