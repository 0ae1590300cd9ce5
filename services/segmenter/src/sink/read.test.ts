import { readRowBinary } from '@evp/clickhouse';
import { InfraError, deadLetterOf, processorOf, topics, type BusMessage, type SchemaRegistry } from '@evp/core';
import { createInProcessRegistry } from '@evp/embedded';
import { blockEventSchema, blockSubject, canonicalToAvro } from '@evp/schemas';
import { pageEvent, pageEventRow } from '../testing';
import { readSinkMessage, sinkReadState, unreadableError, type ReadRow, type SinkRead } from './read';
import { STAMPED_ROW_BINARY } from './rows';

const message = (topic: string, value: Buffer, headers: Record<string, string> = {}): BusMessage => ({
  topic,
  partition: 0,
  offset: '5',
  key: 'k',
  value,
  headers,
  timestamp: 1,
});

const registry = createInProcessRegistry();
const state = sinkReadState(registry);
let eventBytes: Buffer;
beforeAll(async () => {
  const id = await registry.register(blockSubject(topics.events('core')), blockEventSchema('core') as object);
  eventBytes = await registry.encode(id, canonicalToAvro(pageEvent));
});

const row = (r: SinkRead) => {
  if ('unreadable' in r) throw new Error(`unreadable: ${r.unreadable.rule}`);
  return r;
};
/** A RowBinary row read back as an object (column → value, as the JSON formats show it). */
const parsed = (r: ReadRow) => {
  const table = STAMPED_ROW_BINARY.get(r.table);
  if (!table || !Buffer.isBuffer(r.row)) throw new Error(`${r.table} rows are not RowBinary`);
  const [values] = readRowBinary(table.types, r.row) as [unknown[]];
  return Object.fromEntries(table.columns.map((c, i) => [c, values[i]]));
};

describe('readSinkMessage', () => {
  it('reads an event into its events row, keyed by its id, with who did what when the sink tracks it', async () => {
    const tracked = row(await readSinkMessage(message(topics.events('core'), eventBytes), state, true));
    // An events row is written as RowBinary, its values in the events columns' order.
    expect({ ...tracked, row: parsed(tracked) }).toEqual({
      table: 'events',
      row: { ...pageEventRow, retention_days: 0 },
      key: pageEvent.event_id,
      receivedAtMs: pageEvent.received_at,
      inserted: { app_id: 'app-1', user_id: 'user-42', name: 'page', event_id: pageEvent.event_id },
      owner: { appId: 'app-1', kind: 'user', id: 'user-42' },
    });
    const untracked = row(await readSinkMessage(message(topics.events('core'), eventBytes), state, false));
    expect(untracked.inserted).toBeUndefined();
    expect(untracked.row).toEqual(tracked.row);
  });

  it('stamps each row with its app’s retention of the row’s class (events: events; dead letters: rejected)', async () => {
    const asked: string[] = [];
    const retention = (appId: string) => {
      asked.push(appId);
      return { events: 90, rejected: 7, catalogs: 0, action_log: 400, history: 0 };
    };
    const event = row(await readSinkMessage(message(topics.events('core'), eventBytes), state, false, retention));
    expect(parsed(event).retention_days).toBe(90);
    const letter = deadLetterOf(message('campaigns.triggers', Buffer.from([0xff]), { app_id: 'app-9' }), {
      group: 'g',
      error: { kind: 'unreadable', message: 'no', retriable: false },
      processor: processorOf('p'),
      failedAt: 1_000,
    });
    const dead = row(await readSinkMessage(message(topics.deadLetters, letter.value, letter.headers ?? {}), state, false, retention));
    expect([parsed(dead).app_id, parsed(dead).retention_days]).toEqual(['app-9', 7]);
    expect(asked).toEqual(['app-1', 'app-9']);
  });

  it('reads a dead letter from its envelope headers (its bytes are the source message’s, never decoded)', async () => {
    const source = message('campaigns.triggers', Buffer.from([0xff]));
    const letter = deadLetterOf(source, {
      group: 'g',
      error: { kind: 'unreadable', message: 'no', retriable: false },
      processor: processorOf('p'),
      failedAt: 1_000,
    });
    const r = row(await readSinkMessage(message(topics.deadLetters, letter.value, letter.headers ?? {}), state, true));
    expect([r.table, r.key, r.receivedAtMs, parsed(r).source_topic, r.inserted]).toEqual([
      'dead_letters',
      letter.headers?.dlq_id,
      1_000,
      'campaigns.triggers',
      undefined,
    ]);
  });

  it('says why a message cannot be read, as the rule and where: a dead letter’s error, unreadable or invalid', async () => {
    const notAvro = await readSinkMessage(message(topics.events('core'), Buffer.from('{"json":1}')), state, true);
    expect('unreadable' in notAvro && notAvro.unreadable.rule).toBe('avro_decode');
    expect('unreadable' in notAvro && unreadableError(notAvro.unreadable)).toEqual({
      kind: 'unreadable',
      message: expect.stringMatching(/^avro_decode at \$: /),
      retriable: false,
    });
    const noEnvelope = await readSinkMessage(message(topics.deadLetters, Buffer.from('x')), state, true);
    expect('unreadable' in noEnvelope && unreadableError(noEnvelope.unreadable)).toEqual({
      kind: 'invalid',
      message: 'dead_letter_envelope at $.headers: no dlq_id header',
      retriable: false,
    });
  });

  it('throws on a registry outage (retriable: the batch comes back) and on a topic the sink does not read', async () => {
    const down: SchemaRegistry = {
      register: () => Promise.reject(new Error('unused')),
      encode: () => Promise.reject(new Error('unused')),
      decode: () => Promise.reject(new InfraError('registry', 'unreachable', { retriable: true })),
      schemaById: () => Promise.reject(new InfraError('registry', 'unreachable', { retriable: true })),
    };
    await expect(readSinkMessage(message(topics.events('core'), eventBytes), sinkReadState(down), true)).rejects.toThrow(
      expect.objectContaining({ retriable: true }),
    );
    await expect(readSinkMessage(message('ingest.raw', eventBytes), state, true)).rejects.toThrow('the sink does not read topic ingest.raw');
  });
});
