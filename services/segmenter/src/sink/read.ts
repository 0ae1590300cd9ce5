import { JsonRow, RowBinaryWriter, stringifyWellFormed } from '@evp/clickhouse';
import {
  BLOCKS,
  CATALOG_KINDS,
  DEFAULT_RETENTION,
  errorMessage,
  isRetriable,
  readDeadLetter,
  topics,
  type AppRetention,
  type BusMessage,
  type CatalogKind,
  type DeadLetterError,
  type SchemaRegistry,
} from '@evp/core';
import { RecordReadError, readActionLogEntry, readIngestReceipt } from '@evp/schemas';
import { EventRowBinaryReader, type RowStamp } from './avro-rowbinary';
import {
  DEAD_LETTERS_ROW_BINARY,
  EVENTS_ROW_BINARY,
  REJECTED_ROW_BINARY,
  RowError,
  TABLES,
  actionLogRow,
  catalogRow,
  customCatalogRow,
  deadLetterRecord,
  receiptRow,
} from './rows';

/**
 * What one stored row says about who did what: the segment engine's trigger (which segments may
 * have changed, for which users). Events carry app, user and canonical name; catalog records their
 * kind (and, for the `user` catalog, the user: the record's id). An event also carries its id, which
 * campaign event triggers name to read the event back (campaigns/triggers/event.ts).
 */
export interface InsertedRow {
  app_id: string;
  user_id?: string;
  name?: string;
  event_id?: string;
  catalog?: CatalogKind;
}

/** Every topic the sink reads: one per block, one per catalog kind, the app-defined catalogs, the rejected records, the receipts and the action log. */
export const SINK_TOPICS: string[] = [
  ...BLOCKS.map((b) => topics.events(b)),
  ...CATALOG_KINDS.map((k) => topics.catalog(k)),
  topics.customCatalog,
  topics.rejected,
  topics.receipts,
  topics.actionsLog,
  topics.deadLetters,
];

/**
 * Every row is written when its message is read, not when its insert starts: the insert of one
 * slice (ClickHouse's thread) then overlaps both the decoding and the writing of the next (the JS
 * thread), and an insert only joins bytes. Rows of a table with a field table are RowBinary
 * (ROW_BINARY_TABLES), the others JSON text (the same text the client would write).
 */
const jsonRow = (row: object) => new JsonRow(stringifyWellFormed(row));

/**
 * What reading a sink's messages keeps between them: its registry, the writer its RowBinary rows
 * are written into (each row a view into one of its chunks: a row is written in one synchronous
 * call, so rows of concurrent reads never interleave) and the events reader's transcoders.
 */
export interface SinkReadState {
  registry: SchemaRegistry;
  rows: RowBinaryWriter;
  events: EventRowBinaryReader;
  /** The events' retention stamp of the last RetentionOf met (the sink makes one per batch): one closure per batch, not per message. */
  stamp?: { of: RetentionOf; stamp: RowStamp };
}

function eventsStamp(state: SinkReadState, retentionOf: RetentionOf): RowStamp {
  if (state.stamp?.of !== retentionOf) state.stamp = { of: retentionOf, stamp: (appId) => retentionOf(appId).events };
  return state.stamp.stamp;
}

/** A sink's read state (one per sink). */
export const sinkReadState = (registry: SchemaRegistry): SinkReadState => ({
  registry,
  rows: new RowBinaryWriter(),
  events: new EventRowBinaryReader(registry),
});

type Route =
  | { table: 'events' }
  | { table: 'rejected' }
  | { table: 'receipts' }
  | { table: 'actions_log' }
  | { table: 'catalog'; kind: CatalogKind }
  | { table: 'customCatalog' }
  | { table: 'dead_letters' };

const routes = new Map<string, Route>([
  ...BLOCKS.map((b) => [topics.events(b), { table: 'events' }] as [string, Route]),
  ...CATALOG_KINDS.map((k) => [topics.catalog(k), { table: 'catalog', kind: k }] as [string, Route]),
  [topics.customCatalog, { table: 'customCatalog' }],
  [topics.rejected, { table: 'rejected' }],
  [topics.receipts, { table: 'receipts' }],
  [topics.actionsLog, { table: 'actions_log' }],
  [topics.deadLetters, { table: 'dead_letters' }],
]);

