import { createHash } from 'node:crypto';
import { formatDateTime64, stringifyWellFormed } from '@evp/clickhouse';
import type { BusMessage, CatalogKind } from '@evp/core';
import {
  ACTION_LOG_KINDS,
  CUSTOM_CATALOG_KIND_PATTERN,
  catalogFromAvro,
  customCatalogFromAvro,
  payloadPrefix,
  type ActionLogEntry,
  type CanonicalEvent,
  type IngestReceipt,
  type RejectedRecord,
} from '@evp/schemas';

/** ClickHouse tables the sink writes (deploy/clickhouse/migrations). */
export const TABLES = {
  events: 'events',
  rejected: 'rejected',
  receipts: 'ingest_receipts',
  actionsLog: 'actions_log',
  catalog: (kind: CatalogKind) => `catalog_${kind}`,
  /** Every app-defined catalog kind (007_custom_catalog.sql), told apart by its `kind` column. */
  customCatalog: 'catalog_custom',
} as const;

export const SINK_PROCESSOR = 'evp-segmenter-sink/0.1';

/** A value the sink cannot turn into a row; the message becomes a rejected row instead. */
export class RowError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'RowError';
  }
}

// DateTime64's range. A time outside it would make ClickHouse refuse the whole insert (or clamp
// the value), and a refused insert would be retried forever: such a message is rejected instead.
const MIN_TIME_MS = Date.UTC(1900, 0, 1);
const MAX_TIME_MS = Date.UTC(2299, 11, 31, 23, 59, 59, 999);

export function chTime(ms: unknown, path: string): string {
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < MIN_TIME_MS || ms > MAX_TIME_MS) {
    throw new RowError(path, `${String(ms)} is not an epoch-ms time between 1900 and 2299`);
  }
  return formatDateTime64(ms);
}

const chTimeOrNull = (ms: unknown, path: string) => (ms === null || ms === undefined ? null : chTime(ms, path));

function text(v: unknown, path: string): string {
  if (typeof v !== 'string') throw new RowError(path, `expected a string, got ${v === null ? 'null' : typeof v}`);
  return v;
}

function nonEmpty(v: unknown, path: string): string {
  const s = text(v, path);
  if (s.length === 0) throw new RowError(path, 'must not be empty');
  return s;
}

/** Exactly the columns of `events` (001_events.sql); `inserted_at` is the server's default. */
export interface EventRow {
  event_id: string;
  app_id: string;
  user_id: string;
  session_id: string;
  session_start: string | null;
  session_end: string | null;
  device_id: string;
  os: string;
  sdk_name: string;
  sdk_version: string;
  app_version: string;
  app_version_code: number | null;
  tz: string;
  block: string;
  name: string;
  sent_name: string | null;
  property: string | null;
  time: string;
  online: boolean;
  received_at: string;
  request_id: string;
  envelope: 'current' | 'earlier' | 'flat';
  props: Record<string, unknown>;
  meta: string | null;
  client: Record<string, unknown>;
  warnings: { path: string; rule: string; message: string }[];
}

/**
 * The columns the sink writes to `events`, in the order of `eventValues` (every column of EventRow;
 * the type checks below keep the two in step with the interface).
 */
export const EVENT_COLUMNS = [
  'event_id',
  'app_id',
  'user_id',
  'session_id',
  'session_start',
  'session_end',
  'device_id',
  'os',
  'sdk_name',
  'sdk_version',
  'app_version',
  'app_version_code',
  'tz',
  'block',
  'name',
  'sent_name',
  'property',
  'time',
  'online',
  'received_at',
  'request_id',
  'envelope',
  'props',
  'meta',
  'client',
  'warnings',
] as const satisfies readonly (keyof EventRow)[];

/** One events row as values in EVENT_COLUMNS order, each typed as its column. */
// Generic so that the mapped type maps the tuple's elements (not its length and methods).
type ValuesOf<C extends readonly (keyof EventRow)[]> = { -readonly [I in keyof C]: EventRow[C[I] & keyof EventRow] };
export type EventValues = ValuesOf<typeof EVENT_COLUMNS>;

// Compile-time: EVENT_COLUMNS names every column of EventRow.
type MissingColumn = Exclude<keyof EventRow, (typeof EVENT_COLUMNS)[number]>;
const everyColumn: [MissingColumn] extends [never] ? true : MissingColumn = true;
void everyColumn;

/**
 * A canonical event → its `events` row as value arrays (what the sink inserts, with EVENT_COLUMNS:
 * ClickHouse then reads no key per value). The one place an event becomes a row; `eventRow` is the
 * same values with their column names.
 */
