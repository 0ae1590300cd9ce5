import type { BusMessage } from '@evp/core';
import {
  EVENT_COLUMNS,
  RowError,
  actionLogRow,
  catalogRow,
  chTime,
  customCatalogRow,
  eventRow,
  eventValues,
  eventValuesFromAvro,
  rejectedRow,
  unreadableRow,
} from './rows';
import { pageEvent, pageEventRow, rejectedRecord } from './test-fixtures';
import { blockEventSchema, canonicalToAvro, catalogToAvro, type ActionLogEntry } from '@evp/schemas';
import { createInProcessRegistry } from '@evp/embedded';

function thrown(fn: () => unknown): RowError {
  try {
    fn();
  } catch (err) {
    return err as RowError;
  }
  throw new Error('expected a throw');
}

describe('eventRow', () => {
  it('maps a canonical page event to exactly the events row', () => {
    expect(eventRow(pageEvent)).toEqual(pageEventRow);
  });

  it('gives the same values as an array in EVENT_COLUMNS order (what the sink inserts)', () => {
    expect(eventValues(pageEvent)).toEqual(EVENT_COLUMNS.map((c) => pageEventRow[c]));
    expect(Object.keys(eventRow(pageEvent))).toEqual([...EVENT_COLUMNS]);
  });

  it('keeps an earlier-form event’s client info and an open session as null end', () => {
    const row = eventRow({
      ...pageEvent,
      envelope: 'earlier',
      session_end: null,
      meta: 'just text',
      client: { up: 512, dn: 2048, d_info: { brand: 'acme', os_ver: '14' } },
      name: 'nudge_response',
      sent_name: 'action_response',
    });
    expect([row.envelope, row.session_end, row.meta, row.client, row.name, row.sent_name]).toEqual([
      'earlier',
      null,
      '"just text"',
      { up: 512, dn: 2048, d_info: { brand: 'acme', os_ver: '14' } },
      'nudge_response',
      'action_response',
    ]);
  });

  it('refuses times ClickHouse cannot hold and a missing event_id, naming the field', () => {
    const late = thrown(() => eventRow({ ...pageEvent, time: Date.UTC(2300, 0, 1) }));
    expect([late.path, late.message]).toEqual(['time', '10413792000000 is not an epoch-ms time between 1900 and 2299']);
    const noId = thrown(() => eventRow({ ...pageEvent, event_id: '' }));
    expect([noId.path, noId.message]).toEqual(['event_id', 'must not be empty']);
    const fraction = thrown(() => eventRow({ ...pageEvent, received_at: 1.5 }));
    expect([fraction.path, fraction.message]).toEqual(['received_at', '1.5 is not an epoch-ms time between 1900 and 2299']);
  });
});

describe('eventValuesFromAvro (the sink: a decoded block record straight to its row)', () => {
  const pageValues = EVENT_COLUMNS.map((c) => pageEventRow[c]);

  it('maps the record as the registry decodes it to exactly the events row', async () => {
    const registry = createInProcessRegistry();
    const id = await registry.register('events.core-value', blockEventSchema('core') as object);
    const decoded = (await registry.decode(await registry.encode(id, canonicalToAvro(pageEvent)))) as Record<string, unknown>;
    expect(eventValuesFromAvro(decoded)).toEqual(pageValues);
  });

  it('keeps meta as the text the validator wrote (never parsed), lone surrogates as U+FFFD', () => {
    const record = canonicalToAvro(pageEvent);
    const meta = (meta_json: string) => eventValuesFromAvro({ ...record, meta_json })[EVENT_COLUMNS.indexOf('meta')];
    expect(meta('{ "campaign" : "spring" }')).toBe('{ "campaign" : "spring" }');
    expect(meta(JSON.stringify({ a: '\ud800' }))).toBe('{"a":"\ufffd"}');
    expect(eventValuesFromAvro({ ...record, meta_json: null })[EVENT_COLUMNS.indexOf('meta')]).toBeNull();
  });

  it('reads a record written before warnings existed as having none', () => {
    const { warnings: _w, ...older } = canonicalToAvro(pageEvent);
    expect(eventValuesFromAvro(older)[EVENT_COLUMNS.indexOf('warnings')]).toEqual([]);
  });

  it('reads a record written before sent_at and corrected_time existed as uncorrected: no sent_at, corrected_time = time', () => {
    const { sent_at: _s, corrected_time: _c, ...older } = canonicalToAvro(pageEvent);
    const values = eventValuesFromAvro(older);
    expect([values[EVENT_COLUMNS.indexOf('sent_at')], values[EVENT_COLUMNS.indexOf('corrected_time')]]).toEqual([null, '2024-03-01 00:00:12.345']);
  });

  it.each([
    [{ envelope: 'nested' }, 'envelope', 'nested is not one of current, earlier, flat'],
    [{ client_json: '[1]' }, 'client_json', 'expected a JSON object'],
    [{ client_json: '{' }, 'client_json', expect.stringMatching(/^not JSON: /)],
    [{ app_version_code: 1.5 }, 'app_version_code', 'expected an integer, got 1.5'],
    [{ block: '' }, 'block', 'must not be empty'],
  ])('refuses %j (a producer bug) with a RowError at %s', (over, path, message) => {
    const err = thrown(() => eventValuesFromAvro({ ...canonicalToAvro(pageEvent), ...over }));
    expect(err).toBeInstanceOf(RowError);
    expect({ path: err.path, message: err.message }).toEqual({ path, message });
  });
});

