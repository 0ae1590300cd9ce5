import { CATALOG_KINDS, type CatalogKind } from '@evp/core';
import { catalogDef, eventDef, userCatalog, type FieldDef, type FieldType, type ObjectDef } from '@evp/schemas';

/**
 * What the segment language knows of the data contract (schemas/): the events, their properties and
 * types, the catalog kinds and their fields, the user's profile. Validation checks a definition
 * against it and the compiler reads identifiers only from it, never from a definition unchecked.
 */

/** One step of a property path: a field name and whether `[]` follows it (any element of the array). */
interface PathStep {
  name: string;
  each: boolean;
}

/** A property path found in the contract. */
export interface ResolvedPath {
  steps: PathStep[];
  /** The type of what the path reads: after `[]`, the array's element type. */
  type: FieldType;
  /** True when the path crosses an array with `[]`: it reads many values, and a predicate asks whether one of them matches. */
  many: boolean;
}

export interface PathProblem {
  rule: 'unknown_property' | 'array_path' | 'unsupported';
  message: string;
}

/** A contract field name (every name in schemas/ is one); the compiler writes only such names into SQL. */
export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const STEP = /^([A-Za-z_][A-Za-z0-9_]*)(\[\])?$/;

/** How a type compares: what operators and values apply to it. */
export type ValueClass = 'string' | 'number' | 'boolean' | 'enum' | 'array' | 'object' | 'any';

export function valueClass(type: FieldType): ValueClass {
  switch (type.kind) {
    case 'scalar':
      return type.scalar === 'string' ? 'string' : type.scalar === 'boolean' ? 'boolean' : 'number';
    case 'epochMs':
      return 'number';
    case 'enum':
      return 'enum';
    case 'array':
      return 'array';
    case 'map':
    case 'object':
      return 'object';
    case 'any':
      return 'any';
  }
}

const own = <T>(record: Readonly<Record<string, T>>, key: string): T | undefined => (Object.hasOwn(record, key) ? record[key] : undefined);

function describe(type: FieldType): string {
  switch (type.kind) {
    case 'scalar':
      return `a${type.scalar === 'int' ? 'n' : ''} ${type.scalar}`;
    case 'epochMs':
      return 'an epoch-ms time';
    case 'enum':
      return `an enum (${type.name})`;
    case 'array':
      return 'an array';
    case 'map':
      return 'a map';
    case 'object':
      return 'an object';
    case 'any':
      return 'any JSON value';
  }
}

/** The name a client's other spelling of a field stands for, to say so when a path uses it. */
function aliasOf(def: ObjectDef, name: string): string | undefined {
  for (const [field, f] of Object.entries(def.fields)) {
    if (f.aliases?.includes(name) || f.client?.aliases?.includes(name)) return field;
  }
  return undefined;
}

/**
 * A dotted path (`item.id`, `items[].id`, `tags[]`) in an object's contract: every step a field of
 * the object before it, `[]` exactly where an array is crossed. Paths into a map's keys or inside
 * `any` values have no contract and are refused.
 */
export function resolvePath(root: ObjectDef, path: string, label: string): ResolvedPath | PathProblem {
  const parts = path.split('.');
  const steps: PathStep[] = [];
  let def: ObjectDef = root;
  let type: FieldType | undefined;
  let many = false;
  for (let i = 0; i < parts.length; i++) {
    const m = STEP.exec(parts[i] as string);
    if (!m) return { rule: 'unknown_property', message: `${path} is not a property path (names joined by dots, [] after an array)` };
    const name = m[1] as string;
    const each = m[2] !== undefined;
    const here = parts.slice(0, i + 1).join('.');
    if (type !== undefined) {
      const before = parts.slice(0, i).join('.');
      if (type.kind === 'object') def = type.def;
      else if (type.kind === 'array') return { rule: 'array_path', message: `${before} is an array: write ${before}[] to read its elements` };
      else if (type.kind === 'map' || type.kind === 'any') {
        return { rule: 'unsupported', message: `${before} is ${describe(type)}: the contract does not say what is inside it` };
      } else return { rule: 'unknown_property', message: `${before} is ${describe(type)}: it has no property ${name}` };
    }
    const field: FieldDef | undefined = own(def.fields, name);
    if (!field) {
      const alias = aliasOf(def, name);
      const hint = alias ? ` (${name} is a client's spelling of ${alias}, which is what is stored)` : '';
      return { rule: 'unknown_property', message: `${here.replace(/\[\]$/, '')} is not a property of ${label}${hint}` };
    }
    type = field.type;
    if (each) {
      if (type.kind !== 'array') return { rule: 'array_path', message: `${name} is ${describe(type)}, not an array: [] does not apply` };
      type = type.items;
      many = true;
    }
    steps.push({ name, each });
  }
  return { steps, type: type as FieldType, many };
}

