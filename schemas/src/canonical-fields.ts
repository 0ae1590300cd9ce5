import { CH_LOW_CARDINALITY, CH_REASONS, CH_TIME, clickhouseEnum8, type RecordField } from './record-fields';

/**
 * How an upload was shaped: the spec's current (2.1) and earlier (2.2) envelopes, or `flat`, the
 * server-side import form whose every log carries its own user (docs/data-contract.md).
 */
export const ENVELOPE_FORMS = ['current', 'earlier', 'flat'] as const;

/**
 * The canonical event, field by field, in order: what every envelope form becomes (see
 * docs/data-contract.md); times are UTC epoch ms. `CanonicalEvent` (schemas/generated/records.ts),
 * the head of every block's Avro record, the `events` columns and the sink's row are derived from
 * it (record-fields.ts). Adding a field: one entry here, `npm run generate -w @evp/schemas`, its
 * value in `buildEvent` (normalize/event-steps/build.ts) and a migration adding the column (the Avro field
 * needs a default to stay BACKWARD compatible).
 */
export const CANONICAL_FIELDS = [
  { name: 'event_id', kind: 'string', nonEmpty: true, doc: 'Deterministic: the same event re-sent yields the same id.', clickhouse: 'String' },
  { name: 'app_id', kind: 'string', nonEmpty: true, clickhouse: CH_LOW_CARDINALITY },
  { name: 'user_id', kind: 'string', clickhouse: 'String' },
  { name: 'session_id', kind: 'string', clickhouse: 'String' },
  { name: 'session_start', kind: 'epochMs', nullable: true, clickhouse: `Nullable(${CH_TIME})` },
  { name: 'session_end', kind: 'epochMs', nullable: true, doc: '0 in s_id (immediate upload) becomes null.', clickhouse: `Nullable(${CH_TIME})` },
  { name: 'device_id', kind: 'string', clickhouse: 'String' },
  { name: 'os', kind: 'string', clickhouse: CH_LOW_CARDINALITY },
  { name: 'sdk_name', kind: 'string', clickhouse: CH_LOW_CARDINALITY },
  { name: 'sdk_version', kind: 'string', clickhouse: CH_LOW_CARDINALITY },
  { name: 'app_version', kind: 'string', clickhouse: CH_LOW_CARDINALITY },
  { name: 'app_version_code', kind: 'int', nullable: true, clickhouse: 'Nullable(Int32)' },
  { name: 'tz', kind: 'string', clickhouse: CH_LOW_CARDINALITY },
  { name: 'block', kind: 'block', clickhouse: CH_LOW_CARDINALITY },
  {
    name: 'name',
    kind: 'string',
    nonEmpty: true,
    doc: 'The canonical event name (aliases resolved: action_response → nudge_response).',
    clickhouse: CH_LOW_CARDINALITY,
  },
  {
    name: 'sent_name',
    kind: 'string',
    nullable: true,
    doc: 'The name as the client sent it, when it differs from `name`.',
    clickhouse: 'LowCardinality(Nullable(String))',
  },
  { name: 'property', kind: 'string', nullable: true, clickhouse: 'Nullable(String)' },
  { name: 'time', kind: 'epochMs', avroDoc: 'UTC epoch ms', clickhouse: CH_TIME },
  { name: 'online', kind: 'boolean', clickhouse: 'Bool' },
  { name: 'received_at', kind: 'epochMs', avroDoc: 'UTC epoch ms', clickhouse: CH_TIME },
  {
    name: 'sent_at',
    kind: 'epochMs',
    nullable: true,
    doc: 'The upload\'s `sent_at` by the device\'s clock (docs/data-contract.md, "Clock skew"); null when absent or unreadable.',
    avroDoc: 'UTC epoch ms by the device clock',
    clickhouse: `Nullable(${CH_TIME})`,
  },
  {
    name: 'corrected_time',
    kind: 'epochMs',
    doc: '`time + received_at − sent_at`: the device time moved by the device clock’s error at upload; `time` without a readable `sent_at`.',
    avroDoc: 'UTC epoch ms: time + received_at - sent_at, or time; 0 in records written before the field existed',
    // A field added after the block schemas were first registered: the default keeps them BACKWARD
    // compatible; the sink takes `time` for a record written before it (record-columns.ts).
    avroDefault: 0,
    missingFrom: 'time',
    clickhouse: CH_TIME,
  },
  { name: 'request_id', kind: 'string', clickhouse: 'String' },
  {
    name: 'pseudonym_key',
    kind: 'int',
    nullable: true,
    doc: 'The version of the app’s pseudonym key the row’s pseudonyms were made with (docs/privacy.md, "Pseudonyms"); null when the row holds none.',
    avroDoc: 'pseudonym key version; null when the row holds no pseudonym',
    clickhouse: 'Nullable(Int32)',
  },
  { name: 'envelope', kind: 'enum', symbols: ENVELOPE_FORMS, avroDoc: 'current, earlier or flat', clickhouse: clickhouseEnum8(ENVELOPE_FORMS) },
  {
    name: 'props',
    kind: 'props',
    doc: 'Validated properties of the event (shape from its definition). In Avro: one field per event type of the block.',
    clickhouse: 'JSON',
  },
  // meta may be any JSON value (a scalar too), which a JSON column cannot hold: it stays JSON text
  // from the validator to ClickHouse.
  { name: 'meta', kind: 'jsonText', nullable: true, doc: 'Any JSON value sent as `meta`.', clickhouse: 'Nullable(String)' },
  {
    name: 'client',
    kind: 'jsonObject',
    nullable: true,
    doc: 'Earlier/flat form client info (up, dn, d_info, app_info, ip) and declared ids, kept not dropped. In ClickHouse `{}` when none.',
    clickhouse: 'JSON',
  },
  {
    name: 'warnings',
    kind: 'reasons',
    avroRecord: 'EventWarning',
    doc: 'What the validator accepted but the app should know: unknown properties kept as extras, client quirks it normalised (each named; docs/data-contract.md), malformed session ids. Empty when none.',
    avroDoc: 'What was accepted but is worth knowing: unknown properties, normalised client quirks',
    avroDefault: [],
    clickhouse: CH_REASONS,
  },
] as const satisfies readonly RecordField[];
