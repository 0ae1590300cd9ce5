import type { Block } from '@evp/core';
import type { CanonicalEvent } from '../canonical';
import { eventDef, eventsOfBlock } from '../events/registry';
import { fromAvroValue, toAvroValue } from './derive';

/** Own keys of a CanonicalEvent; the fast path of canonicalToAvro is taken only for events with exactly these. */
const CANONICAL_KEY_COUNT = 25; // 22 common fields + props, meta, client

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

/** CanonicalEvent ↔ the record of its block schema. */
export function canonicalToAvro(e: CanonicalEvent, clientMemo?: ClientJsonMemo): Record<string, unknown> {
  const def = eventDef(e.name);
  const meta = e.meta;
  const metaJson = meta === undefined || meta === null ? null : JSON.stringify(meta);
  const client = e.client;
  let clientJson: string | null = null;
  if (client !== null) {
    clientJson = clientMemo?.get(client) ?? null;
    if (clientJson === null) {
      clientJson = JSON.stringify(client);
      clientMemo?.set(client, clientJson);
    }
  }
  let record: Record<string, unknown>;
  if (Object.keys(e).length === CANONICAL_KEY_COUNT) {
    // Written out instead of `{ props, meta, client, ...common } = e`: V8 runs object rest with
    // excluded keys on a generic slow path (≈ 11 µs per event); same keys, same order.
    record = {
      event_id: e.event_id,
      app_id: e.app_id,
      user_id: e.user_id,
      session_id: e.session_id,
      session_start: e.session_start,
      session_end: e.session_end,
      device_id: e.device_id,
      os: e.os,
      sdk_name: e.sdk_name,
      sdk_version: e.sdk_version,
      app_version: e.app_version,
      app_version_code: e.app_version_code,
      tz: e.tz,
      block: e.block,
      name: e.name,
      sent_name: e.sent_name,
      property: e.property,
      time: e.time,
      online: e.online,
      received_at: e.received_at,
      request_id: e.request_id,
      envelope: e.envelope,
      meta_json: metaJson,
      client_json: clientJson,
    };
  } else {
    // Anything but a plain CanonicalEvent (extra or missing keys) keeps the generic form.
    const { props: _props, meta: _meta, client: _client, ...common } = e;
    record = { ...common, meta_json: metaJson, client_json: clientJson };
  }
  const fields = eventFieldsOf(e.block);
  for (let i = 0; i < fields.length; i++) record[fields[i] as string] = null;
  if (!def) throw new Error(`no definition for event ${e.name}`);
  record[def.event] = toAvroValue(def, e.props);
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
