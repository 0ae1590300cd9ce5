import { ApiError, isEarlierEnvelope } from '@evp/core';

export interface EnvelopeSlice {
  /** The envelope as its own JSON text, to become one raw message. */
  json: string;
  userId: string;
  events: number;
  /** The earlier form (spec 2.2): the older iOS clients' protocol, answered as they need. */
  earlier: boolean;
}

/**
 * Envelopes per request when the limits name none. Each becomes its own raw message, so without a
 * bound a 1.2 MB body of 100,000 empty envelopes costs 100,000 messages; SDKs send one envelope.
 */
const DEFAULT_MAX_ENVELOPES_PER_REQUEST = 1000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The gateway checks only what it needs to route and count: each envelope is an object with a `data`
 * array. Everything else is the validator's job, so one bad event never fails its siblings here.
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
    return body.map((env, i) => describe(env, `$[${i}]`, JSON.stringify(env)));
  }
  return [describe(body, '$', rawText)];
}

function describe(env: unknown, path: string, json: string): EnvelopeSlice {
  if (!isObject(env)) throw new ApiError('invalid_envelope', { message: 'An envelope must be a JSON object.', path });
  if (!Array.isArray(env.data)) {
    throw new ApiError('invalid_envelope', { message: 'An envelope needs a `data` array of logs.', path: `${path}.data` });
  }
  // The partition key keeps one user's events in order; a missing id still routes (the validator rejects it).
  const user = typeof env.id === 'string' ? env.id : typeof env.u_id === 'string' ? env.u_id : '';
  return { json, userId: user, events: env.data.length, earlier: isEarlierEnvelope(env) };
}
