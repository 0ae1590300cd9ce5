import { RowBinaryValueError, rowBinaryEncoder, stringifyWellFormed, wellFormedJson, type RowBinaryWriter } from '@evp/clickhouse';
import type { RejectionReason } from '@evp/core';
import { avroFieldName, eventDef, fromAvroValue, type RecordField } from '@evp/schemas';
import { RowError, boundedObjectProblem, chTime, chTimeOrNull, epochMs, nonEmpty, reasons, text } from './row-checks';

/**
 * A field table (schemas: CANONICAL_FIELDS, REJECTED_FIELDS) read as ClickHouse columns: the column
 * names, the row types and the writers that turn a decoded Avro record straight into a row. One
 * column per field, in table order, named as the field (record-fields.ts lists each kind's forms).
 */

/** The value a field's column takes. */
type CellOf<F> = F extends RecordField ? (F['kind'] extends 'jsonObject' ? Cell<F> : F extends { nullable: true } ? Cell<F> | null : Cell<F>) : never;
type Cell<F extends RecordField> = F['kind'] extends 'string' | 'block' | 'epochMs' | 'jsonText'
  ? string
  : F['kind'] extends 'int'
    ? number
    : F['kind'] extends 'boolean'
      ? boolean
      : F['kind'] extends 'enum'
        ? F extends { open: true }
          ? string
          : F extends { symbols: readonly (infer S)[] }
            ? S
            : never
        : F['kind'] extends 'props' | 'jsonObject'
          ? Record<string, unknown>
          : F['kind'] extends 'reasons'
            ? RejectionReason[]
            : F['kind'] extends 'stringList'
              ? string[]
              : F['kind'] extends 'stringMap'
                ? Record<string, string>
                : never;

/** A row of a field table as an object (column → value). */
export type RowOf<Fs extends readonly RecordField[]> = { -readonly [F in Fs[number] as F['name']]: CellOf<F> };

/** A row of a field table as values in column order. Generic so that the mapped type maps the tuple's elements. */
export type ValuesOf<Fs extends readonly RecordField[]> = { -readonly [I in keyof Fs]: CellOf<Fs[I]> };

type NamesOf<Fs extends readonly RecordField[]> = { -readonly [I in keyof Fs]: Fs[I] extends { name: infer N } ? N : never };

/** The column names of a field table, in order. */
export const columnsOf = <const Fs extends readonly RecordField[]>(fields: Fs): NamesOf<Fs> => fields.map((f) => f.name) as NamesOf<Fs>;

type Write = (record: Record<string, unknown>) => unknown;

/** The event's typed props: the block record's field named after the event (one per event type). */
function eventProps(record: Record<string, unknown>): Record<string, unknown> {
  const def = eventDef(record.name as string);
  const props = def ? (record[def.event] as Record<string, unknown> | null) : null;
  return def && props ? fromAvroValue(def, props) : {};
}

function writerOf(f: RecordField): Write {
  const name = f.name;
  const at = avroFieldName(f);
  switch (f.kind) {
    case 'string':
      if (f.nullable) return (r) => (r[at] === null || r[at] === undefined ? null : text(r[at], at));
      return f.nonEmpty ? (r) => nonEmpty(r[at], at) : (r) => text(r[at], at);
    case 'block':
      return (r) => nonEmpty(r[at], at);
    case 'epochMs': {
      if (f.nullable) return (r) => chTimeOrNull(r[at], at);
      // A field added after the schema's first version is missing from records written before it.
      const from = f.missingFrom;
      return from === undefined ? (r) => chTime(r[at], at) : (r) => chTime(r[at] ?? r[from], at);
    }
    case 'int':
      return (r) => {
        const v = r[at];
        if (f.nullable && (v === null || v === undefined)) return null;
        if (typeof v !== 'number' || !Number.isInteger(v)) throw new RowError(at, `expected an integer, got ${String(v)}`);
        return v;
      };
    case 'boolean':
      return (r) => r[at] === true;
    case 'enum': {
      if (f.open) return (r) => nonEmpty(r[at], at);
      const symbols: readonly unknown[] = f.symbols ?? [];
      return (r) => {
        const v = r[at];
        if (!symbols.includes(v)) throw new RowError(at, `${String(v)} is not one of ${symbols.join(', ')}`);
        return v;
      };
    }
    case 'props':
      return eventProps;
    case 'jsonText':
      // Kept as the text the validator wrote, never parsed. Lone surrogates (JSON.stringify writes
      // them as escapes) become U+FFFD, so the text reads back as what ClickHouse stores.
      return (r) => {
        const v = r[at];
        return v === null || v === undefined ? null : wellFormedJson(text(v, at));
      };
    case 'jsonObject':
      // A JSON column cannot be NULL: {} stands for none.
      return (r) => {
        const v = r[at];
        if (v === null || v === undefined) return {};
        let parsed: unknown;
        try {
          parsed = JSON.parse(text(v, at));
        } catch (err) {
          if (err instanceof RowError) throw err;
          throw new RowError(at, `not JSON: ${(err as Error).message}`);
        }
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new RowError(at, 'expected a JSON object');
        return parsed;
      };
    case 'stringList':
      return (r) => {
        const v = r[at];
        if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw new RowError(at, 'expected a list of strings');
        return v;
      };
    case 'stringMap':
      return (r) => {
        const v = r[at];
        if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.values(v).every((s) => typeof s === 'string'))
          throw new RowError(at, 'expected a map of strings');
        return v;
      };
    case 'recordList':
    case 'record':
      throw new Error(`${f.kind} field ${f.name} has no column`);
    case 'reasons':
      // A field added after the schema's first version is missing from records written before it.
      return f.avroDefault !== undefined ? (r) => reasons(r[at] ?? f.avroDefault, name) : (r) => reasons(r[at], name);
  }
}

