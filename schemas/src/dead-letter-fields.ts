import { DEAD_LETTER_ERROR_KINDS } from '@evp/core';
import { CH_LOW_CARDINALITY, CH_TIME, type RecordField } from './record-fields';

/** How a stored dead letter's payload is written: as text when its bytes are UTF-8, else base64. */
export const DEAD_LETTER_PAYLOAD_ENCODINGS = ['utf8', 'base64'] as const;

/**
 * A dead letter as the sink stores it (ClickHouse `dead_letters`, 015_dead_letters.sql), field by
 * field, in order: the envelope of `deadletters` (packages/core/src/dead-letter.ts) flattened, with
 * the app it belongs to, so the inspector can show an app its own. `StoredDeadLetter`
 * (schemas/generated/records.ts), the columns and the sink's row are derived from it.
 */
export const DEAD_LETTER_FIELDS = [
  { name: 'dead_letter_id', kind: 'string', nonEmpty: true, doc: 'The envelope’s dlq_id: one failure, however often it was written.', clickhouse: 'String' },
  {
    name: 'app_id',
    kind: 'string',
    doc: 'The source message’s app_id header, else its key’s app (`app:…`; actions.requested: the key); empty when neither tells.',
    clickhouse: CH_LOW_CARDINALITY,
  },
  { name: 'source_topic', kind: 'string', nonEmpty: true, clickhouse: CH_LOW_CARDINALITY },
  { name: 'source_partition', kind: 'int', clickhouse: 'UInt32' },
  { name: 'source_offset', kind: 'string', clickhouse: 'String' },
  { name: 'source_key', kind: 'string', nullable: true, clickhouse: 'Nullable(String)' },
  { name: 'consumer_group', kind: 'string', nonEmpty: true, clickhouse: CH_LOW_CARDINALITY },
  { name: 'error_kind', kind: 'enum', symbols: DEAD_LETTER_ERROR_KINDS, open: true, clickhouse: CH_LOW_CARDINALITY },
  { name: 'error_message', kind: 'string', clickhouse: 'String' },
  { name: 'error_retriable', kind: 'boolean', clickhouse: 'Bool' },
  { name: 'processor', kind: 'string', clickhouse: CH_LOW_CARDINALITY },
  { name: 'processor_version', kind: 'string', clickhouse: CH_LOW_CARDINALITY },
  { name: 'failed_at', kind: 'epochMs', clickhouse: CH_TIME },
  {
    name: 'replay_of',
    kind: 'string',
    nullable: true,
    doc: 'The dead letter this message was replayed from, when it was a replay.',
    clickhouse: 'Nullable(String)',
  },
  { name: 'replay_count', kind: 'int', doc: 'How often its content was replayed before it failed (0: never).', clickhouse: 'UInt32' },
  { name: 'headers', kind: 'jsonObject', doc: 'The source message’s own headers.', clickhouse: 'Map(String, String)' },
  {
    name: 'payload',
    kind: 'string',
    doc: 'The source message’s value (its first MAX_REJECTED_PAYLOAD_CHARS), as `payload_encoding` says.',
    clickhouse: 'String',
  },
  { name: 'payload_encoding', kind: 'enum', symbols: DEAD_LETTER_PAYLOAD_ENCODINGS, clickhouse: CH_LOW_CARDINALITY },
  { name: 'payload_bytes', kind: 'int', doc: 'The whole value’s size.', clickhouse: 'UInt32' },
  { name: 'payload_truncated', kind: 'boolean', clickhouse: 'Bool' },
] as const satisfies readonly RecordField[];
