import { createHash } from 'node:crypto';
import { Type } from 'avsc';
import { AVRO_PARSE_OPTIONS } from './exact-long';

/** A schema that avsc (and therefore any Avro reader) would refuse; registries answer it with 42201. */
export class InvalidSchemaError extends Error {
  constructor(message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = 'InvalidSchemaError';
  }
}

const PRIMITIVES = new Set(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string']);

/** Accepts the schema as an object or as the JSON text registries exchange. */
export function parseAvroSchema(schema: string | object): Type {
  let json: unknown;
  try {
    json = typeof schema === 'string' ? JSON.parse(schema) : schema;
  } catch (err) {
    throw new InvalidSchemaError(`schema is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  try {
    // The Confluent adapter gives its client the same options, so both adapters hand out
    // identical decoded values (unwrapped nullable unions, record instances, Buffers, numbers).
    return Type.forSchema(json as Parameters<typeof Type.forSchema>[0], { ...AVRO_PARSE_OPTIONS });
  } catch (err) {
    throw new InvalidSchemaError((err as Error).message, { cause: err });
  }
}

/**
 * The form under which two registrations count as "the same schema" (same id). Unlike Avro's
 * Parsing Canonical Form it keeps defaults, docs, aliases and logical types, because those change
 * how data resolves; it only erases spelling differences: key order, whitespace and `{"type":"int"}`
 * written for `"int"`.
 */
export function canonicalSchema(schema: string | object): string {
  const json: unknown = typeof schema === 'string' ? JSON.parse(schema) : schema;
  return JSON.stringify(normalize(json));
}

/** A stable, short key for the canonical form (hex SHA-256). */
export function schemaFingerprint(schema: string | object): string {
  return createHash('sha256').update(canonicalSchema(schema)).digest('hex');
}

function normalize(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalize);
  if (node === null || typeof node !== 'object') return node;
  const entries = Object.entries(node as Record<string, unknown>);
  const [onlyEntry] = entries;
  if (entries.length === 1 && onlyEntry?.[0] === 'type' && PRIMITIVES.has(onlyEntry[1] as string)) {
    return onlyEntry[1];
  }
  const sorted: Record<string, unknown> = {};
  for (const [key, value] of entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // Defaults are data, not schema: their key order is irrelevant but they must not collapse.
    sorted[key] = key === 'default' ? sortKeysOnly(value) : normalize(value);
  }
  return sorted;
}

function sortKeysOnly(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysOnly);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, sortKeysOnly(v)]),
  );
}
