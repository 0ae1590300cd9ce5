import type { RecordField } from './record-fields';

/** A decoded record that is not what its field table says: `path` names the field. */
export class RecordReadError extends Error {
  readonly path: string;
  /** What is wrong, without the path. */
  readonly reason: string;
  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.name = 'RecordReadError';
    this.path = path;
    this.reason = reason;
  }
}

type Check = (v: unknown, path: string) => unknown;

function checkOf(f: RecordField): Check {
  const base = ((): Check => {
    switch (f.kind) {
      case 'string':
        return (v, path) => {
          if (typeof v !== 'string') throw new RecordReadError(path, `expected a string, got ${typeof v}`);
          if (f.nonEmpty && v === '') throw new RecordReadError(path, 'expected a non-empty string');
          return v;
        };
      case 'int':
      case 'epochMs':
        return (v, path) => {
          if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new RecordReadError(path, `expected an integer, got ${String(v)}`);
          return v;
        };
      case 'boolean':
        return (v, path) => {
          if (typeof v !== 'boolean') throw new RecordReadError(path, `expected a boolean, got ${typeof v}`);
          return v;
        };
      case 'enum': {
        const symbols: readonly unknown[] = f.symbols ?? [];
        return (v, path) => {
          if (typeof v !== 'string' || (!f.open && !symbols.includes(v))) throw new RecordReadError(path, `${String(v)} is not one of ${symbols.join(', ')}`);
          return v;
        };
      }
      case 'stringList':
        return (v, path) => {
          if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw new RecordReadError(path, 'expected a list of strings');
          return v;
        };
      case 'stringMap':
        return (v, path) => {
          if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.values(v).every((s) => typeof s === 'string'))
            throw new RecordReadError(path, 'expected a map of strings');
          return v;
        };
      case 'reasons':
        return (v, path) => {
          if (!Array.isArray(v)) throw new RecordReadError(path, 'expected a list of reasons');
          v.forEach((r, i) => {
            const ok = r !== null && typeof r === 'object' && ['path', 'rule', 'message'].every((k) => typeof (r as Record<string, unknown>)[k] === 'string');
            if (!ok) throw new RecordReadError(`${path}[${i}]`, 'expected {path, rule, message}');
          });
          return v;
        };
      case 'recordList': {
        const item = recordReader<unknown>(f.fields ?? []);
        return (v, path) => {
          if (!Array.isArray(v)) throw new RecordReadError(path, 'expected a list');
          return v.map((x, i) => {
            try {
              return item(x);
            } catch (err) {
              if (!(err instanceof RecordReadError)) throw err;
              throw new RecordReadError(err.path === '$' ? `${path}[${i}]` : `${path}[${i}].${err.path}`, err.reason);
            }
          });
        };
      }
      case 'record': {
        const item = recordReader<unknown>(f.fields ?? []);
        return (v, path) => {
          try {
            return item(v);
          } catch (err) {
            if (!(err instanceof RecordReadError)) throw err;
            throw new RecordReadError(err.path === '$' ? path : `${path}.${err.path}`, err.reason);
          }
        };
      }
      default:
        throw new Error(`recordReader: field ${f.name} is of kind ${f.kind}, which it does not read`);
    }
  })();
  if (f.nullable) return (v, path) => (v === null || v === undefined ? null : base(v, path));
  // A field added after the schema was first registered is absent from records written before it.
  const fallback = f.avroDefault;
  return fallback === undefined ? base : (v, path) => base(v === undefined ? fallback : v, path);
}

/**
 * A field table → the reader of its decoded records (Avro decoded by the registry, or parsed JSON):
 * checks every field against its kind and returns a record holding exactly the table's fields, or
 * throws RecordReadError naming the first field that is not what the table says. The one decoder of
 * an internal record, so no consumer casts what it reads.
 */
export function recordReader<T>(fields: readonly RecordField[]): (value: unknown) => T {
  const checks = fields.map((f) => [f.name, checkOf(f), f.optional === true] as const);
  return (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new RecordReadError('$', 'expected a record');
    const r = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [name, check, optional] of checks) {
      if (optional && r[name] === undefined) continue;
      out[name] = check(r[name], name);
    }
    return out as T;
  };
}

/** The TypeScript value of a field of a table the reader reads. */
type ValueOf<F extends RecordField> = F['kind'] extends 'string'
  ? string
  : F['kind'] extends 'int' | 'epochMs'
    ? number
    : F['kind'] extends 'boolean'
      ? boolean
      : F['kind'] extends 'enum'
        ? F extends { symbols: readonly (infer S)[] }
          ? S
          : string
        : F['kind'] extends 'stringList'
          ? string[]
          : F['kind'] extends 'stringMap'
            ? Record<string, string>
            : F extends { kind: 'recordList'; fields: infer Fs extends readonly RecordField[] }
              ? RecordOf<Fs>[]
              : F extends { kind: 'record'; fields: infer Fs extends readonly RecordField[] }
                ? RecordOf<Fs>
                : never;

/**
 * A record of a field table as a TypeScript type, derived from the table itself (for records whose
 * type is not generated: the JSON work topics' items).
 */
export type RecordOf<Fs extends readonly RecordField[]> = {
  -readonly [F in Fs[number] as F extends { optional: true } ? never : F['name']]: F extends { nullable: true } ? ValueOf<F> | null : ValueOf<F>;
} & {
  -readonly [F in Fs[number] as F extends { optional: true } ? F['name'] : never]?: ValueOf<F>;
};

/**
 * A tagged union of field tables (one per value of the `tag` field, itself an `enum` of that one
 * value in each table) → the reader of its records: the tag picks the table, and the record is
 * read by it (RecordReadError names the tag when it is none of them).
 */
export function taggedRecordReader<const V extends Record<string, readonly RecordField[]>>(
  tag: string,
  variants: V,
): (value: unknown) => { [K in keyof V]: RecordOf<V[K]> }[keyof V] {
  const readers = new Map(Object.entries(variants).map(([k, fields]) => [k, recordReader<unknown>(fields)]));
  return (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new RecordReadError('$', 'expected a record');
    const t = (value as Record<string, unknown>)[tag];
    const read = typeof t === 'string' ? readers.get(t) : undefined;
    if (!read) throw new RecordReadError(tag, `${String(t)} is not one of ${[...readers.keys()].join(', ')}`);
    return read(value) as { [K in keyof V]: RecordOf<V[K]> }[keyof V];
  };
}
