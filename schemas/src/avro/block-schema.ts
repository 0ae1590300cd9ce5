import type { Block } from '@evp/core';
import { eventsOfBlock } from '../events/registry';
import { REASON_AVRO_FIELDS } from '../rejected';
import { AvroNames, avroRecord, type AvroSchema } from './derive';

const pascal = (s: string) =>
  s
    .split('_')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');

/**
 * One schema per block topic: the common canonical fields, then one nullable field per event type of
 * the block holding that event's typed properties (exactly one is set). Named fields instead of a
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
      { name: 'event_id', type: 'string' },
      { name: 'app_id', type: 'string' },
      { name: 'user_id', type: 'string' },
      { name: 'session_id', type: 'string' },
      { name: 'session_start', ...nullable('long') },
      { name: 'session_end', ...nullable('long') },
      { name: 'device_id', type: 'string' },
      { name: 'os', type: 'string' },
      { name: 'sdk_name', type: 'string' },
      { name: 'sdk_version', type: 'string' },
      { name: 'app_version', type: 'string' },
      { name: 'app_version_code', ...nullable('int') },
      { name: 'tz', type: 'string' },
      { name: 'block', type: 'string' },
      { name: 'name', type: 'string' },
      { name: 'sent_name', ...nullable('string') },
      { name: 'property', ...nullable('string') },
      { name: 'time', type: 'long', doc: 'UTC epoch ms' },
      { name: 'online', type: 'boolean' },
      { name: 'received_at', type: 'long', doc: 'UTC epoch ms' },
      { name: 'request_id', type: 'string' },
      { name: 'envelope', type: 'string', doc: 'current, earlier or flat' },
      { name: 'meta_json', ...nullable('string') },
      { name: 'client_json', ...nullable('string') },
      {
        name: 'warnings',
        doc: 'What was accepted but is worth knowing: unknown properties, normalised client quirks',
        type: { type: 'array', items: { type: 'record', name: 'EventWarning', fields: REASON_AVRO_FIELDS } },
        default: [],
      },
      ...eventsOfBlock(block).map((def) => ({ name: def.event, ...nullable(avroRecord(def, names)) })),
    ],
  };
}

export const blockSubject = (topic: string) => `${topic}-value`;
