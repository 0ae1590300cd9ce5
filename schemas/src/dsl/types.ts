import type { FieldPrivacy, PrivacyClass } from '../privacy/types';
import type { RuleName } from '../rules/registry';
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
  /** Inclusive numeric bounds. */
  min?: number;
  max?: number;
  /** What real clients send for this field instead of what the spec says, each accepted with a named warning. */
  client?: FieldClientValues;
  /**
   * The field's privacy class here, when the vocabulary by name (privacy/vocabulary.ts) does not say
   * it: a catalog's `id` that is a person's, a person's `name` (docs/privacy.md, "Data classes").
   */
  privacy?: FieldPrivacy;
}

/**
 * How real clients deviate from the spec for one field (docs/data-contract.md, "Real clients"). Every
 * deviation is accepted and reported under its warning rule (each listed in schemas/src/quirks),
 * never silently. A key that is a camelCase or upper-case spelling of a field name (`moduleId`,
 * `ATC_anatomical_group`) is read as that field everywhere (warning `property_spelling`), so it needs
 * no entry here.
 */
export interface FieldClientValues {
  /** Other names clients send the field under (warning `property_alias`), e.g. `has_whatsapp` for `has_chatapp`. */
  aliases?: readonly string[];
  /** A value that stands for "not set" (birth_year `0`, an epoch-0 time): treated as absent, warning `unset.rule`. */
  unset?: UnsetValue;
  /** What a client's omission of a required field means (warning `default_applied`), computed from the object as sent. */
  default?: ClientDefault;
  /**
   * A required field real clients leave out (never send, or send only when they have a value): which
   * clients, and why. Events recognised as one of those clients' are accepted without it, warning
   * `required_missing` (dsl/omissions.ts); every other client is still held to `required`. Nullable
   * in Avro.
   */
  mayOmit?: ClientOmission;
  /** A number or boolean sent for a string field becomes its JSON text (warning `type_coerced`). */
  stringify?: true;
  /** Paths inside the object (`appointment.patient_id`) where clients put the field instead: lifted, warning `property_moved`. */
  movedFrom?: readonly string[];
}

/**
 * Real clients whose omissions of required fields the definitions name, recognised once per envelope
 * by their sdk and form (clients/identity.ts): `ios-cf`, the older CausalFoundry iOS line
 * (causalfoundry/ios-sdk 0.4.3–1.2.3, earlier form), `ios-kenkai`, the Kenkai iOS client and the
 * Kenkai Core in Unity (`ios/1.0.0`, `ios/1.0.1`, `ios/1.0.10`, current form), and `server-import`, a
 * server-side import such as the synthetic data generator (every flat-form event,
 * normalize/flat-form.ts): it has no device to measure on and reports steps without what comes later.
 */
export type RecognisedClient = 'ios-cf' | 'ios-kenkai' | 'server-import';

export interface ClientOmission {
  by: readonly RecognisedClient[];
  /** Completes "<field> is required by the spec but …" (the warning message and the docs). */
  why: string;
}

export interface UnsetValue {
  /** The warning rule, e.g. `unset_value`. */
  rule: RuleName;
  /** The values, in words (for the reference page and the warning message). */
  doc: string;
  is: (value: unknown) => boolean;
}

export interface ClientDefault {
  /** The default, in words. */
  doc: string;
  value: (input: Record<string, unknown>) => unknown;
}

export interface ObjectDef {
  /** Avro record name (PascalCase, unique in a schema). */
  name: string;
  doc?: string;
  fields: Record<string, FieldDef>;
  /** Rules across fields; each returns problems relative to the object. */
  rules?: readonly ObjectRule[];
  /**
   * The class of every field of this object that is not an identifier and has no tag of its own: a
   * diagnosis item is health throughout, a drug catalog says nothing about a person (privacy/resolve.ts).
   */
  privacy?: PrivacyClass;
}

export interface RuleProblem {
  /** Path relative to the object, e.g. `details` or `body.url`. Empty for the object itself. */
  path: string;
  rule: RuleName;
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
  /**
   * Set for an event the spec does not define, defined from the real clients that send it (names the
   * clients and sources; for an event older clients send that the spec replaced, says so): accepted
   * events carry the warning `event_not_in_spec` at their name.
   */
  origin?: string;
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