export function eventValues(e: CanonicalEvent): EventValues {
  return [
    nonEmpty(e.event_id, 'event_id'),
    nonEmpty(e.app_id, 'app_id'),
    text(e.user_id, 'user_id'),
    text(e.session_id, 'session_id'),
    chTimeOrNull(e.session_start, 'session_start'),
    chTimeOrNull(e.session_end, 'session_end'),
    text(e.device_id, 'device_id'),
    text(e.os, 'os'),
    text(e.sdk_name, 'sdk_name'),
    text(e.sdk_version, 'sdk_version'),
    text(e.app_version, 'app_version'),
    e.app_version_code ?? null,
    text(e.tz, 'tz'),
    nonEmpty(e.block, 'block'),
    nonEmpty(e.name, 'name'),
    e.sent_name ?? null,
    e.property ?? null,
    chTime(e.time, 'time'),
    e.online === true,
    chTime(e.received_at, 'received_at'),
    text(e.request_id, 'request_id'),
    e.envelope === 'earlier' || e.envelope === 'flat' ? e.envelope : 'current',
    e.props ?? {},
    // meta may be any JSON value (a scalar too), which a JSON column cannot hold: kept as JSON text,
    // with lone surrogates as U+FFFD so the text reads back as what ClickHouse stored.
    e.meta === null || e.meta === undefined ? null : stringifyWellFormed(e.meta),
    // A JSON column cannot be NULL; {} stands for "no client info" (envelope tells the form).
    e.client ?? {},
    reasons(e.warnings ?? [], 'warnings'),
  ];
}

/**
 * Tables whose rows the sink builds as value arrays, with the column order to insert them with;
 * the rows of every other table are objects (few, and read more easily as such).
 */
export const VALUE_COLUMNS: ReadonlyMap<string, readonly string[]> = new Map([[TABLES.events, EVENT_COLUMNS]]);

/** A canonical event → its `events` row as an object (tests, docs examples, the bench's bare insert). */
export function eventRow(e: CanonicalEvent): EventRow {
  const values = eventValues(e);
  const row: Record<string, unknown> = {};
  for (let i = 0; i < EVENT_COLUMNS.length; i++) row[EVENT_COLUMNS[i] as string] = values[i];
  return row as unknown as EventRow;
}

export interface RejectedRow {
  rejection_id: string;
  kind: string;
  errors: { path: string; rule: string; message: string }[];
  payload: string;
  payload_truncated: boolean;
  app_id: string;
  request_id: string;
  key_id: string;
  received_at: string;
  failed_at: string;
  processor: string;
  event_count: number;
  envelope_index: number | null;
  event_index: number | null;
  event_name: string | null;
  payload_kind: string;
  source: string;
  user_id: string | null;
}

/** `{path, rule, message}` lists (rejection errors, event warnings) as their Array(Tuple) column takes them. */
function reasons(list: unknown, path: string): { path: string; rule: string; message: string }[] {
  if (!Array.isArray(list)) throw new RowError(path, 'expected an array');
  return (list as { path: string; rule: string; message: string }[]).map((e) => ({ path: e.path, rule: e.rule, message: e.message }));
}

export function rejectedRow(r: RejectedRecord): RejectedRow {
  return {
    rejection_id: nonEmpty(r.rejection_id, 'rejection_id'),
    kind: nonEmpty(r.kind, 'kind'),
    errors: reasons(r.errors, 'errors'),
    payload: text(r.payload, 'payload'),
    payload_truncated: r.payload_truncated === true,
    app_id: text(r.app_id, 'app_id'),
    request_id: text(r.request_id, 'request_id'),
    key_id: text(r.key_id, 'key_id'),
    received_at: chTime(r.received_at, 'received_at'),
    failed_at: chTime(r.failed_at, 'failed_at'),
    processor: text(r.processor, 'processor'),
    event_count: r.event_count,
    envelope_index: r.envelope_index ?? null,
    event_index: r.event_index ?? null,
    event_name: r.event_name ?? null,
    payload_kind: text(r.payload_kind, 'payload_kind'),
    source: text(r.source, 'source'),
    user_id: r.user_id ?? null,
  };
}

export interface CatalogRow {
  app_id: string;
  id: string;
  received_at: string;
  request_id: string;
  record: Record<string, unknown>;
}

/**
 * A decoded catalog Avro value (schemas/src/avro/catalog-schema.ts) → its `catalog_<kind>` row, read
 * with the schemas' own `catalogFromAvro`. The record keeps the kind's typed fields as JSON (id
 * excepted: it is a column) with the properties the definition does not know folded in (the
 * validator kept and reported them; they stay queryable).
 */
export function catalogRow(value: Record<string, unknown>): CatalogRow {
  const r = catalogFromAvro(value);
  const { id: _id, ...fields } = r.record;
  return {
    app_id: nonEmpty(r.app_id, 'app_id'),
    id: nonEmpty(r.id, 'id'),
    received_at: chTime(r.received_at, 'received_at'),
    request_id: text(r.request_id, 'request_id'),
    record: { ...(r.extra ?? {}), ...fields },
  };
}

export interface CustomCatalogRow extends CatalogRow {
  kind: string;
}