describe('chTime', () => {
  it('renders the range edges exactly', () => {
    expect(chTime(Date.UTC(1900, 0, 1), 't')).toBe('1900-01-01 00:00:00.000');
    expect(chTime(Date.UTC(2299, 11, 31, 23, 59, 59, 999), 't')).toBe('2299-12-31 23:59:59.999');
    expect(() => chTime(Date.UTC(1899, 11, 31, 23, 59, 59, 999), 't')).toThrow(RowError);
    expect(() => chTime(Number.NaN, 't')).toThrow(RowError);
  });
});

describe('rejectedRow', () => {
  it('maps a typed rejected record to exactly the rejected row', () => {
    expect(rejectedRow(rejectedRecord)).toEqual({
      ...rejectedRecord,
      received_at: '2024-03-01 00:01:40.001',
      failed_at: '2024-03-01 00:01:40.100',
    });
  });

  it('keeps a kind it does not know yet (the column is text) but not an empty one', () => {
    expect(rejectedRow({ ...rejectedRecord, kind: 'quota_violation' }).kind).toBe('quota_violation');
    expect(thrown(() => rejectedRow({ ...rejectedRecord, kind: '' })).path).toBe('kind');
  });
});

describe('customCatalogRow', () => {
  const value = {
    app_id: 'app-1',
    id: 'item-77',
    kind: 'game_item',
    received_at: 1709251300001,
    request_id: 'req-9',
    record_json: '{"name":"Game Item","power":"12"}',
  };

  it('keeps provenance and the kind as columns, the fields as sent as the record', () => {
    expect(customCatalogRow(value)).toEqual({
      app_id: 'app-1',
      kind: 'game_item',
      id: 'item-77',
      received_at: '2024-03-01 00:01:40.001',
      request_id: 'req-9',
      record: { name: 'Game Item', power: '12' },
    });
  });

  it.each([
    [{ kind: 'Game Item' }, 'kind'],
    [{ id: '' }, 'id'],
    [{ received_at: 1e15 }, 'received_at'],
  ])('refuses %j (a producer bug) with a RowError at %s', (over, path) => {
    expect(() => customCatalogRow({ ...value, ...over })).toThrow(RowError);
    try {
      customCatalogRow({ ...value, ...over });
    } catch (err) {
      expect((err as RowError).path).toBe(path);
    }
  });
});

describe('catalogRow', () => {
  it('keeps provenance as columns and the typed fields plus unknown properties as the record', () => {
    expect(
      catalogRow(
        catalogToAvro({
          app_id: 'app-1',
          id: 'p-1',
          kind: 'patient',
          received_at: 1709251300001,
          request_id: 'req-9',
          record: { id: 'p-1', country: 'Kenya', site_id_list: ['s1', 's2'], insurance_status: true },
          extra: { custom: 'x' },
        }),
      ),
    ).toEqual({
      app_id: 'app-1',
      id: 'p-1',
      received_at: '2024-03-01 00:01:40.001',
      request_id: 'req-9',
      record: { custom: 'x', country: 'Kenya', site_id_list: ['s1', 's2'], insurance_status: true },
    });
  });

  it("reads JSON-text fields (a site's attributes) back as JSON", () => {
    const row = catalogRow(
      catalogToAvro({
        app_id: 'app-1',
        id: 's-1',
        kind: 'site',
        received_at: 1709251300001,
        request_id: 'req-9',
        record: { id: 's-1', name: 'Clinic', type: 'clinic', attributes: { beds: 4, insurers: ['a'] } },
        extra: null,
      }),
    );
    expect(row.record).toEqual({ name: 'Clinic', type: 'clinic', attributes: { beds: 4, insurers: ['a'] } });
  });

  it('needs an id and a time ClickHouse can hold', () => {
    const base = { app_id: 'app-1', id: 'p-1', kind: 'patient' as const, received_at: 1, request_id: '', record: {}, extra: null };
    const noId = thrown(() => catalogRow(catalogToAvro({ ...base, id: '' })));
    expect([noId.path, noId.message]).toEqual(['id', 'must not be empty']);
    const late = thrown(() => catalogRow(catalogToAvro({ ...base, received_at: Number.MAX_SAFE_INTEGER })));
    expect(late.path).toBe('received_at');
  });
});