/** A decoded Avro record of a field table → its row as values in column order (each value checked). */
export function valuesWriter<const Fs extends readonly RecordField[]>(fields: Fs): (record: Record<string, unknown>) => ValuesOf<Fs> {
  const writers = fields.map(writerOf);
  return (record) => {
    const values: unknown[] = [];
    for (let i = 0; i < writers.length; i++) values.push((writers[i] as Write)(record));
    return values as ValuesOf<Fs>;
  };
}

/**
 * A decoded Avro record of a field table → its row as an object (each value checked). Takes any
 * object: the record's own interface (RejectedRecord) has no index signature.
 */
export function rowWriter<const Fs extends readonly RecordField[]>(fields: Fs): (record: object) => RowOf<Fs> {
  const writers = fields.map((f) => [f.name, writerOf(f)] as const);
  return (record) => {
    const row: Record<string, unknown> = {};
    for (const [name, write] of writers) row[name] = write(record as Record<string, unknown>);
    return row as RowOf<Fs>;
  };
}

/**
 * A JSON object's text, bounded: it opens with `{` and its brackets (outside strings) close only at
 * its last character, so spliced into a row's text it is one value, whatever it holds. Content the
 * scan does not check (a bare word, a raw control character) ClickHouse refuses, and the sink
 * isolates that row like any other the engine refuses.
 */
function objectText(value: unknown, at: string): string {
  const json = text(value, at);
  // The scan reads bytes (the events reader's form); this path is taken by few rows now.
  const bytes = Buffer.from(json);
  const problem = boundedObjectProblem(bytes, 0, bytes.length);
  if (problem !== '') throw new RowError(at, problem);
  return wellFormedJson(json);
}

/**
 * A field's value as its RowBinary column takes it: what writerOf checks and returns, except that
 * times stay epoch milliseconds (DateTime64(3) is their Int64) and a JSON column's value is its
 * text: the event's props stringified once, a `jsonObject` field's text (the validator's
 * JSON.stringify) spliced in as it is, checked to be one bounded object, never parsed (issue 28).
 */
function binaryValueOf(f: RecordField): Write {
  const at = avroFieldName(f);
  switch (f.kind) {
    case 'epochMs': {
      if (f.nullable) return (r) => (r[at] === null || r[at] === undefined ? null : epochMs(r[at], at));
      const from = f.missingFrom;
      return from === undefined ? (r) => epochMs(r[at], at) : (r) => epochMs(r[at] ?? r[from], at);
    }
    case 'props':
      return (r) => stringifyWellFormed(eventProps(r));
    case 'jsonObject':
      // A Map column (dead letters' headers) takes the parsed object.
      if (f.clickhouse !== 'JSON') return writerOf(f);
      return (r) => {
        const v = r[at];
        return v === null || v === undefined ? '{}' : objectText(v, at);
      };
    default:
      return writerOf(f);
  }
}

/** How a field table's rows are written as RowBinary: the columns, their types, and the writer of one row. */
export interface RowBinaryTable<R = Record<string, unknown>> {
  columns: readonly string[];
  /** The columns' ClickHouse types (the fields' `clickhouse`: a test compares them with the migrated tables). */
  types: readonly string[];
  /** A decoded record of the field table → its row's bytes (a view into `w`'s chunk), each value checked. */
  write(w: RowBinaryWriter, record: R): Buffer;
}

/**
 * A field table → the RowBinary writer of its rows, each column encoded as its ClickHouse type
 * (rowBinaryEncoder). A value the type cannot hold (a negative UInt32, an Enum8 symbol the type
 * lacks) is a RowError at its field, like every other check: the row is never half written.
 */
export function rowBinaryTable<R extends object = Record<string, unknown>>(fields: readonly RecordField[]): RowBinaryTable<R> {
  const types = fields.map((f) => {
    if (f.clickhouse === undefined) throw new Error(`field ${f.name} has no ClickHouse column`);
    return f.clickhouse;
  });
  const values = fields.map(binaryValueOf);
  const encoders = types.map(rowBinaryEncoder);
  const paths = fields.map(avroFieldName);
  return {
    columns: fields.map((f) => f.name),
    types,
    write(w, record) {
      let i = 0;
      try {
        for (; i < encoders.length; i++) (encoders[i] as (typeof encoders)[number])(w, (values[i] as Write)(record as Record<string, unknown>));
      } catch (err) {
        w.discardRow();
        if (err instanceof RowBinaryValueError) throw new RowError(paths[i] as string, err.message);
        throw err;
      }
      return w.row();
    },
  };
}