/**
 * A decoded `catalog.custom` Avro value (schemas/src/avro/custom-catalog.ts) → its `catalog_custom`
 * row: the record's fields as sent. A kind that is no app-defined kind name would be a producer bug.
 */
export function customCatalogRow(value: Record<string, unknown>): CustomCatalogRow {
  const r = customCatalogFromAvro(value);
  const kind = nonEmpty(r.kind, 'kind');
  if (!CUSTOM_CATALOG_KIND_PATTERN.test(kind)) throw new RowError('kind', `${kind} is not an app-defined catalog kind name`);
  return {
    app_id: nonEmpty(r.app_id, 'app_id'),
    kind,
    id: nonEmpty(r.id, 'id'),
    received_at: chTime(r.received_at, 'received_at'),
    request_id: text(r.request_id, 'request_id'),
    record: r.record,
  };
}

/**
 * A message the sink could not read (not Avro of a known schema, or not a valid row) is never
 * dropped: it becomes a `parse_violation` row in `rejected` holding the message bytes as base64, its
 * coordinates and what failed, so it can be inspected and replayed. The id is derived from the
 * topic, key and bytes, not the offset (offsets restart): a redelivery yields the same row, and a
 * new message is never mistaken for an old one that sat at the same offset.
 */
export function unreadableRow(msg: BusMessage, problem: { path: string; rule: string; message: string }, failedAt: number): RejectedRow {
  const source = `${msg.topic}/${msg.partition}/${msg.offset}`;
  const keyApp = msg.key && msg.key.includes(':') ? msg.key.slice(0, msg.key.indexOf(':')) : '';
  return {
    rejection_id: createHash('sha256')
      .update(`${msg.topic}\u0000${msg.key ?? ''}\u0000`)
      .update(msg.value)
      .digest('hex')
      .slice(0, 32),
    kind: 'parse_violation',
    errors: [problem],
    ...payloadPrefix(msg.value.toString('base64')),
    app_id: msg.headers.app_id ?? keyApp,
    request_id: msg.headers.request_id ?? '',
    key_id: msg.headers.key_id ?? '',
    // The log's append time: the closest thing to a receipt time an unreadable message has.
    received_at: formatDateTime64(msg.timestamp),
    failed_at: formatDateTime64(failedAt),
    processor: SINK_PROCESSOR,
    event_count: 1,
    envelope_index: null,
    event_index: null,
    event_name: null,
    payload_kind: 'message_base64',
    source,
    user_id: null,
  };
}

export interface ReceiptRow extends Omit<IngestReceipt, 'received_at' | 'processed_at'> {
  received_at: string;
  processed_at: string;
}

/** A decoded receipt (schemas/src/receipt.ts) → its `ingest_receipts` row. */
export function receiptRow(r: IngestReceipt): ReceiptRow {
  if (!Array.isArray(r.items)) throw new RowError('items', 'expected an array');
  return {
    ...r,
    receipt_id: nonEmpty(r.receipt_id, 'receipt_id'),
    app_id: nonEmpty(r.app_id, 'app_id'),
    request_id: text(r.request_id, 'request_id'),
    received_at: chTime(r.received_at, 'received_at'),
    processed_at: chTime(r.processed_at, 'processed_at'),
    items: r.items.map((i, n) => ({ ...i, reasons: reasons(i.reasons, `items[${n}].reasons`) })),
  };
}

export interface ActionLogRow extends Omit<ActionLogEntry, 'at' | 'created_at' | 'expired_at' | 'available_at'> {
  at: string;
  created_at: string;
  expired_at: string | null;
  available_at: string | null;
}

/**
 * A decoded action log entry (schemas/src/action-log.ts) → its `actions_log` row (009_actions_log.sql,
 * with `reason` and `available_at` from 010_actions_log_caps.sql). An entry written before those
 * fields existed decodes with their defaults ('' and null), which are the columns' defaults too.
 */
export function actionLogRow(e: ActionLogEntry): ActionLogRow {
  if (!(ACTION_LOG_KINDS as readonly string[]).includes(e.kind)) throw new RowError('kind', `${String(e.kind)} is not one of ${ACTION_LOG_KINDS.join(', ')}`);
  return {
    ...e,
    entry_id: nonEmpty(e.entry_id, 'entry_id'),
    app_id: nonEmpty(e.app_id, 'app_id'),
    user_id: text(e.user_id, 'user_id'),
    at: chTime(e.at, 'at'),
    created_at: chTime(e.created_at, 'created_at'),
    // An action may expire in 2999; DateTime64 ends with 2299, which is as good as never here.
    expired_at: typeof e.expired_at === 'number' ? chTime(Math.min(e.expired_at, MAX_TIME_MS), 'expired_at') : chTimeOrNull(e.expired_at, 'expired_at'),
    reason: text(e.reason ?? '', 'reason'),
    available_at: chTimeOrNull(e.available_at ?? null, 'available_at'),
  };
}
