import type { AvroSchema } from './avro/derive';

/**
 * One field of a record the validator writes and the sink stores (the canonical event, the rejected
 * record), described once: its TypeScript type (schemas/generated/records.ts), its Avro field (the
 * registered schema), the ClickHouse column and how the sink turns the decoded Avro value into that
 * column's value (services/segmenter/src/sink/record-columns.ts) are all derived from it.
 *
 * `kind` says what the value is; each kind has one form per layer:
 *
 * | kind         | TypeScript                | Avro                          | row (sink)                          |
 * | ------------ | ------------------------- | ----------------------------- | ----------------------------------- |
 * | `string`     | `string`                  | `string`                      | the text (`nonEmpty`: never `''`)   |
 * | `epochMs`    | `number` (UTC epoch ms)   | `long`                        | DateTime64 text, 1900–2299 only     |
 * | `int`        | `number`                  | `int`                         | the number                          |
 * | `boolean`    | `boolean`                 | `boolean`                     | the boolean                         |
 * | `block`      | `Block`                   | `string`                      | the text, never `''`                |
 * | `enum`       | union of `symbols`        | `string`                      | one of `symbols` (`open`: any text) |
 * | `props`      | `Record<string, unknown>` | one field per event type      | the event's props as a JSON object  |
 * | `jsonText`   | `unknown` (any JSON)      | `<name>_json`, text           | the JSON text, kept as text         |
 * | `jsonObject` | `Record<string, unknown>` | `<name>_json`, text           | the object; `{}` for null           |
 * | `reasons`    | `RejectionReason[]`       | array of `avroRecord` records | `Array(Tuple(path, rule, message))` |
 * | `stringList` | `string[]`                | array of `string`             | `Array(String)`                     |
 * | `stringMap`  | `Record<string, string>`  | map of `string`               | `Map(String, String)`               |
 * | `recordList` | `<avroRecord>[]` of `fields` | array of `avroRecord` records | — (no column)                    |
 * | `record`     | `<avroRecord>` of `fields`   | an `avroRecord` record        | — (no column)                    |
 *
 * `nullable` adds `| null` and makes the Avro type `["null", T]` with default null. `clickhouse` is
 * (for a record a table stores) the column's type exactly as `system.columns` shows it once the migrations have run: a test
 * compares the tables with the migrated database, so a new field needs a new migration.
 */
export interface RecordField {
  readonly name: string;
  readonly kind:
    | 'string'
    | 'epochMs'
    | 'int'
    | 'boolean'
    | 'block'
    | 'enum'
    | 'props'
    | 'jsonText'
    | 'jsonObject'
    | 'reasons'
    | 'stringList'
    | 'stringMap'
    | 'recordList'
    | 'record';
  readonly nullable?: true;
  readonly nonEmpty?: true;
  readonly symbols?: readonly string[];
  /** enum: a value outside `symbols` is still stored (the list may grow before every reader knows). */
  readonly open?: true;
  /** reasons, recordList, record: the Avro record (and TypeScript interface) name of one item. */
  readonly avroRecord?: string;
  /** Documents the field in TypeScript. */
  readonly doc?: string;
  /** Documents the field in the Avro schema (registered: changing it is a new schema version). */
  readonly avroDoc?: string;
  /** The Avro default of a non-nullable field, for a field added after the schema was first registered. */
  readonly avroDefault?: unknown;
  /**
   * epochMs: the field whose value the sink takes when a record lacks this one (written with a
   * schema from before the field existed).
   */
  readonly missingFrom?: string;
  /**
   * The Avro type when it is not the kind's own: a schema registered before its table existed keeps
   * its types (an Avro enum for an `enum`, `long` for an `int`, a logical type) byte for byte.
   */
  readonly avroType?: AvroSchema;
  /** recordList, record: the table of one item. */
  readonly fields?: readonly RecordField[];
  /** May be absent (JSON topics): read as absent, not as null. */
  readonly optional?: true;
  /** Writes the Avro `doc` after `default` (the key order a schema was first registered with). */
  readonly avroDocAfterDefault?: true;
  /** Absent for a record no ClickHouse table stores (a topic's own record, e.g. a membership change). */
  readonly clickhouse?: string;
  /**
   * Limits beyond the kind, for records read from JSON (the action a create request or an
   * `actions.requested` message holds: packages/actions derives its request reader from them).
   */
  readonly limits?: FieldLimits;
}