describe('actionLogRow', () => {
  const entry: ActionLogEntry = {
    entry_id: 'e1',
    kind: 'expired',
    app_id: 'app-1',
    user_id: 'u1',
    inv_id: 1,
    action_id: 2,
    at: Date.UTC(2030, 0, 2),
    created_at: Date.UTC(2030, 0, 1, 0, 0, 0, 5),
    type: 'message',
    render_method: 'push_notification',
    delivery_mode: 'one-off',
    expired_at: Date.UTC(2030, 0, 2),
    tags: [],
    attr: {},
    source: '',
    reason: '',
    available_at: null,
  };

  it('keeps every field, times as DateTime64 text', () => {
    expect(actionLogRow(entry)).toEqual({
      ...entry,
      at: '2030-01-02 00:00:00.000',
      created_at: '2030-01-01 00:00:00.005',
      expired_at: '2030-01-02 00:00:00.000',
      available_at: null,
    });
    expect(actionLogRow({ ...entry, expired_at: null }).expired_at).toBeNull();
  });

  it('writes a capped entry with its reason and available_at (010_actions_log_caps.sql)', () => {
    const capped: ActionLogEntry = { ...entry, kind: 'capped', reason: 'app_cap', available_at: Date.UTC(2030, 0, 1, 9), source: 'campaign:42' };
    expect(actionLogRow(capped)).toMatchObject({ kind: 'capped', reason: 'app_cap', available_at: '2030-01-01 09:00:00.000', source: 'campaign:42' });
    // An entry decoded from a record written before these fields carries the schema's defaults; a
    // value that skipped decoding (undefined) maps to the columns' defaults too.
    const old = { ...entry, reason: undefined, available_at: undefined } as unknown as ActionLogEntry;
    expect(actionLogRow(old)).toMatchObject({ reason: '', available_at: null });
  });

  it("stores an expiry past DateTime64's end (2299) as that end", () => {
    expect(actionLogRow({ ...entry, expired_at: Date.UTC(2999, 0, 1) }).expired_at).toBe('2299-12-31 23:59:59.999');
  });

  it('refuses an unknown kind and a time ClickHouse cannot hold, naming the field', () => {
    expect([thrown(() => actionLogRow({ ...entry, kind: 'shown' as never })).path, thrown(() => actionLogRow({ ...entry, at: -1e15 })).path]).toEqual([
      'kind',
      'at',
    ]);
  });
});

describe('unreadableRow', () => {
  const msg: BusMessage = {
    topic: 'events.core',
    partition: 2,
    offset: '41',
    key: 'app-1:user-42',
    value: Buffer.from([0x01, 0x02, 0xff]),
    headers: { event_id: 'e1' },
    timestamp: 1709251300001,
  };

  it('keeps the bytes (base64), the coordinates and the failure; same message ⇒ same id', () => {
    const problem = { path: '$', rule: 'avro_decode', message: 'bad magic byte 0x01' };
    const row = unreadableRow(msg, problem, 1709251300500);
    expect({ ...row, rejection_id: row.rejection_id.length }).toEqual({
      rejection_id: 32,
      kind: 'parse_violation',
      errors: [problem],
      payload: 'AQL/',
      payload_truncated: false,
      app_id: 'app-1',
      request_id: '',
      key_id: '',
      received_at: '2024-03-01 00:01:40.001',
      failed_at: '2024-03-01 00:01:40.500',
      processor: 'evp-segmenter-sink/0.1',
      event_count: 1,
      envelope_index: null,
      event_index: null,
      event_name: null,
      payload_kind: 'message_base64',
      source: 'events.core/2/41',
      user_id: null,
    });
    expect(unreadableRow(msg, problem, 1).rejection_id).toBe(row.rejection_id);
    // The offset is provenance, not identity (offsets restart); other bytes are another message.
    expect(unreadableRow({ ...msg, offset: '0', partition: 0 }, problem, 1).rejection_id).toBe(row.rejection_id);
    expect(unreadableRow({ ...msg, value: Buffer.from('other') }, problem, 1).rejection_id).not.toBe(row.rejection_id);
  });
});
