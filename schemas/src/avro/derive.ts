import type { FieldDef, FieldType, ObjectDef } from '../dsl/types';

/**
 * Avro is derived from the DSL. Choices (see docs/data-contract.md):
 * - enums travel as Avro strings: several spec values are not valid Avro symbols (`5_or_more`,
 *   `one-off`), and adding a symbol to an Avro enum breaks old readers; validation enforces them;
 * - `any` travels as JSON text;
 * - every record has `extra_json` so unknown properties survive the trip;
 * - optional fields are `["null", T]` with default null, so adding one is BACKWARD compatible.
 */
export type AvroSchema = string | Record<string, unknown> | AvroSchema[];

export class AvroNames {
  private readonly defined = new Set<string>();
  constructor(readonly namespace: string) {}
  /** Returns true the first time a record name is seen; later uses refer to it by name. */
  claim(name: string): boolean {
    if (this.defined.has(name)) return false;
    this.defined.add(name);
    return true;
  }
}

export function avroType(type: FieldType, names: AvroNames): AvroSchema {
  switch (type.kind) {
    case 'scalar':
      // The spec's FLOAT carries prices and amounts: 32-bit Avro float would turn 19.99 into
      // 19.989999771118164, so FLOAT travels as double (float→double is also a safe promotion).
      return type.scalar === 'float' ? 'double' : type.scalar;
    case 'epochMs':
      return { type: 'long', logicalType: 'timestamp-millis' };
    case 'enum':
      return 'string';
    case 'any':
      return 'string';
    case 'array':
      return { type: 'array', items: avroType(type.items, names) };
    case 'map':
      return { type: 'map', values: avroType(type.values, names) };
    case 'object':
      return avroRecord(type.def, names);
  }
}

export function avroField(name: string, field: FieldDef, names: AvroNames): Record<string, unknown> {
  const base = avroType(field.type, names);
  const doc = docOf(field);
  // A required field that real clients leave out (FieldDef.client.mayOmit) can be absent from an accepted value.
  const present = field.required && field.client?.mayOmit === undefined;
  return present ? { name, type: base, ...(doc ? { doc } : {}) } : { name, type: ['null', base], default: null, ...(doc ? { doc } : {}) };
}

export function avroRecord(def: ObjectDef, names: AvroNames): AvroSchema {
  if (!names.claim(def.name)) return `${names.namespace}.${def.name}`;
  return {
    type: 'record',
    name: def.name,
    namespace: names.namespace,
    ...(def.doc ? { doc: def.doc } : {}),
    fields: [
      ...Object.entries(def.fields).map(([n, f]) => avroField(n, f, names)),
      { name: 'extra_json', type: ['null', 'string'], default: null, doc: 'Unknown properties, as JSON' },
    ],
  };
}

function docOf(field: FieldDef): string | undefined {
  const parts = [field.doc, field.type.kind === 'enum' ? `one of: ${field.type.symbols.join(', ')}` : undefined];
  const s = parts.filter(Boolean).join('; ');
  return s || undefined;
}

/**
 * Validated DSL value → Avro value (nulls for absent optionals, JSON text for `any`). Runs once per
 * event on the validator's hot path, so each definition (a constant) is compiled once into a
 * converter (field names and per-type converters resolved up front) instead of walking
 * `Object.entries(def.fields)` per value; the output is the same object, key for key.
 */
export function toAvroValue(def: ObjectDef, value: Record<string, unknown>): Record<string, unknown> {
  return compiledToAvro(def)(value);
}

type ToAvro = (v: unknown) => unknown;
const toAvroCache = new WeakMap<ObjectDef, (value: Record<string, unknown>) => Record<string, unknown>>();

function compiledToAvro(def: ObjectDef): (value: Record<string, unknown>) => Record<string, unknown> {
  let fn = toAvroCache.get(def);
  if (fn !== undefined) return fn;
  // Placeholder first: a definition that (indirectly) contains itself resolves to the cached entry.
  toAvroCache.set(def, (value) => compiledToAvro(def)(value));
  const names = Object.keys(def.fields);
  const converters = names.map((n) => toAvroConverter((def.fields[n] as FieldDef).type));
  fn = (value) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const v = value[name];
      const convert = converters[i];
      out[name] = v === undefined || v === null ? null : convert === undefined ? v : convert(v);
    }
    const extra = value.__extra as Record<string, unknown> | undefined;
    out.extra_json = extra && Object.keys(extra).length > 0 ? JSON.stringify(extra) : null;
    return out;
  };
  toAvroCache.set(def, fn);
  return fn;
}

/** The converter for one field type; undefined when the value travels as it is. */
function toAvroConverter(type: FieldType): ToAvro | undefined {
  switch (type.kind) {
    case 'any':
      return (v) => JSON.stringify(v);
    case 'array': {
      const item = toAvroConverter(type.items);
      return item === undefined ? (v) => (v as unknown[]).map((x) => x) : (v) => (v as unknown[]).map((x) => item(x));
    }
    case 'map': {
      const values = toAvroConverter(type.values) ?? ((x: unknown) => x);
      return (v) => Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, values(x)]));
    }
    case 'object': {
      const def = type.def;
      return (v) => compiledToAvro(def)(v as Record<string, unknown>);
    }
    default:
      return undefined;
  }
}

const fieldListCache = new WeakMap<ObjectDef, readonly (string | FieldType)[]>();

/**
 * A definition's fields as name, type, name, type…, made once per definition: `Object.entries` per
 * call was an array per field per object read (the sink reads every event's props through here).
 */
function fieldListOf(def: ObjectDef): readonly (string | FieldType)[] {
  let list = fieldListCache.get(def);
  if (list === undefined) fieldListCache.set(def, (list = Object.entries(def.fields).flatMap(([name, field]) => [name, field.type])));
  return list;
}

/** Avro value → plain JSON value (inverse of toAvroValue): drops nulls, parses JSON text, folds extras back. */
export function fromAvroValue(def: ObjectDef, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fields = fieldListOf(def);
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i] as string;
    const v = value[name];
    if (v !== null && v !== undefined) out[name] = fromAvroField(fields[i + 1] as FieldType, v);
  }
  if (typeof value.extra_json === 'string') {
    // defineProperty, not assignment: an extra named `__proto__` must come back as data.
    for (const [k, v] of Object.entries(JSON.parse(value.extra_json) as Record<string, unknown>)) {
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
  }
  return out;
}

function fromAvroField(type: FieldType, v: unknown): unknown {
  switch (type.kind) {
    case 'any':
      return JSON.parse(v as string);
    case 'epochMs':
    case 'scalar':
      // avsc decodes longs as numbers; timestamp-millis without a logical type registered too.
      return v instanceof Date ? v.getTime() : v;
    case 'array':
      return (v as unknown[]).map((x) => fromAvroField(type.items, x));
    case 'map':
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromAvroField(type.values, x)]));
    case 'object':
      return fromAvroValue(type.def, v as Record<string, unknown>);
    default:
      return v;
  }
}
