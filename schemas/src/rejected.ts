import { CH_LOW_CARDINALITY, CH_REASONS, CH_TIME, avroFieldsOf, type RecordField } from './record-fields';

export type { RejectedRecord } from '../generated/records';

/**
 * A typed rejected record, in the manner of Snowplow's bad rows: what failed, every reason with its
 * JSON path, the original payload (a prefix when huge) and where it came from. Stored in
 * `ingest.rejected` and ClickHouse `rejected`, so failures are queryable and replayable.
 */
export const REJECTION_KINDS = [
  /** The body or an envelope is not of either form (not an object, no data array, …). */
  'envelope_violation',
  /** One event or catalog record breaks its schema or a rule. */
  'schema_violation',
  /** An event or record is larger than the limit; only a prefix of it is kept. */
  'size_violation',
  /** The raw message could not be read at all (not JSON, missing provenance headers). */
  'parse_violation',
] as const;
export type RejectionKind = (typeof REJECTION_KINDS)[number];

/**
 * The rejected record, field by field, in order. `RejectedRecord` (schemas/generated/records.ts),
 * its Avro schema, the `rejected` columns and the sink's row are derived from it (record-fields.ts).
 */
export const REJECTED_FIELDS = [
  { name: 'rejection_id', kind: 'string', nonEmpty: true, clickhouse: 'String' },
  // Open: a validator may know a kind before the sink does; the column is text.
  { name: 'kind', kind: 'enum', symbols: REJECTION_KINDS, open: true, avroDoc: REJECTION_KINDS.join(', '), clickhouse: CH_LOW_CARDINALITY },
  { name: 'errors', kind: 'reasons', avroRecord: 'RejectionError', clickhouse: CH_REASONS },
  { name: 'payload', kind: 'string', doc: 'The offending JSON as text: the event, or the envelope for envelope violations.', clickhouse: 'String' },
  { name: 'payload_truncated', kind: 'boolean', clickhouse: 'Bool' },
  { name: 'app_id', kind: 'string', clickhouse: CH_LOW_CARDINALITY },
  { name: 'request_id', kind: 'string', clickhouse: 'String' },
  { name: 'key_id', kind: 'string', clickhouse: 'String' },
  { name: 'received_at', kind: 'epochMs', clickhouse: CH_TIME },
  { name: 'failed_at', kind: 'epochMs', clickhouse: CH_TIME },
  { name: 'processor', kind: 'string', clickhouse: CH_LOW_CARDINALITY },
  {
    name: 'event_count',
    kind: 'int',
    doc: 'How many submitted events or records this rejection stands for (counts must add up).',
    clickhouse: 'UInt32',
  },
  { name: 'envelope_index', kind: 'int', nullable: true, clickhouse: 'Nullable(Int32)' },
  { name: 'event_index', kind: 'int', nullable: true, clickhouse: 'Nullable(Int32)' },
  { name: 'event_name', kind: 'string', nullable: true, clickhouse: 'LowCardinality(Nullable(String))' },
  { name: 'payload_kind', kind: 'string', doc: '`log` or `catalog:<kind>`.', clickhouse: CH_LOW_CARDINALITY },
  { name: 'source', kind: 'string', doc: 'Raw topic coordinates of the message it came from.', clickhouse: 'String' },
  {
    name: 'user_id',
    kind: 'string',
    nullable: true,
    doc: "The envelope's user, when it could be read; null otherwise (catalog records, unreadable input).",
    clickhouse: 'Nullable(String)',
  },
] as const satisfies readonly RecordField[];

export const MAX_REJECTED_PAYLOAD_CHARS = 64 * 1024;

export function payloadPrefix(json: string): { payload: string; payload_truncated: boolean } {
  return json.length > MAX_REJECTED_PAYLOAD_CHARS
    ? { payload: json.slice(0, MAX_REJECTED_PAYLOAD_CHARS), payload_truncated: true }
    : { payload: json, payload_truncated: false };
}

export const rejectedRecordSchema = {
  type: 'record',
  name: 'RejectedRecord',
  namespace: 'evp.ingest',
  doc: 'An event, record or envelope the validator could not accept, with every reason',
  fields: avroFieldsOf(REJECTED_FIELDS),
} as const;
