import { envelopeUserId, isEarlierEnvelope, isObject, looksFlat } from '@evp/contract';
import type { Reason } from '../rules/registry';
import { readCurrentEnvelope, readCurrentEvent } from './current-form';
import { readEarlierEnvelope, readEarlierEvent } from './earlier-form';
import { flatEnvelopeExtra, readFlatEvent } from './flat-form';
import { MAX_JSON_DEPTH, pathDeeperThan } from './depth';
import { readSentAt, type SentAt } from './sent-at';
import { toCanonical } from './event-steps';
import { userTokenVerdict } from './user-token';
import type { IngestContext } from '../canonical';
import { DEFAULT_NORMALIZE_OPTIONS, type EnvelopeFacts, type NormalizeOptions, type NormalizeResult, type RawEvent, type Rejection } from './types';

/**
 * Every envelope form (current, earlier, flat) → canonical events. A body is one envelope or an array of envelopes. Never
 * throws: every event ends up accepted or in exactly one rejection, and rejections count the events
 * they stand for, so `events in = accepted + Σ rejected.event_count`.
 */
export function normalizeUpload(body: unknown, ctx: IngestContext, options: NormalizeOptions = DEFAULT_NORMALIZE_OPTIONS): NormalizeResult {
  const result: NormalizeResult = { accepted: [], rejected: [] };
  const envelopes = Array.isArray(body) ? body : [body];
  envelopes.forEach((env, i) => {
    const path = Array.isArray(body) ? `$[${i}]` : '$';
    normalizeEnvelope(env, Array.isArray(body) ? i : null, path, ctx, options, result);
  });
  return result;
}

function normalizeEnvelope(env: unknown, envelopeIndex: number | null, path: string, ctx: IngestContext, options: NormalizeOptions, out: NormalizeResult) {
  const envelopeRejection = (reasons: Reason[]): Rejection => ({
    kind: 'envelope_violation',
    reasons,
    payload: env,
    event_count: isObject(env) && Array.isArray(env.data) ? Math.max(env.data.length, 1) : 1,
    envelope_index: envelopeIndex,
    event_index: null,
    event_name: null,
    user_id: envelopeUser(env),
  });
  if (!isObject(env)) {
    out.rejected.push(envelopeRejection([{ path, rule: 'type', message: 'an envelope must be an object' }]));
    return;
  }
  let reader: Reader;
  // Every form may say when it was sent (a flat body too): one reading for all its events.
  const sent = readSentAt(env.sent_at, path);
  if (looksFlat(env)) {
    // Every flat log carries its own user: there are no envelope facts to check first.
    reader = { form: 'flat', facts: null, envelopeExtra: flatEnvelopeExtra(env), sent };
  } else {
    const earlier = isEarlierEnvelope(env);
    const { facts, reasons } = earlier ? readEarlierEnvelope(env, path) : readCurrentEnvelope(env, path);
    if (!facts) {
      out.rejected.push(envelopeRejection(reasons));
      return;
    }
    reader = { form: earlier ? 'earlier' : 'current', facts, envelopeExtra: null, sent };
  }
  // A loop and plain functions rather than forEach with closures per event: this is the hot path.
  const data = env.data as unknown[];
  for (let j = 0; j < data.length; j++) {
    if (!(j in data)) continue; // holes are skipped, as forEach does
    normalizeEvent(data[j], j, reader, `${path}.data[${j}]`, envelopeIndex, ctx, options, out);
  }
}

/** How one envelope's logs are read: its form, and its facts (null in the flat form: per log). */
interface Reader {
  form: EnvelopeFacts['form'];
  facts: EnvelopeFacts | null;
  /** Flat form: keys of the body besides `data`, kept in each event's `client`. */
  envelopeExtra: Record<string, unknown> | null;
  /** The envelope's `sent_at` (sent-at.ts). */
  sent: SentAt;
}

/** The second step: the log read in its envelope's form. A log of a spec envelope shares the envelope's facts; a flat log brings its own. */
function readEvent(item: unknown, reader: Reader, path: string): { event?: RawEvent; facts?: EnvelopeFacts; reasons: Reason[] } {
  if (reader.form === 'flat') return readFlatEvent(item, path, reader.envelopeExtra);
  return reader.form === 'earlier' ? readEarlierEvent(item, path) : readCurrentEvent(item, path);
}

function normalizeEvent(
  item: unknown,
  j: number,
  reader: Reader,
  eventPath: string,
  envelopeIndex: number | null,
  ctx: IngestContext,
  options: NormalizeOptions,
  out: NormalizeResult,
) {
  const tooLarge = checkSize(item, eventPath, options.maxEventChars);
  if (tooLarge !== null) {
    out.rejected.push(eventRejection('size_violation', [tooLarge.reason], tooLarge.payload, envelopeIndex, j, null, userOf(reader, item)));
    return;
  }
  const read = readEvent(item, reader, eventPath);
  // No object spread per event to merge the facts in: this is the hot path.
  const facts = reader.facts ?? read.facts;
  if (!read.event || !facts) {
    out.rejected.push(eventRejection('schema_violation', read.reasons, item, envelopeIndex, j, null, userOf(reader, item)));
    return;
  }
  // The event steps (event-steps/pipeline.ts), then the canonical event.
  const made = toCanonical(read.event, facts, reader.sent, ctx, eventPath, read.reasons);
  if ('reasons' in made) out.rejected.push(eventRejection('schema_violation', made.reasons, item, envelopeIndex, j, read.event.name, facts.userId));
  else if (ctx.userToken === undefined) out.accepted.push({ event: made.event, warnings: made.event.warnings, event_index: j });
  else {
    const verdict = userTokenVerdict(ctx.userToken, made.event.user_id, eventPath);
    if (verdict?.reject) out.rejected.push(eventRejection('schema_violation', [verdict.reason], item, envelopeIndex, j, read.event.name, facts.userId));
    else {
      if (verdict) made.event.warnings.push(verdict.reason);
      out.accepted.push({ event: made.event, warnings: made.event.warnings, event_index: j });
    }
  }
}