/**
 * An app's retention per class (the keys file's `apps.<app>.retention`): each row is stamped with
 * its class's days in `retention_days` (016_retention.sql). The sink passes a lookup cached per
 * batch, so a row costs one map read.
 */
export type RetentionOf = (appId: string) => AppRetention;
const defaultRetention: RetentionOf = () => DEFAULT_RETENTION;

/** A message read: its row, ready to insert. */
export interface ReadRow {
  table: string;
  /**
   * Serialized as it is read: the JS thread writes it while ClickHouse inserts the previous slice.
   * RowBinary bytes for the tables of ROW_BINARY_TABLES, JSON text for the others.
   */
  row: Buffer | JsonRow;
  key: string;
  receivedAtMs: number;
  /** Set only when the sink has an onInserted hook (read from values the row is built from anyway). */
  inserted?: InsertedRow | undefined;
  /** The person the row is of (an event's or an action log entry's user, a user or patient record's id): a suppressed one's row is dropped. */
  owner?: RowOwner;
}

/** Whose row it is, as a suppression names people. */
interface RowOwner {
  appId: string;
  kind: 'user' | 'patient';
  id: string;
}

/**
 * Why a message cannot be read (it is dead-lettered, never a row, never dropped, before its batch
 * commits): `avro_decode` and `record`, the bytes are no record of a known schema; the others, a
 * record that breaks its contract (`contract`, `canonical`, `row`: a value ClickHouse cannot hold)
 * or a dead letter whose envelope is none (`dead_letter_envelope`).
 */
export interface UnreadableMessage {
  rule: string;
  /** Where in the message, as a JSON path. */
  path: string;
  err: unknown;
}

export type SinkRead = ReadRow | { unreadable: UnreadableMessage };

/** The dead letter's error of an unreadable message. */
export function unreadableError(u: UnreadableMessage): DeadLetterError {
  const kind = u.rule === 'avro_decode' || u.rule === 'record' ? 'unreadable' : 'invalid';
  return { kind, message: `${u.rule} at ${u.path}: ${errorMessage(u.err)}`, retriable: false };
}

// A function, not a closure per message: one per message was a measurable cost in the sink's loop.
const unreadable = (rule: string, path: string, err: unknown) => ({ unreadable: { rule, path, err } });

function readDeadLetterMessage(msg: BusMessage, rowBinary: RowBinaryWriter, retentionOf: RetentionOf): SinkRead {
  const r = readDeadLetter(msg);
  if (!r.ok) return unreadable('dead_letter_envelope', '$.headers', new Error(r.problem));
  try {
    const record = deadLetterRecord(r.letter);
    const row = rowBinary.withUInt16(DEAD_LETTERS_ROW_BINARY.write(rowBinary, record), retentionOf(record.app_id as string).rejected);
    return { table: TABLES.deadLetters, row, key: r.letter.id, receivedAtMs: r.letter.failedAt };
  } catch (err) {
    return err instanceof RowError ? unreadable('row', `$.${err.path}`, err) : unreadable('dead_letter_envelope', '$', err);
  }
}

/**
 * One message of a topic the sink reads → its row (decoded through the registry; a dead letter from
 * its headers), or why it cannot be read. A registry outage throws (retriable: the batch comes back).
 * With `tracking`, events and catalog records also say who did what (InsertedRow).
 */
