import { topics, type CatalogKind, type DeadLetter } from '@evp/core';
import {
  ACTION_LOG_KINDS,
  CANONICAL_FIELDS,
  CUSTOM_CATALOG_KIND_PATTERN,
  DEAD_LETTER_FIELDS,
  MAX_REJECTED_PAYLOAD_CHARS,
  REJECTED_FIELDS,
  canonicalToAvro,
  catalogFromAvro,
  customCatalogFromAvro,
  type ActionLogEntry,
  type CanonicalEvent,
  type IngestReceipt,
  type RejectedRecord,
} from '@evp/schemas';
import { columnsOf, rowBinaryTable, rowWriter, valuesWriter, type RowBinaryTable, type RowOf, type ValuesOf } from './record-columns';
import { MAX_TIME_MS, RowError, chTime, chTimeOrNull, nonEmpty, reasons, text } from './row-checks';

export { RowError, chTime } from './row-checks';

/** ClickHouse tables the sink writes (deploy/clickhouse/migrations). */
export const TABLES = {
  events: 'events',
  rejected: 'rejected',
  receipts: 'ingest_receipts',
  actionsLog: 'actions_log',
  catalog: (kind: CatalogKind) => `catalog_${kind}`,
  /** Every app-defined catalog kind (007_custom_catalog.sql), told apart by its `kind` column. */
  customCatalog: 'catalog_custom',
  /** Dead letters (015_dead_letters.sql), so the inspector can list an app's own. */
  deadLetters: 'dead_letters',
} as const;

/**
 * The columns of `events`, in table order: one per canonical field (CANONICAL_FIELDS in schemas;
 * a test compares them with the migrated table). `inserted_at` is the server's default.
 */
export const EVENT_COLUMNS = columnsOf(CANONICAL_FIELDS);
export type EventRow = RowOf<typeof CANONICAL_FIELDS>;
/** One events row as values in EVENT_COLUMNS order, each typed as its column. */
export type EventValues = ValuesOf<typeof CANONICAL_FIELDS>;

/**
 * A decoded block record (events.<block>) → its `events` row as values in EVENT_COLUMNS order: what
 * the sink inserts (with EVENT_COLUMNS, so ClickHouse reads no key per value). Straight from the
 * Avro record, never through a CanonicalEvent: meta stays the validator's JSON text.
 */
export const eventValuesFromAvro: (record: Record<string, unknown>) => EventValues = valuesWriter(CANONICAL_FIELDS);

/**
 * A decoded block record → its `events` row as the RowBinary the sink inserts: eventValuesFromAvro's
 * values (same checks), times as epoch ms, `props` as its JSON text and `client` as the validator
 * wrote it (never parsed).
 */
export const EVENTS_ROW_BINARY: RowBinaryTable = rowBinaryTable(CANONICAL_FIELDS);

/** A canonical event → its `events` row values, through its Avro record (tests, the bench's bare insert). */
export const eventValues = (e: CanonicalEvent): EventValues => eventValuesFromAvro(canonicalToAvro(e));

/** A canonical event → its `events` row as an object (tests, docs examples, the bench's bare insert). */
export function eventRow(e: CanonicalEvent): EventRow {
  const values = eventValues(e);
  const row: Record<string, unknown> = {};
  for (let i = 0; i < EVENT_COLUMNS.length; i++) row[EVENT_COLUMNS[i] as string] = values[i];
  return row as EventRow;
}

/** The columns of `rejected`, one per REJECTED_FIELDS field (schemas), in table order. */
export type RejectedRow = RowOf<typeof REJECTED_FIELDS>;

/** A decoded rejected record (ingest.rejected) → its `rejected` row. */
export const rejectedRow: (record: RejectedRecord | Record<string, unknown>) => RejectedRow = rowWriter(REJECTED_FIELDS);
/** The same as the RowBinary the sink inserts. */
export const REJECTED_ROW_BINARY: RowBinaryTable<RejectedRecord | Record<string, unknown>> = rowBinaryTable(REJECTED_FIELDS);

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

export type DeadLetterRow = RowOf<typeof DEAD_LETTER_FIELDS>;
const deadLetterRowOf = rowWriter(DEAD_LETTER_FIELDS);
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The app a dead letter belongs to: its source message's `app_id` header (raw uploads, receipts…),
 * else its key's app (every platform topic keys by `app:…`; actions.requested by the app alone);
 * '' when neither tells (the inspector shows it to no app: `npm run deadletters -- list` does).
 */
export function deadLetterApp(l: Pick<DeadLetter, 'headers' | 'source'>): string {
  const header = l.headers.app_id;
  if (header !== undefined && header !== '') return header;
  const key = l.source.key;
  if (key === null || key === '') return '';
  const colon = key.indexOf(':');
  if (colon > 0) return key.slice(0, colon);
  return l.source.topic === topics.actionsRequested ? key : '';
}

/** A dead letter's `dead_letters` row as the RowBinary the sink inserts (from deadLetterRecord). */
export const DEAD_LETTERS_ROW_BINARY: RowBinaryTable = rowBinaryTable(DEAD_LETTER_FIELDS);

/** A dead letter (read through the envelope's one reader) → its `dead_letters` row. */
export const deadLetterRow = (l: DeadLetter): DeadLetterRow => deadLetterRowOf(deadLetterRecord(l));

/** A dead letter flattened into a record of DEAD_LETTER_FIELDS (JSON kinds under `<name>_json`, as the field tables read records). */
export function deadLetterRecord(l: DeadLetter): Record<string, unknown> {
  let text: string | undefined;
  try {
    text = strictUtf8.decode(l.value);
  } catch {
    text = undefined;
  }
  const whole = text ?? l.value.toString('base64');
  return {
    dead_letter_id: l.id,
    app_id: deadLetterApp(l),
    source_topic: l.source.topic,
    source_partition: l.source.partition,
    source_offset: l.source.offset,
    source_key: l.source.key,
    consumer_group: l.group,
    error_kind: l.error.kind,
    error_message: l.error.message,
    error_retriable: l.error.retriable,
    processor: l.processor.name,
    processor_version: l.processor.version,
    failed_at: l.failedAt,
    replay_of: l.replay?.of ?? null,
    replay_count: l.replay?.count ?? 0,
    headers_json: JSON.stringify(l.headers),
    payload: whole.length > MAX_REJECTED_PAYLOAD_CHARS ? whole.slice(0, MAX_REJECTED_PAYLOAD_CHARS) : whole,
    payload_encoding: text === undefined ? 'base64' : 'utf8',
    payload_bytes: l.value.length,
    payload_truncated: whole.length > MAX_REJECTED_PAYLOAD_CHARS,
  };
}

/**
 * The tables the sink writes as RowBinary (those with a field table to derive the rows from); the
 * rows of the others (receipts, actions_log, the catalogs: built by hand, few) stay JSON objects.
 */
export const ROW_BINARY_TABLES: ReadonlyMap<string, RowBinaryTable<never>> = new Map<string, RowBinaryTable<never>>([
  [TABLES.events, EVENTS_ROW_BINARY],
  [TABLES.rejected, REJECTED_ROW_BINARY],
  [TABLES.deadLetters, DEAD_LETTERS_ROW_BINARY],
]);

/** What the sink inserts into each RowBinary table: its columns, then `retention_days` (the stamp read.ts appends to each row). */
export const STAMPED_ROW_BINARY: ReadonlyMap<string, { columns: readonly string[]; types: readonly string[] }> = new Map(
  [...ROW_BINARY_TABLES].map(([table, t]) => [table, { columns: [...t.columns, 'retention_days'], types: [...t.types, 'UInt16'] }] as const),
);