export const isPathProblem = (r: ResolvedPath | PathProblem): r is PathProblem => 'rule' in r;

/** The event's definition by any name it is sent under (`action_response` is `nudge_response`). */
export function contractEvent(name: string): { name: string; def: ObjectDef } | undefined {
  const def = eventDef(name);
  return def ? { name: def.event, def } : undefined;
}

export function catalogKind(name: string): CatalogKind | undefined {
  return (CATALOG_KINDS as readonly string[]).includes(name) ? (name as CatalogKind) : undefined;
}

/**
 * A catalog kind's fields as stored: `id` is a column of `catalog_<kind>`, every other field is in
 * its `record` JSON (docs/analytics.md).
 */
export function catalogFields(kind: CatalogKind): ObjectDef {
  return catalogDef(kind);
}

/** The values an enum accepts as written in a definition: its symbols, client extensions and aliases. */
export function enumValues(type: Extract<FieldType, { kind: 'enum' }>): string[] {
  return [...type.symbols, ...(type.client?.extensions ?? []), ...Object.keys(type.client?.aliases ?? {})];
}

/** A value written in a definition → the value stored (a client alias is stored as its symbol). */
export function storedEnumValue(type: Extract<FieldType, { kind: 'enum' }>, value: string): string {
  const aliases = type.client?.aliases;
  return (aliases && own(aliases, value)) ?? value;
}

/**
 * Client facts a profile condition reads from the user's latest event: columns of `events`
 * (deploy/clickhouse/migrations/001_events.sql). Their names do not clash with user catalog fields.
 */
const CLIENT_FACTS: Readonly<Record<string, FieldType>> = {
  os: { kind: 'scalar', scalar: 'string' },
  app_version: { kind: 'scalar', scalar: 'string' },
  app_version_code: { kind: 'scalar', scalar: 'int' },
  sdk_name: { kind: 'scalar', scalar: 'string' },
  sdk_version: { kind: 'scalar', scalar: 'string' },
  tz: { kind: 'scalar', scalar: 'string' },
  device_id: { kind: 'scalar', scalar: 'string' },
};

/** The client facts' names (columns of `events`): what a campaign's `user` scope reads from the latest event. */
export const CLIENT_FACT_NAMES: readonly string[] = Object.keys(CLIENT_FACTS);

export type ProfileField = { source: 'client'; name: string; type: FieldType } | { source: 'catalog'; name: string; type: FieldType };

/**
 * A profile FIELD: a client fact, or a field of the user catalog record (`id` excepted: it is the
 * user id itself, which segments are sets of).
 */
export function profileField(name: string): ProfileField | undefined {
  const fact = own(CLIENT_FACTS, name);
  if (fact) return { source: 'client', name, type: fact };
  const field = name === 'id' ? undefined : own(userCatalog.fields, name);
  return field ? { source: 'catalog', name, type: field.type } : undefined;
}

/** Every profile field name (client facts, then user catalog fields), for messages and docs. */
export const profileFieldNames = (): string[] => [...Object.keys(CLIENT_FACTS), ...Object.keys(userCatalog.fields).filter((f) => f !== 'id')];