/**
 * The first step of every log: an event over the size limit or nested deeper than MAX_JSON_DEPTH is
 * rejected before anything reads it (with the payload its rejection keeps); null when it fits. The
 * exact size (a full JSON.stringify) is needed only when a cheap upper bound passes the limit.
 */
export function checkSize(item: unknown, eventPath: string, maxEventChars: number): { reason: Reason; payload: unknown } | null {
  if (jsonLengthBound(item, maxEventChars, 0) <= maxEventChars) return null;
  // The bound gives up past MAX_BOUND_DEPTH levels: bound the depth before anything recursive.
  const deep = pathDeeperThan(item, MAX_JSON_DEPTH, eventPath);
  if (deep !== null) {
    return {
      reason: { path: deep, rule: 'max_depth', message: `event nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` },
      payload: shallowPayload(item),
    };
  }
  const size = JSON.stringify(item)?.length ?? 0;
  if (size <= maxEventChars) return null;
  return { reason: { path: eventPath, rule: 'max_size', message: `event is ${size} characters; the limit is ${maxEventChars}` }, payload: item };
}

/**
 * What a too-deep event keeps as its payload: its top-level fields with nested values replaced by a
 * marker, since serialising the event itself is what cannot be done.
 */
function shallowPayload(item: unknown): unknown {
  if (!isObject(item)) return Array.isArray(item) ? '[nested too deep]' : item;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) out[k] = v !== null && typeof v === 'object' ? '[nested too deep]' : v;
  return out;
}

function eventRejection(
  kind: Rejection['kind'],
  reasons: Reason[],
  item: unknown,
  envelopeIndex: number | null,
  j: number,
  name: string | null,
  userId: string | null,
): Rejection {
  return { kind, reasons, payload: item, event_count: 1, envelope_index: envelopeIndex, event_index: j, event_name: name, user_id: userId };
}

/** The user of a log that could not be read: its envelope's, or in the flat form the log's own `u_id` if it names one. */
function userOf(reader: Reader, item: unknown): string | null {
  if (reader.facts) return reader.facts.userId;
  return isObject(item) && typeof item.u_id === 'string' && item.u_id.length > 0 ? item.u_id : null;
}

/** The user an unreadable envelope names, if it names one (so the inspector can filter its rejection by user). */
function envelopeUser(env: unknown): string | null {
  const id = isObject(env) ? envelopeUserId(env) : '';
  return id.length > 0 ? id : null;
}

/** Deeper values are measured exactly: the bound is meant for ordinary events, not pathological ones. */
const MAX_BOUND_DEPTH = 32;
/** Longest text of a finite JS number (e.g. `-0.0000012345678901234567` is 25), rounded up. */
const MAX_NUMBER_CHARS = 32;

/**
 * An upper bound of `JSON.stringify(v).length`, much cheaper than stringifying: a string counts as if
 * every character were escaped (`\uXXXX`), a number as its longest possible text. Returns Infinity as
 * soon as the bound passes `limit`, and for anything but plain JSON data (toJSON, class instances,
 * bigint, functions, deep nesting), so that the caller falls back to the exact length, with its
 * exact behaviour (including throwing where JSON.stringify throws).
 */
function jsonLengthBound(v: unknown, limit: number, depth: number): number {
  switch (typeof v) {
    case 'string':
      return 2 + 6 * v.length;
    case 'number':
      return MAX_NUMBER_CHARS;
    case 'boolean':
      return 5;
    case 'object': {
      if (v === null) return 4;
      if (depth >= MAX_BOUND_DEPTH || typeof (v as { toJSON?: unknown }).toJSON === 'function') return Infinity;
      let total = 2;
      if (Array.isArray(v)) {
        if (Object.getPrototypeOf(v) !== Array.prototype) return Infinity;
        for (let i = 0; i < v.length; i++) {
          const x: unknown = v[i];
          // Holes and undefined print as null.
          total += 1 + (x === undefined ? 4 : jsonLengthBound(x, limit, depth + 1));
          if (total > limit) return Infinity;
        }
        return total;
      }
      if (Object.getPrototypeOf(v) !== Object.prototype) return Infinity;
      const o = v as Record<string, unknown>;
      // for…in also visits inherited enumerable keys: counting them only loosens the bound.
      for (const k in o) {
        total += 2 + 6 * k.length + 2 + jsonLengthBound(o[k], limit, depth + 1);
        if (total > limit) return Infinity;
      }
      return total;
    }
    default:
      // undefined, functions and symbols are omitted or printed as null; bigint makes JSON.stringify
      // throw: leave all of them to the exact path.
      return Infinity;
  }
}
