import { checkDeclaredBlock } from '../block';
import type { EventDef } from '../../dsl/types';
import type { EventDraft } from './draft';

/** The earlier form's `block` against the event type's (block.ts): an error, or a client's spelling as a quirk. */
export function checkBlock(d: EventDraft): boolean {
  if (d.raw.declaredBlock === null) return true;
  const block = checkDeclaredBlock(d.raw.declaredBlock, d.def as EventDef, d.path);
  if (block.error) d.reasons.push(block.error);
  if (block.warning) d.quirks.push(block.warning);
  return true;
}
