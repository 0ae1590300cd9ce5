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
  const checks = fields.map((f) => [f.name, checkOf(f)] as const);
  return (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new RecordReadError('$', 'expected a record');
    const r = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [name, check] of checks) out[name] = check(r[name], name);
    return out as T;
  };
}