/** The limits of a field; each applies to the kinds named. */
export interface FieldLimits {
  /** string: most characters; stringList: of each item; stringMap: of each value. */
  readonly maxLength?: number;
  /** string: a regular expression (source) the whole text matches. */
  readonly pattern?: string;
  /** string: a named format (packages/actions reads `timestamp`: RFC 3339 with an offset). */
  readonly format?: 'timestamp';
  /** int: the least and the greatest value. */
  readonly min?: number;
  readonly max?: number;
  /** stringList, recordList, stringMap: the fewest and the most items (map: entries). */
  readonly minItems?: number;
  readonly maxItems?: number;
  /** stringList: no item is empty; stringMap: no key is empty. */
  readonly nonEmptyItems?: true;
  /** stringMap: most characters of a key. */
  readonly keyMaxLength?: number;
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

/** ClickHouse column types several fields share. */
export const CH_LOW_CARDINALITY = 'LowCardinality(String)';
export const CH_TIME = "DateTime64(3, 'UTC')";
export const CH_REASONS = 'Array(Tuple(path String, rule String, message String))';

/** ClickHouse's spelling of an Enum8 over `symbols`, numbered from 1 in order (append only). */
export const clickhouseEnum8 = (symbols: readonly string[]) => `Enum8(${symbols.map((s, i) => `'${s}' = ${i + 1}`).join(', ')})`;

/** The Avro field name of a field (JSON kinds travel as text under `<name>_json`). */
export const avroFieldName = (f: RecordField) => (f.kind === 'jsonText' || f.kind === 'jsonObject' ? `${f.name}_json` : f.name);

function avroTypeOf(f: RecordField): AvroSchema {
  if (f.avroType !== undefined) return f.avroType;
  switch (f.kind) {
    case 'string':
    case 'block':
    case 'enum':
    case 'jsonText':
    case 'jsonObject':
      return 'string';
    case 'epochMs':
      return 'long';
    case 'int':
      return 'int';
    case 'boolean':
      return 'boolean';
    case 'stringList':
      return { type: 'array', items: 'string' };
    case 'stringMap':
      return { type: 'map', values: 'string' };
    case 'reasons':
      if (f.avroRecord === undefined) throw new Error(`reasons field ${f.name} names no avroRecord`);
      return { type: 'array', items: { type: 'record', name: f.avroRecord, fields: REASON_AVRO_FIELDS } };
    case 'props':
      throw new Error(`props field ${f.name} has no single Avro field`);
    case 'recordList':
      if (f.avroRecord === undefined || f.fields === undefined) throw new Error(`recordList field ${f.name} names no avroRecord or fields`);
      return { type: 'array', items: { type: 'record', name: f.avroRecord, fields: avroFieldsOf(f.fields) } };
    case 'record':
      if (f.avroRecord === undefined || f.fields === undefined) throw new Error(`record field ${f.name} names no avroRecord or fields`);
      return { type: 'record', name: f.avroRecord, fields: avroFieldsOf(f.fields) };
  }
}

/**
 * The Avro fields of a field table, in table order; `props` fields are left out (a block schema
 * carries one field per event type instead). Key order is that of the schemas as first registered.
 */
export function avroFieldsOf(fields: readonly RecordField[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const f of fields) {
    if (f.kind === 'props') continue;
    const type = avroTypeOf(f);
    const nullable = f.nullable === true;
    // A reasons field's doc was written before its type (EventWarning); the others' after it.
    const docFirst = f.kind === 'reasons' && f.avroDoc !== undefined;
    const docLast = f.avroDocAfterDefault === true;
    const doc = f.avroDoc !== undefined ? { doc: f.avroDoc } : {};
    out.push({
      name: avroFieldName(f),
      ...(docFirst ? doc : {}),
      type: nullable ? ['null', type] : type,
      ...(!docFirst && !docLast ? doc : {}),
      ...(nullable ? { default: null } : f.avroDefault !== undefined ? { default: f.avroDefault } : {}),
      ...(docLast ? doc : {}),
    });
  }
  return out;
}
