import { sha256Hex } from '@evp/core';

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

/**
 * UTF-16 code-unit order, the default sort order (keys are distinct strings, so comparing with `<`
 * orders them the same). Objects of events have a handful of keys: insertion sort avoids the default
 * comparator's string conversions; larger ones use the built-in sort.
 */
function sortKeys(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > k) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
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

/** Deterministic: a re-sent upload yields the same ids, which is what makes downstream dedup work. */
export function eventId(parts: { appId: string; userId: string; sessionId: string; name: string; time: number; content: unknown }): string {
  // One UTF-8 text hashed in one go: the same bytes as updating with the prefix, then the content.
  const text = `${parts.appId}\u0000${parts.userId}\u0000${parts.sessionId}\u0000${parts.name}\u0000${parts.time}\u0000${stableStringify(parts.content)}`;
  return sha256Hex(text).slice(0, 32);
}
