import type { Block } from '@evp/core';
import type { EventDef } from '../dsl/types';
import { coreEvents } from './core';

/** Every event definition; a block's Avro schema and the validator are derived from this list. */
export const eventDefs: EventDef[] = [...coreEvents];

/** Newer or client-side names that mean an existing event. */
export const eventAliases: Record<string, string> = { action_response: 'nudge_response' };

const byName = new Map(eventDefs.map((d) => [d.event, d]));

export function eventDef(name: string): EventDef | undefined {
  return byName.get(eventAliases[name] ?? name);
}

export function eventsOfBlock(block: Block): EventDef[] {
  return eventDefs.filter((d) => d.block === block);
}
