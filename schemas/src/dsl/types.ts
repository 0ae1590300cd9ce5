/**
 * The contract DSL: one definition per event type, nested object and catalog kind. Validators, Avro
 * schemas, TypeScript types and the reference page are all derived from these definitions.
 */
export type Scalar = 'string' | 'int' | 'long' | 'float' | 'double' | 'boolean';

export type FieldType =
  | { kind: 'scalar'; scalar: Scalar }
  /** Epoch milliseconds; ISO strings are rejected (spec: LONG epoch ms). */
  | { kind: 'epochMs' }
  | { kind: 'enum'; name: string; symbols: readonly string[]; client?: EnumClientValues }
  | { kind: 'array'; items: FieldType }
  | { kind: 'map'; values: FieldType }
  | { kind: 'object'; def: ObjectDef }
  /** Any JSON value; carried as JSON text in Avro and ClickHouse. */
  | { kind: 'any' };

/**
 * Values real clients send for an enum that the spec's list does not have (docs/data-contract.md,
 * "Real clients"). Each is accepted with a warning naming the quirk, never silently.
 */
export interface EnumClientValues {
  /** A client's spelling of a spec symbol → that symbol (warning `enum_alias`), e.g. appointments → appointment. */
  aliases?: Readonly<Record<string, string>>;
  /** Values a client's own enum has that the spec's list lacks, kept as sent (warning `enum_extension`). */
  extensions?: readonly string[];
}

export interface FieldDef {
  type: FieldType;
  required: boolean;
  doc?: string;
  /** Applied when the field is absent (spec defaults, e.g. search `page` = 1). */
  default?: unknown;
  /** Other accepted spellings, normalised to the field name. */
  aliases?: readonly string[];
  /**
   * A real client's own name for the field (docs/data-contract.md, "Real clients"), e.g. the
   * generator's `delivery_ts` for `est_delivery_ts`: read as the field with warning `property_alias`.
   * When the field's own name is present too, it wins and the client's spelling stays an extra.
   */
  clientAliases?: readonly string[];
  /**
   * Required from client libraries, but a server-side import (the flat form) may omit it: the reason
   * why it cannot be met there. Absent from a flat-form event, the field stays absent (null in Avro,
   * which is therefore nullable) with warning `missing_required`; from every other form it is still
   * `required`.
   */
  importMayOmit?: string;
  /** Inclusive numeric bounds. */
  min?: number;
  max?: number;
}

export interface ObjectDef {
  /** Avro record name (PascalCase, unique in a schema). */
  name: string;
  doc?: string;
  fields: Record<string, FieldDef>;
  /** Rules across fields; each returns problems relative to the object. */
  rules?: readonly ObjectRule[];
}

export interface RuleProblem {
  /** Path relative to the object, e.g. `details` or `body.url`. Empty for the object itself. */
  path: string;
  rule: string;
  message: string;
  /**
   * A known client quirk rather than an error: the object is accepted and the problem is reported as
   * a warning under `rule` (docs/data-contract.md lists every quirk with the client that sends it).
   */
  warning?: true;
}

export type ObjectRule = (value: Record<string, unknown>) => RuleProblem[];

export interface EventDef extends ObjectDef {
  /** The event type name as sent (`page`, `identify`, …). */
  event: string;
  block: import('@evp/core').Block;
}

// Small constructors keep definitions readable.
export const t = {
  string: { kind: 'scalar', scalar: 'string' } as FieldType,
  int: { kind: 'scalar', scalar: 'int' } as FieldType,
  long: { kind: 'scalar', scalar: 'long' } as FieldType,
  float: { kind: 'scalar', scalar: 'float' } as FieldType,
  double: { kind: 'scalar', scalar: 'double' } as FieldType,
  boolean: { kind: 'scalar', scalar: 'boolean' } as FieldType,
  epochMs: { kind: 'epochMs' } as FieldType,
  any: { kind: 'any' } as FieldType,
  enum: (name: string, symbols: readonly string[], client?: EnumClientValues): FieldType => ({ kind: 'enum', name, symbols, ...(client ? { client } : {}) }),
  array: (items: FieldType): FieldType => ({ kind: 'array', items }),
  map: (values: FieldType): FieldType => ({ kind: 'map', values }),
  object: (def: ObjectDef): FieldType => ({ kind: 'object', def }),
};

export const req = (type: FieldType, extra: Omit<FieldDef, 'type' | 'required'> = {}): FieldDef => ({
  type,
  required: true,
  ...extra,
});
export const opt = (type: FieldType, extra: Omit<FieldDef, 'type' | 'required'> = {}): FieldDef => ({
  type,
  required: false,
  ...extra,
});
