import type { Block } from '@evp/core';
import { eventsOfBlock } from '../events/event-defs';
import { CANONICAL_FIELDS } from '../canonical-fields';
import { avroFieldsOf } from '../record-fields';
import { AvroNames, avroRecord, type AvroSchema } from './derive';

const pascal = (s: string) =>
  s
    .split('_')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');

/**
 * One schema per block topic: the common canonical fields, then one nullable field per event type of the
 * block holding that event's typed properties (exactly one is set). Named fields instead of a
 * union of records keep decoded values plain and let new event types arrive as BACKWARD-compatible
 * additions.
 */
export function blockEventSchema(block: Block): AvroSchema {
  const namespace = `evp.events.${block}`;
  const names = new AvroNames(namespace);
  const nullable = (type: AvroSchema) => ({ type: ['null', type], default: null });
  return {
    type: 'record',
    name: `${pascal(block)}Event`,
    namespace,
    doc: `Canonical events of the ${block} block`,
    fields: [
      // The canonical event's fields (canonical-fields.ts), props excepted: those are the fields below.
      ...avroFieldsOf(CANONICAL_FIELDS),
      ...eventsOfBlock(block).map((def) => ({ name: def.event, ...nullable(avroRecord(def, names)) })),
    ],
  };
}

export const blockSubject = (topic: string) => `${topic}-value`;
