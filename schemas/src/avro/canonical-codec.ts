import type { Block } from '@evp/core';
import { canonicalAvroHead, canonicalFromAvroHead } from '../../generated/records';
import type { CanonicalEvent } from '../canonical';
import { CANONICAL_FIELDS } from '../canonical-fields';
import { eventDef, eventsOfBlock } from '../events/event-defs';
import { avroFieldName } from '../record-fields';
import { fromAvroValue, toAvroValue } from './derive';

/** Own keys of a CanonicalEvent; the fast path of canonicalToAvro is taken only for events with exactly these. */
const CANONICAL_KEY_COUNT = CANONICAL_FIELDS.length;

/**
 * Canonical fields that are not copied as they are: props (the event's own field), the JSON fields
 * (text), the reason lists (defaulted to empty).
 */
const NOT_COMMON: ReadonlySet<string> = new Set(
  CANONICAL_FIELDS.filter((f) => f.kind === 'props' || f.kind === 'jsonText' || f.kind === 'jsonObject' || f.kind === 'reasons').map((f) => f.name),
);

/** Event fields of each block's record (all null but the event's own), computed once per block. */
const blockEventFields = new Map<string, readonly string[]>();
function eventFieldsOf(block: Block): readonly string[] {
  let fields = blockEventFields.get(block);
  if (fields === undefined) {
    fields = eventsOfBlock(block).map((d) => d.event);
    blockEventFields.set(block, fields);
  }
  return fields;
}

/**
 * `client` is an envelope-level object shared by all events of the envelope (a copy only when the
 * event has extra keys), so its JSON can be computed once per envelope. A caller that encodes a batch
 * of fresh, unmodified events (the validator, per raw message) passes one memo for the batch; without
 * a memo the JSON is computed per event, so a client object changed between calls is never stale.
 */
export type ClientJsonMemo = Map<object, string>;

/** The event's `meta` as the record's `meta_json`. */
export function metaJsonOf(e: CanonicalEvent): string | null {
  const meta = e.meta;
  return meta === undefined || meta === null ? null : JSON.stringify(meta);
}

/** The event's `client` as the record's `client_json`, through the memo when one is given. */
export function clientJsonOf(e: CanonicalEvent, clientMemo?: ClientJsonMemo): string | null {
  const client = e.client;
  if (client === null) return null;
  let clientJson = clientMemo?.get(client) ?? null;
  if (clientJson === null) {
    clientJson = JSON.stringify(client);
    clientMemo?.set(client, clientJson);
  }
  return clientJson;
}

/** CanonicalEvent ↔ the record of its block schema. */
export function canonicalToAvro(e: CanonicalEvent, clientMemo?: ClientJsonMemo): Record<string, unknown> {
  const def = eventDef(e.name);
  const metaJson = metaJsonOf(e);
  const clientJson = clientJsonOf(e, clientMemo);
  let record: Record<string, unknown>;
  if (Object.keys(e).length === CANONICAL_KEY_COUNT) {
    // One generated literal instead of `{ props, meta, client, ...common } = e`: V8 runs object rest
    // with excluded keys on a generic slow path (≈ 11 µs per event); same keys, same order.
    record = canonicalAvroHead(e, metaJson, clientJson);
  } else {
    // Anything but a plain CanonicalEvent (extra or missing keys) keeps the generic form.
    record = {};
    for (const k of Object.keys(e)) if (!NOT_COMMON.has(k)) record[k] = (e as unknown as Record<string, unknown>)[k];
    record.meta_json = metaJson;
    record.client_json = clientJson;
    record.warnings = e.warnings ?? [];
  }
  const fields = eventFieldsOf(e.block);
  for (let i = 0; i < fields.length; i++) record[fields[i] as string] = null;
  if (!def) throw new Error(`no definition for event ${e.name}`);
  record[def.event] = toAvroValue(def, e.props);
  return record;
}

/** The leading fields of every block record (block-schema.ts), in order: the fast path's layout. */
const RECORD_HEAD = CANONICAL_FIELDS.filter((f) => f.kind !== 'props').map(avroFieldName);

/** Head fields that are not common fields of the event (JSON texts, warnings). */
const HEAD_NOT_COMMON = CANONICAL_FIELDS.filter((f) => NOT_COMMON.has(f.name) && f.kind !== 'props').map(avroFieldName);

interface BlockLayout {
  /** Keys of the block's record that are not common fields: its event fields, meta_json, client_json, warnings. */
  nonCommon: ReadonlySet<string>;
  /** The current layout's keys: RECORD_HEAD, then one field per event type of the block. */
  keys: readonly string[];
}

/**
 * Computed once per block: the events.core readers (the action store's feedback) decode every
 * event through canonicalFromAvro, and building the block's field set per record was a large share
 * of its cost.
 */
const blockLayouts = new Map<string, BlockLayout>();
function layoutOf(block: Block): BlockLayout {
  let layout = blockLayouts.get(block);
  if (layout === undefined) {
    const eventFields = eventsOfBlock(block).map((d) => d.event);
    layout = { nonCommon: new Set([...eventFields, ...HEAD_NOT_COMMON]), keys: [...RECORD_HEAD, ...eventFields] };
    blockLayouts.set(block, layout);
  }
  return layout;
}

/** True when the record has exactly the current block layout: the same keys in the same order. */
function hasCurrentLayout(keys: readonly string[], layout: BlockLayout): boolean {
  const expected = layout.keys;
  if (keys.length !== expected.length) return false;
  // Property names are internalized strings: each comparison is a pointer check.
  for (let i = 0; i < expected.length; i++) if (keys[i] !== expected[i]) return false;
  return true;
}

export function canonicalFromAvro(record: Record<string, unknown>): CanonicalEvent {
  const block = record.block as Block;
  const name = record.name as string;
  const def = eventDef(name);
  const propsRecord = def ? (record[def.event] as Record<string, unknown> | null) : null;
  const props = def && propsRecord ? fromAvroValue(def, propsRecord) : {};
  const meta = typeof record.meta_json === 'string' ? JSON.parse(record.meta_json) : null;
  const client = typeof record.client_json === 'string' ? JSON.parse(record.client_json) : null;
  const keys = Object.keys(record);
  const layout = layoutOf(block);
  if (hasCurrentLayout(keys, layout)) {
    // One generated literal (one hidden class) instead of 22 keyed stores, which V8 runs on its
    // megamorphic path; the events.core readers decode every event through here.
    return canonicalFromAvroHead(record as unknown as CanonicalEvent, props, meta, client);
  }
  // Any other layout (another schema version): every field but the event fields and the JSON
  // texts is a common field, in the record's order (Object.keys, not for…in: avsc records carry
  // enumerable prototype methods).
  const skip = layout.nonCommon;
  const event: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (!skip.has(k)) event[k] = record[k];
  }
  event.props = props;
  event.meta = meta;
  event.client = client;
  // Last, as in a CanonicalEvent; records written before warnings existed read as having none.
  event.warnings = record.warnings ?? [];
  return event as unknown as CanonicalEvent;
}
