import type { BusMessage } from '@evp/core';
import { processRawMessage } from './process-raw';

const options = { maxEventChars: 64 * 1024 };
const msg = (headers: Record<string, string>, body: unknown): BusMessage => ({
  topic: 'ingest.raw',
  partition: 0,
  offset: '7',
  key: 'app-1:x',
  value: Buffer.from(JSON.stringify(body)),
  headers: { app_id: 'app-1', request_id: 'req-1', received_at: '1700000100000', key_id: 'k', ...headers },
  timestamp: 1,
});

describe('processRawMessage: payload kinds', () => {
  it('reads catalog:<kind> as a catalog submission', () => {
    const o = processRawMessage(msg({ payload_kind: 'catalog:chat_group' }, [{ id: 'g-1', name: 'G' }, { id: 'g-2' }]), options);
    expect(o.events).toEqual([]);
    expect(o.catalog).toEqual([
      { app_id: 'app-1', id: 'g-1', kind: 'chat_group', received_at: 1_700_000_100_000, request_id: 'req-1', record: { id: 'g-1', name: 'G' }, extra: null },
    ]);
    expect(o.rejections.map((r) => [r.kind, r.event_index, r.errors.map((e) => `${e.path} ${e.rule}`)])).toEqual([['schema_violation', 1, ['$[1].name required']]]);
    expect(o.payloadKind).toBe('catalog:chat_group');
  });

  it('a message without payload_kind is an event upload (gateways older than the header)', () => {
    const o = processRawMessage(msg({}, [{ id: 'g-1', name: 'G' }]), options);
    expect(o.payloadKind).toBe('log');
    expect(o.catalog).toEqual([]);
    expect(o.rejections.map((r) => r.kind)).toEqual(['envelope_violation']);
  });

  it('catalog: with an empty kind is an unknown catalog kind', () => {
    const o = processRawMessage(msg({ payload_kind: 'catalog:' }, []), options);
    expect(o.rejections.map((r) => [r.kind, r.errors[0]!.rule, r.event_count])).toEqual([['parse_violation', 'unknown_catalog_kind', 1]]);
  });
});
