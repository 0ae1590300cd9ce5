import type { DeadLetter } from '@evp/core';
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
  EVENTS_ROW_BINARY,
  DEAD_LETTERS_ROW_BINARY,
  REJECTED_ROW_BINARY,
  deadLetterApp,
  deadLetterRecord,
  deadLetterRow,
  rejectedRow,
} from './rows';
import { RowBinaryWriter, readRowBinary } from '@evp/clickhouse';
import { pageEvent, pageEventRow, rejectedRecord } from '../testing';
import { MAX_REJECTED_PAYLOAD_CHARS, blockEventSchema, canonicalToAvro, catalogToAvro, type ActionLogEntry } from '@evp/schemas';
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

describe('EVENTS_ROW_BINARY (the RowBinary the sink inserts: client spliced in, never parsed)', () => {
  const record = canonicalToAvro(pageEvent);
  const earlier = canonicalToAvro({
    ...pageEvent,
    envelope: 'earlier',
    meta: { note: 'tab\there' },
    client: { up: 512, dn: 2048, d_info: { brand: 'acme "x" ]}', os_ver: '14', lone: '\ud800', nested: [[{}], {}] } },
  });
  const w = new RowBinaryWriter();
  const written = (r: Record<string, unknown>) => EVENTS_ROW_BINARY.write(w, r);
  /** The row read back, as the JSON formats show it (times as text, JSON columns parsed). */
  const readBack = (r: Record<string, unknown>) => readRowBinary(EVENTS_ROW_BINARY.types, written(r));

  it.each([
    ['a current-form record (client {})', record],
    ['an earlier-form record with client info, quotes, brackets in strings and a lone surrogate', earlier],
    ['a record whose client_json is null', { ...record, client_json: null }],
  ])('writes the same values as eventValuesFromAvro: %s', (_name, r) => {
    const values = eventValuesFromAvro(r) as unknown[];
    // The JSON-text values as JSON parses them (`meta` is a String column: its text stays).
    const expected = JSON.parse(JSON.stringify(values).replace('\\ud800', '\ufffd')) as unknown[];
    expect(readBack(r)).toEqual([expected]);
    expect(EVENTS_ROW_BINARY.columns).toEqual(EVENT_COLUMNS);
  });

  it('writes a lone surrogate in client as U+FFFD, as the parsed path does', () => {
    const [[...values]] = readBack(earlier) as [unknown[]];
    const client = values[EVENT_COLUMNS.indexOf('client')] as { d_info: { lone: string } };
    expect(client.d_info.lone).toBe('\ufffd');
  });

  it.each([
    ['[1]', 'expected a JSON object'],
    ['"{}"', 'expected a JSON object'],
    ['{', 'not JSON: the object is not closed'],
    ['{"a":"}', 'not JSON: the object is not closed'],
    ['{}],["evil"', 'not JSON: text after the object'],
    ['{} {}', 'not JSON: text after the object'],
    ['{"a":[1]}]', 'not JSON: text after the object'],
  ])('refuses client_json %j with a RowError at client_json: it could not be spliced as one value', (client_json, message) => {
    const err = thrown(() => written({ ...record, client_json }));
    expect(err).toBeInstanceOf(RowError);
    expect({ path: err.path, message: err.message }).toEqual({ path: 'client_json', message });
  });

  it('leaves nothing of a refused row in the writer: the next row is whole', () => {
    thrown(() => written({ ...record, envelope: 'nested' }));
    thrown(() => written({ ...record, client_json: '{' }));
    expect(readBack(record)).toEqual(readRowBinary(EVENTS_ROW_BINARY.types, EVENTS_ROW_BINARY.write(new RowBinaryWriter(), record)));
  });

  it('refuses a value its column type cannot hold with a RowError at its field', () => {
    const err = thrown(() => written({ ...record, app_version_code: 2 ** 31 }));
    expect({ path: err.path, message: err.message }).toEqual({ path: 'app_version_code', message: 'expected a Int32, got 2147483648' });
  });
});

