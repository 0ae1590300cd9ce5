import { CATALOG_KINDS, type CatalogKind } from '@evp/core';
import type { TriggerKind } from './document';

/**
 * What a campaign's templates read for one user (docs/campaigns.md, "Templates"), and the catalog
 * records they look up by id. Records are loaded by the caller in batches: a render that meets a
 * record not loaded yet asks for it (templates.ts), and renders again once it is.
 */

/** The variables of one render, values as stored (JSON). A null value counts as missing. */
export interface TemplateData {
  /** userScope(): `id`, the latest user catalog record's fields, the client facts. */
  user: Record<string, unknown>;
  /** The triggering event's properties; absent unless the trigger is an event. */
  event?: Record<string, unknown>;
  trigger: {
    kind: TriggerKind;
    /** RFC 3339: when the trigger happened (the event's time, the segment entry, the schedule's run, the API call). */
    time: string;
    /** The event's canonical name, for an event trigger. */
    event?: string;
  };
}

/**
 * `user`: its id, the fields of its latest user catalog record, and the client facts of its latest
 * event (os, app_version, tz, …: the segment language's profile fields). The names never clash
 * (packages/segment-language/src/language/contract.ts); the record's own `id` is the user id already.
 */
export function userScope(userId: string, record: Record<string, unknown> | undefined, facts: Record<string, unknown> | undefined): Record<string, unknown> {
  return { ...record, ...facts, id: userId };
}

/** One catalog record a template looks up: `catalog.<kind>[<id>]`. */
export interface CatalogRef {
  kind: CatalogKind;
  id: string;
}

/**
 * Catalog records loaded for renders, by kind and id: a record, or null when the catalog has no
 * such record (asked for and not found: a template reading it skips the user).
 */
export class CatalogRecords {
  readonly #records = new Map<string, Record<string, unknown> | null>();

  set(kind: CatalogKind, id: string, record: Record<string, unknown> | null): void {
    this.#records.set(key(kind, id), record);
  }

  /** undefined: not loaded yet. */
  get(kind: CatalogKind, id: string): Record<string, unknown> | null | undefined {
    return this.#records.get(key(kind, id));
  }
}

const key = (kind: string, id: string): string => `${kind}\u0000${id}`;

/**
 * Stands for a record not loaded yet while a render collects what it needs: every property of it
 * is itself, it iterates as nothing and prints as a marker no output keeps (such a render is
 * thrown away). An id read through it is no id: `catalog.a[catalog.b[x].y]` waits for `b` first.
 */
const PENDING_MARK = '\u0000pending\u0000';
const PENDING: object = new Proxy(Object.create(null) as object, {
  getOwnPropertyDescriptor: (_t, k) => (typeof k === 'string' ? { value: PENDING, configurable: true, enumerable: false, writable: false } : undefined),
  get: (_t, k) => (k === Symbol.toPrimitive ? () => PENDING_MARK : typeof k === 'string' ? PENDING : undefined),
});

/** JSON as stored → the same without null-valued object keys, so a null reads as missing (strict variables). */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = withoutNulls(v);
  return out;
}

/** An object whose own properties are what `read` answers (undefined: no such property); `lookup` tells a real read from a probe. */
function view(read: (key: string, lookup: boolean) => unknown): object {
  const descriptor = (value: unknown) => (value === undefined ? undefined : { value, configurable: true, enumerable: false, writable: false });
  return new Proxy(Object.create(null) as object, {
    getOwnPropertyDescriptor: (_t, k) => (typeof k === 'string' ? descriptor(read(k, true)) : undefined),
    get: (_t, k) => (typeof k === 'string' ? read(k, false) : undefined),
  });
}

/**
 * `catalog` for one render. Liquid (with ownPropertyOnly) asks whether a property exists before it
 * reads it: that question is a lookup, recorded in `needs` when the record is not loaded (PENDING
 * stands in). Other reads (Liquid probing a value for `toLiquid`, say) record nothing. A record
 * known to be absent does not exist, so strict variables skip the user unless `default` covers it.
 */
export function catalogScope(records: CatalogRecords, needs: Map<string, CatalogRef>): object {
  const kindScope = (kind: CatalogKind): object =>
    view((id, lookup) => {
      if (id.includes(PENDING_MARK)) return PENDING;
      const found = records.get(kind, id);
      if (found === undefined) {
        if (lookup) needs.set(key(kind, id), { kind, id });
        return PENDING;
      }
      return found === null ? undefined : withoutNulls(found);
    });
  // Each kind's view made on its first read: most templates read one kind or none, and a render
  // per user made every kind's proxies.
  const kinds = new Map<string, object>();
  return view((kind) => {
    if (!(CATALOG_KINDS as readonly string[]).includes(kind)) return undefined;
    let scope = kinds.get(kind);
    if (scope === undefined) kinds.set(kind, (scope = kindScope(kind as CatalogKind)));
    return scope;
  });
}
