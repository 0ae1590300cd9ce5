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
