import type { FieldType, ObjectDef, RecognisedClient } from './types';

/**
 * Required fields that real clients leave out are marked `client.mayOmit` in the definitions (which
 * clients, and why). Only events recognised as one of those clients' are accepted without them: for
 * those, the validator is given `toleratingOmissions(def, client)`, a copy of the definition (nested
 * objects included, built once per definition and client) under which an absent field that client
 * leaves out is the warning `required_missing` instead of the error `required` (dsl/validate.ts).
 * Every other client is still held to `required` by the definition itself. Because such events exist,
 * the field is nullable in Avro and optional in the generated types.
 */
const copies: Record<RecognisedClient, WeakMap<ObjectDef, ObjectDef>> = {
  'ios-cf': new WeakMap(),
  'ios-kenkai': new WeakMap(),
  'server-import': new WeakMap(),
};
const tolerating = new WeakMap<ObjectDef, RecognisedClient>();

export function toleratingOmissions<T extends ObjectDef>(def: T, client: RecognisedClient): T {
  const cache = copies[client];
  const cached = cache.get(def);
  if (cached !== undefined) return cached as T;
  if (!omitsAnything(def, client, new Set())) {
    cache.set(def, def);
    return def;
  }
  const copy = { ...def, fields: {} as ObjectDef['fields'] };
  // Registered before the fields are copied, so a definition that contains itself terminates.
  cache.set(def, copy);
  tolerating.set(copy, client);
  for (const [name, f] of Object.entries(def.fields)) copy.fields[name] = { ...f, type: tolerantType(f.type, client) };
  return copy;
}

/** The client whose omissions this definition tolerates (it came from toleratingOmissions), if any. */
export const omissionsToleratedFor = (def: ObjectDef): RecognisedClient | undefined => tolerating.get(def);

function tolerantType(type: FieldType, client: RecognisedClient): FieldType {
  switch (type.kind) {
    case 'object':
      return { kind: 'object', def: toleratingOmissions(type.def, client) };
    case 'array':
      return { kind: 'array', items: tolerantType(type.items, client) };
    case 'map':
      return { kind: 'map', values: tolerantType(type.values, client) };
    default:
      return type;
  }
}

function omitsAnything(def: ObjectDef, client: RecognisedClient, seen: Set<ObjectDef>): boolean {
  if (seen.has(def)) return false;
  seen.add(def);
  return Object.values(def.fields).some((f) => f.client?.mayOmit?.by.includes(client) === true || typeOmits(f.type, client, seen));
}

function typeOmits(type: FieldType, client: RecognisedClient, seen: Set<ObjectDef>): boolean {
  if (type.kind === 'object') return omitsAnything(type.def, client, seen);
  if (type.kind === 'array') return typeOmits(type.items, client, seen);
  if (type.kind === 'map') return typeOmits(type.values, client, seen);
  return false;
}
