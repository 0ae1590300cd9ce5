import type { Block } from '@evp/core';
import { catalogDefs } from '../catalogs/definitions';
import { eventDefs } from '../events/event-defs';
import { privacyLeaves } from './resolve';
import type { PersonKind } from './types';

/** A field that holds the id of a person of some kind, inside an event's properties or a catalog record. */
export interface PersonIdField {
  source: 'event' | 'catalog';
  /** The event name, or the catalog kind. */
  name: string;
  /** The event's block (events only). */
  block?: Block;
  /** From the properties' (or the record's) root; array elements as `[]`, map values as `{}`. */
  path: readonly string[];
  person: PersonKind;
}

/**
 * Every field that carries a person's id, derived from the field tables' tags (never a hand-kept
 * list): what erasure deletes by and export selects by (docs/privacy.md). A catalog record's own `id`
 * appears here when the record is a person (the user, patient, hcw and chat_user catalogs).
 */
export function personIdFields(): PersonIdField[] {
  const out: PersonIdField[] = [];
  for (const def of eventDefs)
    for (const leaf of privacyLeaves(def))
      if (leaf.privacy?.person) out.push({ source: 'event', name: def.event, block: def.block, path: leaf.path, person: leaf.privacy.person });
  for (const def of catalogDefs)
    for (const leaf of privacyLeaves(def))
      if (leaf.privacy?.person) out.push({ source: 'catalog', name: def.kind, path: leaf.path, person: leaf.privacy.person });
  return out;
}

/** One person's id found in a value: the kind of person and the id as text. */
export interface PersonId {
  person: PersonKind;
  id: string;
}

/** The values at `path` in `value`: a key step reads the member, `[]` spreads an array, `{}` an object's values. */
function valuesAt(value: unknown, path: readonly string[]): unknown[] {
  let at: unknown[] = [value];
  for (const step of path) {
    const next: unknown[] = [];
    for (const v of at) {
      if (v === null || typeof v !== 'object') continue;
      if (step === '[]') {
        if (Array.isArray(v)) next.push(...(v as unknown[]));
      } else if (step === '{}') next.push(...Object.values(v));
      else if (!Array.isArray(v) && step in v) next.push((v as Record<string, unknown>)[step]);
    }
    at = next;
  }
  return at;
}

const NO_PERSON_IDS: readonly PersonId[] = Object.freeze([]);

/**
 * The person ids an event's properties (source `event`, by event name) or a catalog record (source
 * `catalog`, by kind) carry, found at the tagged paths of personIdFields (never a hand-kept list):
 * what a suppression is checked against. A number is read as its digits, as erasure compares it.
 */
export function personIdReader(): (source: PersonIdField['source'], name: string, value: unknown) => readonly PersonId[] {
  // By source, then by name: a key built per call (`source:name`) was a string allocated per event.
  const bySource = { event: new Map<string, PersonIdField[]>(), catalog: new Map<string, PersonIdField[]>() };
  for (const f of personIdFields()) {
    const byName = bySource[f.source];
    byName.set(f.name, [...(byName.get(f.name) ?? []), f]);
  }
  return (source, name, value) => {
    const fields = bySource[source].get(name);
    // Most events carry no person id: one shared, frozen empty list rather than a new one each.
    if (!fields) return NO_PERSON_IDS;
    const out: PersonId[] = [];
    for (const f of fields)
      for (const v of valuesAt(value, f.path)) if (typeof v === 'string' || typeof v === 'number') out.push({ person: f.person, id: String(v) });
    return out;
  };
}