describe('REJECTED_ROW_BINARY and DEAD_LETTERS_ROW_BINARY', () => {
  const w = new RowBinaryWriter();
  const asObject = (table: { columns: readonly string[]; types: readonly string[] }, row: Buffer) => {
    const [values] = readRowBinary(table.types, row) as [unknown[]];
    return Object.fromEntries(table.columns.map((c, i) => [c, values[i]]));
  };

  it('write the rows rejectedRow and deadLetterRow build', () => {
    expect(asObject(REJECTED_ROW_BINARY, REJECTED_ROW_BINARY.write(w, rejectedRecord))).toEqual(rejectedRow(rejectedRecord));
    const letter: DeadLetter = {
      id: 'dlq-1',
      source: { topic: 'events.core', partition: 2, offset: '7', key: 'app-1:u', timestamp: 0 },
      group: 'g',
      error: { kind: 'refused', message: 'no\n\nway', retriable: false },
      processor: { name: 'p', version: '1' },
      failedAt: 1_000,
      replay: null,
      headers: { app_id: 'app-1', 'x-ü': 'v\u0000' },
      value: Buffer.from([0xff, 0x0a, 0x0a]),
    } as unknown as DeadLetter;
    expect(asObject(DEAD_LETTERS_ROW_BINARY, DEAD_LETTERS_ROW_BINARY.write(w, deadLetterRecord(letter)))).toEqual(deadLetterRow(letter));
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

describe('deadLetterRow', () => {
  const letter: DeadLetter = {
    id: 'dl-1',
    source: { topic: 'events.core', partition: 2, offset: '41', key: 'app-1:user-42' },
    group: 'action-store.feedback',
    error: { kind: 'unreadable', message: 'not an event: bad magic byte', retriable: false },
    processor: { name: 'action-store', version: '0.1.0' },
    failedAt: 1709251300500,
    value: Buffer.from([0x01, 0x02, 0xff]),
    headers: { event_id: 'e1' },
    replay: { of: 'dl-0', count: 2 },
  };

  it('flattens the envelope: bytes that are not UTF-8 as base64, the app from the key', () => {
    expect(deadLetterRow(letter)).toEqual({
      dead_letter_id: 'dl-1',
      app_id: 'app-1',
      source_topic: 'events.core',
      source_partition: 2,
      source_offset: '41',
      source_key: 'app-1:user-42',
      consumer_group: 'action-store.feedback',
      error_kind: 'unreadable',
      error_message: 'not an event: bad magic byte',
      error_retriable: false,
      processor: 'action-store',
      processor_version: '0.1.0',
      failed_at: '2024-03-01 00:01:40.500',
      replay_of: 'dl-0',
      replay_count: 2,
      headers: { event_id: 'e1' },
      payload: 'AQL/',
      payload_encoding: 'base64',
      payload_bytes: 3,
      payload_truncated: false,
    });
  });

  it('keeps UTF-8 as text, a prefix of a huge one; the app header wins over the key', () => {
    const big = 'x'.repeat(MAX_REJECTED_PAYLOAD_CHARS + 5);
    const row = deadLetterRow({ ...letter, value: Buffer.from(big), headers: { app_id: 'app-h' }, replay: null });
    expect([row.app_id, row.payload.length, row.payload_encoding, row.payload_bytes, row.payload_truncated, row.replay_of, row.replay_count]).toEqual([
      'app-h',
      MAX_REJECTED_PAYLOAD_CHARS,
      'utf8',
      MAX_REJECTED_PAYLOAD_CHARS + 5,
      true,
      null,
      0,
    ]);
  });

  it('tells the app from the app_id header, an `app:` key, or an actions.requested key; otherwise none', () => {
    const app = (topic: string, key: string | null, headers: Record<string, string> = {}) =>
      deadLetterApp({ headers, source: { ...letter.source, topic, key } });
    expect([
      app('segments.work', 'app-2:seg-1'),
      app('actions.requested', 'app-3'),
      app('campaigns.triggers', 'no-colon'),
      app('ingest.raw', null, { app_id: 'app-4' }),
      app('ingest.raw', null),
    ]).toEqual(['app-2', 'app-3', '', 'app-4', '']);
  });
});
