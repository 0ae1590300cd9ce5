import { RowBinaryWriter } from '@evp/clickhouse';
import { topics } from '@evp/core';
import { createInProcessRegistry } from '@evp/embedded';
import { avroFieldsOf, blockEventSchema, blockSubject, canonicalToAvro, CANONICAL_FIELDS, type CanonicalEvent } from '@evp/schemas';
import { pageEvent } from '../testing';
import { EventRowBinaryReader } from './avro-rowbinary';
import { EVENTS_ROW_BINARY } from './rows';

// The transcoder against today's rows: for every message it takes, the row is byte for byte what
// the general path (registry decode → EVENTS_ROW_BINARY) writes, with the same identity; every
// message it cannot vouch for is left to the general path (undefined), never written differently.

const registry = createInProcessRegistry();
const reader = new EventRowBinaryReader(registry);
let id: number;
beforeAll(async () => {
  id = await registry.register(blockSubject(topics.events('core')), blockEventSchema('core') as object);
});

const long = 'ü'.repeat(70) + 'x'.repeat(200);
const events: [string, CanonicalEvent][] = [
  ['a page event with meta and a warning', pageEvent],
  [
    'nulls wherever a field may be null',
    { ...pageEvent, session_start: null, session_end: null, app_version_code: null, sent_name: null, property: null, sent_at: null, meta: null, warnings: [] },
  ],
  [
    'an earlier-form event with client info: quotes, brackets in strings, non-ASCII, emoji',
    {
      ...pageEvent,
      envelope: 'earlier',
      sent_name: 'PageView',
      client: { up: 512, dn: 2048, d_info: { brand: 'acme "x" ]}', os_ver: '14', name: 'Jürgen 😀' }, nested: [[{}], {}] },
    },
  ],
  [
    'long and multi-byte strings (lengths past one varint byte)',
    { ...pageEvent, user_id: long, device_id: `${long}😀`, property: long, meta: [long, 1, null] },
  ],
  [
    'a flat-form event, times before 1970, a negative version code',
    { ...pageEvent, envelope: 'flat', time: -1, corrected_time: -1, session_start: -86_400_000, app_version_code: -5 },
  ],
  ['another event type of the block (app)', { ...pageEvent, name: 'app', props: { action: 'open', start_time: 800 } }],
  [
    'a media event with two warnings and scalar meta',
    {
      ...pageEvent,
      name: 'media',
      props: { id: 'm-1', type: 'video', action: 'play', time: 3 },
      meta: 'text\n\n',
      warnings: [pageEvent.warnings[0]!, { path: '$', rule: 'r\u0000', message: '' }],
    },
  ],
];

/** The general path's row and identity for the same bytes. */
async function general(bytes: Buffer) {
  const record = (await registry.decode(bytes)) as Record<string, unknown>;
  return {
    row: EVENTS_ROW_BINARY.write(new RowBinaryWriter(), record),
    eventId: record.event_id,
    appId: record.app_id,
    userId: record.user_id,
    name: record.name,
    receivedAtMs: record.received_at,
  };
}

describe('EventRowBinaryReader (an events message straight from its Avro bytes to its RowBinary row)', () => {
  it.each(events)('writes the general path’s row byte for byte: %s', async (_name, e) => {
    const bytes = await registry.encode(id, canonicalToAvro(e));
    const fast = await reader.fromBytes(bytes, new RowBinaryWriter());
    expect(fast).toBeDefined();
    const expected = await general(bytes);
    expect({ ...fast, row: fast?.row.toString('hex') }).toEqual({ ...expected, row: expected.row.toString('hex') });
  });

  it('writes many rows into one writer, each whole', async () => {
    const w = new RowBinaryWriter();
    const all = await Promise.all(events.map(([, e]) => registry.encode(id, canonicalToAvro(e))));
    const rows = [];
    for (let round = 0; round < 2_000; round++) for (const bytes of all) rows.push((await reader.fromBytes(bytes, w))?.row);
    const expected = await Promise.all(all.map(async (b) => (await general(b)).row));
    expect(rows.every((r, i) => r?.equals(expected[i % all.length] as Buffer))).toBe(true);
  });

  it('writes the stamp after the row, in the same view of the writer, without touching the message', async () => {
    const w = new RowBinaryWriter();
    const bytes = await registry.encode(id, canonicalToAvro(pageEvent));
    const copy = Buffer.from(bytes);
    const apps: string[] = [];
    const first = await reader.fromBytes(bytes, w, (appId) => (apps.push(appId), 400));
    const second = await reader.fromBytes(bytes, w, () => 7);
    const expected = (await general(bytes)).row;
    expect(apps).toEqual([pageEvent.app_id]);
    expect(first?.row.toString('hex')).toBe(Buffer.concat([expected, Buffer.from([0x90, 0x01])]).toString('hex'));
    // The second row follows the first in the chunk; the first is not overwritten by it.
    expect(second?.row.toString('hex')).toBe(Buffer.concat([expected, Buffer.from([7, 0])]).toString('hex'));
    expect(first?.row.readUInt16LE(expected.length)).toBe(400);
    expect(second?.row.byteOffset).toBe((first?.row.byteOffset ?? 0) + expected.length + 2);
    expect(bytes.equals(copy)).toBe(true);
  });

  it.each([
    ['a lone surrogate in a string (the general path reads U+FFFD per byte)', { user_id: 'x\ud800y' }],
    ['a lone surrogate escape in meta (the general path rewrites it)', { meta: { k: '\ud800' } }],
    ['a time outside DateTime64', { time: Date.UTC(2300, 0, 1) }],
    ['an empty event id', { event_id: '' }],
  ] as [string, Partial<CanonicalEvent>][])('leaves %s to the general path', async (_name, over) => {
    const bytes = await registry.encode(id, canonicalToAvro({ ...pageEvent, ...over }));
    expect(await reader.fromBytes(bytes, new RowBinaryWriter())).toBeUndefined();
  });

  it.each([
    ['client_json that is no bounded object', { client_json: '{}],["evil"' }],
    ['an envelope form the Enum8 lacks', { envelope: 'nested' }],
  ])('leaves a record with %s to the general path', async (_name, over) => {
    const bytes = await registry.encode(id, { ...canonicalToAvro(pageEvent), ...over });
    expect(await reader.fromBytes(bytes, new RowBinaryWriter())).toBeUndefined();
  });

  it('leaves messages of a writer schema whose canonical fields differ (an older version), bytes that are no wire format and an unknown id to the general path', async () => {
    const older = createInProcessRegistry();
    const fields = avroFieldsOf(CANONICAL_FIELDS).filter((f) => f.name !== 'sent_at' && f.name !== 'corrected_time');
    const olderId = await older.register('older-value', { type: 'record', name: 'CoreEvent', namespace: 'evp.events.core', fields });
    const { sent_at: _s, corrected_time: _c, ...record } = canonicalToAvro(pageEvent);
    const olderBytes = await older.encode(olderId, record);
    expect(await new EventRowBinaryReader(older).fromBytes(olderBytes, new RowBinaryWriter())).toBeUndefined();
    expect(await reader.fromBytes(Buffer.from('{"json":1}'), new RowBinaryWriter())).toBeUndefined();
    expect(await reader.fromBytes(Buffer.from([0, 0x7f, 0, 0, 0, 2, 0x61]), new RowBinaryWriter())).toBeUndefined();
  });
});
