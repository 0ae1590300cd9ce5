import { envelopeUserId, isEarlierEnvelope, isObject, looksFlat } from '@evp/contract';
import { ApiError } from '@evp/core';

export interface EnvelopeSlice {
  /** The envelope as its own JSON text, to become one raw message. */
  json: string;
  userId: string;
  events: number;
  /** The earlier form (spec 2.2): the older iOS clients' protocol, answered as they need. */
  earlier: boolean;
  /** True when `json` is the request body itself: it may then travel as the very bytes received. */
  asReceived: boolean;
}

/**
 * Envelopes per request when the limits name none. Each becomes its own raw message, so without a
 * bound a 1.2 MB body of 100,000 empty envelopes costs 100,000 messages; SDKs send one envelope.
 */
const DEFAULT_MAX_ENVELOPES_PER_REQUEST = 1000;

/**
 * The gateway checks only what it needs to route and count: each envelope is an object with a `data`
 * array. Everything else is the validator's job, so one bad event never fails its siblings here.
 * A flat body (@evp/contract `looksFlat`: server-side imports) is split by user.
 */
export function sliceEnvelopes(body: unknown, rawText: string, maxEnvelopes = DEFAULT_MAX_ENVELOPES_PER_REQUEST): EnvelopeSlice[] {
  if (Array.isArray(body)) {
    if (body.length === 0) throw new ApiError('invalid_envelope', { message: 'The array holds no envelopes.', path: '$' });
    // Counted before any envelope is looked at or re-encoded.
    if (body.length > maxEnvelopes) {
      throw new ApiError('too_many_events', {
        message: `The request holds ${body.length} envelopes; the limit is ${maxEnvelopes}.`,
        path: '$',
        details: { envelopes: body.length, max_envelopes: maxEnvelopes },
      });
    }
    return body.flatMap((env, i) => (looksFlat(env) ? byUser(env) : [describe(env, `$[${i}]`, JSON.stringify(env), false)]));
  }
  return looksFlat(body) ? byUser(body) : [describe(body, '$', rawText, true)];
}

/**
 * A flat body mixes users, but the raw message key must be one user's (`<app>:<user>`) so that each
 * user's events stay in order. So it becomes one slice per user, in order of first appearance, each
 * `{"data": [that user's logs, in body order]}` (other top-level keys copied into each). Logs without
 * a string `u_id` go together under the empty user; the validator rejects them.
 */
function byUser(body: Record<string, unknown> & { data: unknown[] }): EnvelopeSlice[] {
  const groups = new Map<string, unknown[]>();
  for (const item of body.data) {
    const user = isObject(item) && typeof item.u_id === 'string' ? item.u_id : '';
    let g = groups.get(user);
    if (!g) groups.set(user, (g = []));
    g.push(item);
  }
  const rest = Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'data'));
  return [...groups].map(([userId, data]) => ({
    json: JSON.stringify({ ...rest, data }),
    userId,
    events: data.length,
    // Server-side imports, not the older iOS clients' earlier form.
    earlier: false,
    asReceived: false,
  }));
}

function describe(env: unknown, path: string, json: string, asReceived: boolean): EnvelopeSlice {
  if (!isObject(env)) throw new ApiError('invalid_envelope', { message: 'An envelope must be a JSON object.', path });
  if (!Array.isArray(env.data)) {
    throw new ApiError('invalid_envelope', { message: 'An envelope needs a `data` array of logs.', path: `${path}.data` });
  }
  // The partition key keeps one user's events in order; a missing id still routes (the validator rejects it).
  return { json, userId: envelopeUserId(env), events: env.data.length, earlier: isEarlierEnvelope(env), asReceived };
}
