import { IdBytes, sortKeys } from './event-id-bytes';

/**
 * JSON with sorted keys, so the same content always hashes the same. The output is part of every
 * event id, so it must never change: written as plain loops (no entries/filter/map/join arrays) only
 * because it runs once per event on the validator's hot path; the text is byte-identical to the
 * straightforward `Object.entries(…).filter(…).sort(…)` form (holes in arrays print as nothing).
 * Primitives print as JSON.stringify prints them (a finite number's JSON is its String()).
 */
export function stableStringify(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      if (v === null) return 'null';
      break;
    default:
      return JSON.stringify(v) ?? 'null';
  }
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) s += ',';
      if (i in v) s += stableStringify(v[i]);
    }
    return `${s}]`;
  }
  const o = v as Record<string, unknown>;
  const keys = sortKeys(Object.keys(o));
  let s = '{';
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const x = o[k];
    if (x === undefined) continue;
    if (!first) s += ',';
    first = false;
    s += `${quoteKey(k)}:${stableStringify(x)}`;
  }
  return `${s}}`;
}

/** Property names repeat from event to event: short ones keep their JSON text (bounded, cleared when full). */
const quotedKeys = new Map<string, string>();
function quoteKey(k: string): string {
  if (k.length > 64) return JSON.stringify(k);
  let q = quotedKeys.get(k);
  if (q === undefined) {
    q = JSON.stringify(k);
    if (quotedKeys.size >= 4096) quotedKeys.clear();
    quotedKeys.set(k, q);
  }
  return q;
}

/** The parts of an event its id is a hash of. */
export interface EventIdParts {
  appId: string;
  userId: string;
  sessionId: string;
  name: string;
  time: number;
  content: { property: unknown; props: unknown; meta: unknown };
}

/**
 * The text the id hashes, as a string: `appId␀userId␀sessionId␀name␀time␀stableStringify(content)`.
 * eventId hashes the same text's UTF-8 bytes written straight into a buffer (event-id-bytes.ts).
 */
export function eventIdText(parts: EventIdParts): string {
  return `${parts.appId}\u0000${parts.userId}\u0000${parts.sessionId}\u0000${parts.name}\u0000${parts.time}\u0000${stableStringify(parts.content)}`;
}

const idBytes = new IdBytes();

/** Deterministic: a re-sent upload yields the same ids, which is what makes downstream dedup work. */
export function eventId(parts: EventIdParts): string {
  // SHA-256 of eventIdText(parts)'s UTF-8 bytes, written without building the string.
  return idBytes.hashHex(parts.appId, parts.userId, parts.sessionId, parts.name, parts.time, parts.content).slice(0, 32);
}
