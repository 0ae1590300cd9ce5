import { createHash } from 'node:crypto';

/** JSON with sorted keys, so the same content always hashes the same. */
export function stableStringify(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  const entries = Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${stableStringify(x)}`).join(',')}}`;
}

/** Deterministic: a re-sent upload yields the same ids, which is what makes downstream dedup work. */
export function eventId(parts: {
  appId: string;
  userId: string;
  sessionId: string;
  name: string;
  time: number;
  content: unknown;
}): string {
  return createHash('sha256')
    .update(`${parts.appId}\u0000${parts.userId}\u0000${parts.sessionId}\u0000${parts.name}\u0000${parts.time}\u0000`)
    .update(stableStringify(parts.content))
    .digest('hex')
    .slice(0, 32);
}
