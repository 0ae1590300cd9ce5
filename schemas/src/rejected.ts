import type { RejectionReason } from '@evp/core';

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

export interface RejectedRecord {
  rejection_id: string;
  kind: RejectionKind;
  errors: RejectionReason[];
  /** The offending JSON as text: the event, or the envelope for envelope violations. */
  payload: string;
  payload_truncated: boolean;
  app_id: string;
  request_id: string;
  key_id: string;
  received_at: number;
  failed_at: number;
  processor: string;
  /** How many submitted events or records this rejection stands for (counts must add up). */
  event_count: number;
  envelope_index: number | null;
  event_index: number | null;
  event_name: string | null;
  /** `log` or `catalog:<kind>`. */
  payload_kind: string;
  /** Raw topic coordinates of the message it came from. */
  source: string;
  /** The envelope's user, when it could be read; null otherwise (catalog records, unreadable input). */
  user_id: string | null;
}

export const MAX_REJECTED_PAYLOAD_CHARS = 64 * 1024;

export function payloadPrefix(json: string): { payload: string; payload_truncated: boolean } {
  return json.length > MAX_REJECTED_PAYLOAD_CHARS
    ? { payload: json.slice(0, MAX_REJECTED_PAYLOAD_CHARS), payload_truncated: true }
    : { payload: json, payload_truncated: false };
}

/**
 * The fields of a `{path, rule, message}` record (RejectionReason): rejection errors, receipt
 * reasons and event warnings are all written with them (each record under its own name).
 */
export const REASON_AVRO_FIELDS = [
  { name: 'path', type: 'string' },
  { name: 'rule', type: 'string' },
  { name: 'message', type: 'string' },
] as const;

export const rejectedRecordSchema = {
  type: 'record',
  name: 'RejectedRecord',
  namespace: 'evp.ingest',
  doc: 'An event, record or envelope the validator could not accept, with every reason',
  fields: [
    { name: 'rejection_id', type: 'string' },
    { name: 'kind', type: 'string', doc: REJECTION_KINDS.join(', ') },
    {
      name: 'errors',
      type: {
        type: 'array',
        items: {
          type: 'record',
          name: 'RejectionError',
          fields: REASON_AVRO_FIELDS,
        },
      },
    },
    { name: 'payload', type: 'string' },
    { name: 'payload_truncated', type: 'boolean' },
    { name: 'app_id', type: 'string' },
    { name: 'request_id', type: 'string' },
    { name: 'key_id', type: 'string' },
    { name: 'received_at', type: 'long' },
    { name: 'failed_at', type: 'long' },
    { name: 'processor', type: 'string' },
    { name: 'event_count', type: 'int' },
    { name: 'envelope_index', type: ['null', 'int'], default: null },
    { name: 'event_index', type: ['null', 'int'], default: null },
    { name: 'event_name', type: ['null', 'string'], default: null },
    { name: 'payload_kind', type: 'string' },
    { name: 'source', type: 'string' },
    { name: 'user_id', type: ['null', 'string'], default: null },
  ],
} as const;