export async function readSinkMessage(
  msg: BusMessage,
  state: SinkReadState,
  tracking: boolean,
  retentionOf: RetentionOf = defaultRetention,
): Promise<SinkRead> {
  const { registry, rows: rowBinary } = state;
  const route = routes.get(msg.topic);
  if (!route) throw new Error(`the sink does not read topic ${msg.topic}`);
  // A dead letter is its envelope's headers around the source message's bytes: never Avro.
  if (route.table === 'dead_letters') return readDeadLetterMessage(msg, rowBinary, retentionOf);
  if (route.table === 'events') {
    // Straight from the Avro bytes when it can vouch for the row; else the general path below.
    const fast = state.events.fromBytes(msg.value, rowBinary, eventsStamp(state, retentionOf));
    const e = fast instanceof Promise ? await fast : fast;
    if (e) {
      return {
        table: TABLES.events,
        row: e.row,
        key: e.eventId,
        receivedAtMs: e.receivedAtMs,
        inserted: tracking ? { app_id: e.appId, user_id: e.userId, name: e.name, event_id: e.eventId } : undefined,
        owner: { appId: e.appId, kind: 'user', id: e.userId },
      };
    }
  }
  let decoded: unknown;
  try {
    decoded = await registry.decode(msg.value);
  } catch (err) {
    // The registry being unreachable says nothing about the message: give the batch back.
    if (isRetriable(err)) throw err;
    return unreadable('avro_decode', '$', err);
  }
  if (decoded === null || typeof decoded !== 'object') return unreadable('record', '$', new Error('not an Avro record'));
  const record = decoded as Record<string, unknown>;
  try {
    switch (route.table) {
      case 'events': {
        // Every value is checked as its row is written: the ids read from the record below are those of the row.
        const row = rowBinary.withUInt16(EVENTS_ROW_BINARY.write(rowBinary, record), retentionOf(record.app_id as string).events);
        return {
          table: TABLES.events,
          row,
          key: record.event_id as string,
          receivedAtMs: record.received_at as number,
          inserted: tracking
            ? { app_id: record.app_id as string, user_id: record.user_id as string, name: record.name as string, event_id: record.event_id as string }
            : undefined,
          owner: { appId: record.app_id as string, kind: 'user', id: record.user_id as string },
        };
      }
      case 'rejected': {
        // Checked as its row is written: the id read from the record below is the row's.
        const row = rowBinary.withUInt16(REJECTED_ROW_BINARY.write(rowBinary, record), retentionOf(record.app_id as string).rejected);
        return { table: TABLES.rejected, row, key: record.rejection_id as string, receivedAtMs: record.received_at as number };
      }
      case 'receipts': {
        const row = receiptRow(readIngestReceipt(record));
        return {
          table: TABLES.receipts,
          row: jsonRow({ ...row, retention_days: retentionOf(row.app_id).rejected }),
          key: row.receipt_id,
          receivedAtMs: record.received_at as number,
        };
      }
      case 'actions_log': {
        const row = actionLogRow(readActionLogEntry(record));
        return {
          table: TABLES.actionsLog,
          row: jsonRow({ ...row, retention_days: retentionOf(row.app_id).action_log }),
          key: row.entry_id,
          receivedAtMs: record.at as number,
          // An entry the action log's relay read before an erasure and publishes after it: dropped
          // here, or the deleted `actions_log` rows would come back (docs/privacy.md).
          owner: { appId: row.app_id, kind: 'user', id: row.user_id },
        };
      }
      case 'catalog': {
        const row = catalogRow(record);
        return {
          table: TABLES.catalog(route.kind),
          row: jsonRow({ ...row, retention_days: retentionOf(row.app_id).catalogs }),
          key: `${row.app_id}\u0000${row.id}\u0000${row.received_at}`,
          receivedAtMs: record.received_at as number,
          // A user record's id is the user's id (spec 2.4).
          inserted: tracking ? { app_id: row.app_id, catalog: route.kind, ...(route.kind === 'user' ? { user_id: row.id } : {}) } : undefined,
          ...(route.kind === 'user' || route.kind === 'patient' ? { owner: { appId: row.app_id, kind: route.kind, id: row.id } } : {}),
        };
      }
      case 'customCatalog': {
        const row = customCatalogRow(record);
        return {
          table: TABLES.customCatalog,
          row: jsonRow({ ...row, retention_days: retentionOf(row.app_id).catalogs }),
          key: `${row.app_id}\u0000${row.kind}\u0000${row.id}\u0000${row.received_at}`,
          receivedAtMs: record.received_at as number,
        };
      }
    }
  } catch (err) {
    if (err instanceof RecordReadError) return unreadable('contract', `$.${err.path}`, new Error(err.reason));
    return err instanceof RowError ? unreadable('row', `$.${err.path}`, err) : unreadable('canonical', '$', err);
  }
}
