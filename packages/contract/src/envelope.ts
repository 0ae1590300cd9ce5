/** A JSON object (not an array, not null): what an envelope, a log or a record must be. */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Which envelope form an upload body is, read the same way by the gateway (which answers the older
 * clients that send the earlier form as they need: docs/api.md) and the validator (which reads it).
 * The earlier form (spec 2.2) carries `u_id`, `d_info` and `app_info`; the current form (2.1) none.
 */
export function isEarlierEnvelope(env: Record<string, unknown>): boolean {
  return 'u_id' in env || 'd_info' in env || 'app_info' in env;
}

/**
 * The user an envelope names: `id` (current form), else `u_id` (earlier form and crash uploads),
 * else the empty string. The gateway keys the raw message by it; the validator files a rejected
 * envelope under it. Whether it is a valid id is the validator's business.
 */
export function envelopeUserId(env: Record<string, unknown>): string {
  return typeof env.id === 'string' ? env.id : typeof env.u_id === 'string' ? env.u_id : '';
}

/** The key of a raw message and of its events: one user's messages stay on one partition, in order. */
export const envelopeKey = (appId: string, userId: string): string => `${appId}:${userId}`;

/** Keys that make an envelope a spec envelope (2.1 or 2.2), even a broken one. */
const ENVELOPE_KEYS = ['id', 'u_id', 's_id', 'tz', 'internal', 'd_info', 'app_info', 'sdk'];

/**
 * The flat form (server-side imports, schemas/src/normalize/flat-form.ts): an object with a `data`
 * array, none of the spec envelopes' keys, and at least one log that names its own user (`u_id`).
 * The gateway splits such a body by user; the validator reads each log's own user and device.
 */
export function looksFlat(body: unknown): body is Record<string, unknown> & { data: unknown[] } {
  if (!isObject(body) || !Array.isArray(body.data)) return false;
  for (const k of ENVELOPE_KEYS) if (k in body) return false;
  return body.data.some((item) => isObject(item) && 'u_id' in item);
}
