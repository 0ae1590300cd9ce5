import { ApiError } from '@evp/core';
import type { IdKind } from './targets';

/** At most this many ids in one erasure request (user and patient ids together). */
export const ERASURE_MAX_IDS = 1000;
/** An id as the contract carries it: a non-empty string of at most this many characters. */
const ID_MAX_CHARS = 256;

const bad = (message: string, path: string) => new ApiError('invalid_request', { message, path });

function idList(body: Record<string, unknown>, field: string): string[] {
  const v = body[field];
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw bad(`${field} must be an array of ids`, `body.${field}`);
  v.forEach((id, i) => {
    if (typeof id !== 'string' || id.length === 0 || id.length > ID_MAX_CHARS)
      throw bad(`each id is a string of 1–${ID_MAX_CHARS} characters`, `body.${field}[${i}]`);
  });
  return [...new Set(v as string[])];
}

const objectBody = (body: unknown): Record<string, unknown> => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('the body is a JSON object', 'body');
  return body as Record<string, unknown>;
};

/** `{ user_ids, patient_ids }`: at least one id, at most ERASURE_MAX_IDS in all (repeats count once). */
export function parseErasureBody(raw: unknown): { kind: IdKind; id: string }[] {
  const body = objectBody(raw);
  for (const k of Object.keys(body)) if (k !== 'user_ids' && k !== 'patient_ids') throw bad(`unknown field ${k}: only user_ids and patient_ids`, `body.${k}`);
  const ids = [
    ...idList(body, 'user_ids').map((id) => ({ kind: 'user' as const, id })),
    ...idList(body, 'patient_ids').map((id) => ({ kind: 'patient' as const, id })),
  ];
  if (ids.length === 0) throw bad('name at least one id in user_ids or patient_ids', 'body');
  if (ids.length > ERASURE_MAX_IDS) throw bad(`at most ${ERASURE_MAX_IDS} ids in one request (${ids.length} given)`, 'body');
  return ids;
}

/** `{ user_id }` or `{ patient_id }`: exactly one. */
export function parseExportBody(raw: unknown): { kind: IdKind; id: string } {
  const body = objectBody(raw);
  const keys = Object.keys(body);
  if (keys.length !== 1 || (keys[0] !== 'user_id' && keys[0] !== 'patient_id')) throw bad('the body is { "user_id": … } or { "patient_id": … }', 'body');
  const field = keys[0];
  const id = body[field];
  if (typeof id !== 'string' || id.length === 0 || id.length > ID_MAX_CHARS) throw bad(`${field} is a string of 1–${ID_MAX_CHARS} characters`, `body.${field}`);
  return { kind: field === 'user_id' ? 'user' : 'patient', id };
}
