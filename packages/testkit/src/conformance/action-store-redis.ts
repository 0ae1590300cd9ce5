import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A key prefix no other test uses, so tests sharing one Redis never see each other's keys. */
export const randomActionPrefix = () => `test:act:${randomBytes(6).toString('hex')}:`;

/** Every key under the prefix, without it, sorted (SCAN, never KEYS, so a shared Redis is not blocked). */
export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    out.push(...batch);
  } while (cursor !== '0');
  return out.map((k) => k.slice(prefix.length)).sort();
}

/** Deletes every key under a prefix (SCAN, never KEYS, so a shared Redis is not blocked). */
export async function deletePrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let n = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) n += await redis.del(...keys);
  } while (cursor !== '0');
  return n;
}
