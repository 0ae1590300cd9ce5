import type { Block } from '@evp/core';
import type { CanonicalEvent } from '../canonical';
import { eventDef, eventsOfBlock } from '../events/registry';
import { fromAvroValue, toAvroValue } from './derive';

/** CanonicalEvent ↔ the record of its block schema. */
export function canonicalToAvro(e: CanonicalEvent): Record<string, unknown> {
  const { props, meta, client, ...common } = e;
  const record: Record<string, unknown> = {
    ...common,
    meta_json: meta === undefined || meta === null ? null : JSON.stringify(meta),
    client_json: client === null ? null : JSON.stringify(client),
  };
  for (const def of eventsOfBlock(e.block)) record[def.event] = null;
  const def = eventDef(e.name);
  if (!def) throw new Error(`no definition for event ${e.name}`);
  record[def.event] = toAvroValue(def, props);
  return record;
}

export function canonicalFromAvro(record: Record<string, unknown>): CanonicalEvent {
  const block = record.block as Block;
  const name = record.name as string;
  const def = eventDef(name);
  const common: Record<string, unknown> = {};
  const eventFields = new Set(eventsOfBlock(block).map((d) => d.event));
  for (const [k, v] of Object.entries(record)) {
    if (!eventFields.has(k) && k !== 'meta_json' && k !== 'client_json') common[k] = v;
  }
  const propsRecord = def ? (record[def.event] as Record<string, unknown> | null) : null;
  return {
    ...(common as Omit<CanonicalEvent, 'props' | 'meta' | 'client'>),
    props: def && propsRecord ? fromAvroValue(def, propsRecord) : {},
    meta: typeof record.meta_json === 'string' ? JSON.parse(record.meta_json) : null,
    client: typeof record.client_json === 'string' ? JSON.parse(record.client_json) : null,
  };
}
