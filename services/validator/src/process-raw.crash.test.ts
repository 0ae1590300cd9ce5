import type { BusMessage } from '@evp/core';
import { processRawMessage } from './process-raw';

const options = { maxEventChars: 64 * 1024 };
const msg = (body: unknown): BusMessage => ({
  topic: 'ingest.raw',
  partition: 0,
  offset: '7',
  key: 'app-1:usr_48213',
  value: Buffer.from(JSON.stringify(body)),
  headers: { app_id: 'app-1', request_id: 'req-1', received_at: '1767225600000', key_id: 'k', payload_kind: 'crash' },
  timestamp: 1,
});
const item = {
  title: 'Invalid CurrencyCode provided',
  event_type: 'cart',
  exception_type: 'IllegalArgumentException',
  exception_source: 'SDK',
  stack_trace: 's',
  ts: '2025-03-17T12:05:11.482+03:00',
};
const upload = {
  u_id: 'usr_48213',
  d_info: { brand: 'Apple', id: 'D-1', model: 'iPhone 14', os: 'iOS', os_ver: '17.4.1' },
  app_info: { id: 'com.example.pharmacy', min_sdk_version: 15, target_sdk_version: 17, version: '2.4.1 (57)', version_code: 57, version_name: '2.4.1' },
  sdk: 'ios/1.2.3',
  data: [item, { ...item, ts: 'never' }],
};

describe('processRawMessage: payload kind crash (POST /v1/ingest/sdk/crash)', () => {
  it('turns each crash item into an exception event; items in = accepted + rejected', () => {
    const o = processRawMessage(msg(upload), options);
    expect(o.payloadKind).toBe('crash');
    expect(o.events.map(({ event: e }) => [e.name, e.block, e.user_id, e.time])).toEqual([
      ['exception', 'core', 'usr_48213', Date.UTC(2025, 2, 17, 9, 5, 11, 482)],
    ]);
    expect(o.events.map((e) => e.event_index)).toEqual([0]);
    expect(o.catalog).toEqual([]);
    expect(o.rejections.map((r) => [r.kind, r.event_index, r.reasons.map((e) => e.rule)])).toEqual([['schema_violation', 1, ['time_format']]]);
    expect(o.events.map(({ event: e }) => e.warnings.map((w) => w.rule))).toEqual([['sdk_crash_item']]);
  });

  it('counts the items of a crash upload it cannot process at all', () => {
    const o = processRawMessage({ ...msg(upload), value: Buffer.from('{"data": [1, 2, 3') }, options);
    expect(o.rejections.map((r) => [r.kind, r.event_count])).toEqual([['parse_violation', 1]]);
  });
});
