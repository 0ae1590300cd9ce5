import type { FieldDef, FieldType, ObjectDef } from '../dsl/types';
import type { FieldPrivacy } from './types';
import { FIELD_VOCABULARY } from './vocabulary';

/** Where a field's class came from (the reference page and the tests show it). */
export type PrivacySource = 'field' | 'object' | 'vocabulary';

export interface ResolvedPrivacy extends FieldPrivacy {
  source: PrivacySource;
}

const vocabulary = (name: string): FieldPrivacy | undefined => (Object.hasOwn(FIELD_VOCABULARY, name) ? FIELD_VOCABULARY[name] : undefined);

/**
 * A field's class within its object: its own tag; else an identifier of the vocabulary (an id is an
 * id in any object); else the object's class for all its fields (a diagnosis item is health through
 * and through, a drug catalog says nothing about a person); else the vocabulary. Undefined when none
 * applies: privacy.test.ts fails for such a field in a definition that must be classified.
 */
export function fieldPrivacy(def: ObjectDef, name: string): ResolvedPrivacy | undefined {
  const field: FieldDef | undefined = def.fields[name];
  if (field?.privacy) return { ...field.privacy, source: 'field' };
  const byName = vocabulary(name);
  if (byName?.class === 'direct_identifier') return { ...byName, source: 'vocabulary' };
  if (def.privacy) return { class: def.privacy, source: 'object' };
  return byName ? { ...byName, source: 'vocabulary' } : undefined;
}

/** One leaf of a definition: a field whose value is not an object (arrays and maps are looked through). */
export interface PrivacyLeaf {
  /** The path from the definition's root; array elements as `[]`, map values as `{}`. */
  path: string[];
  /** The object the leaf belongs to (its class is resolved there). */
  object: ObjectDef;
  field: string;
  privacy: ResolvedPrivacy | undefined;
}

function* leavesOfType(type: FieldType, path: string[], object: ObjectDef, field: string): Generator<PrivacyLeaf> {
  if (type.kind === 'object') yield* privacyLeaves(type.def, path);
  else if (type.kind === 'array') yield* leavesOfType(type.items, [...path, '[]'], object, field);
  else if (type.kind === 'map') yield* leavesOfType(type.values, [...path, '{}'], object, field);
  else yield { path, object, field, privacy: fieldPrivacy(object, field) };
}

/** Every leaf of a definition with its resolved class, depth first in field order. */
export function* privacyLeaves(def: ObjectDef, prefix: string[] = []): Generator<PrivacyLeaf> {
  for (const [name, field] of Object.entries(def.fields)) yield* leavesOfType(field.type, [...prefix, name], def, name);
}
