import type { Redis } from 'ioredis';
import { InfraError } from '@evp/core';
import type { RateLimitDecision, RateLimiter, RateLimitPolicy } from './port';

/**
 * One round trip, atomic across replicas: add a lease of ARGV[2] requests to the window's counter,
 * start its expiry on the first hit, return the new count and the remaining TTL. A fixed window
 * allows up to 2× the limit across a window boundary; that is acceptable for an abuse guard and far
 * cheaper than a sliding log.
 */
const SCRIPT = `
local n = redis.call('INCRBY', KEYS[1], ARGV[2])
if n == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}
`;

export interface RedisRateLimiterOptions {
  redis: Redis;
  policy: RateLimitPolicy;
  /** Key prefix, e.g. `gw:rl:`; tests use a unique one. */
  prefix: string;
  /** A rate-limit check must never be what makes ingest slow: give up after this long. */
  timeoutMs?: number;
  /**
   * Requests a replica reserves per round trip, as a fraction of the limit (default 1/100, at least
   * 1 request). See `leaseSize`.
   */
  leaseFraction?: number;
  now?: () => number;
}

/**
 * How many requests one Redis round trip reserves. A replica spends its lease locally, so at 10k
 * requests/s against the default 600k/min it asks Redis ~2 times a second instead of 10k times.
 * The price: tokens a replica reserved but did not use are lost to the others until the window
 * resets, so with R replicas the usable budget can shrink by up to R leases (R % by default). The
 * total admitted across replicas never exceeds the limit. Small limits (< 200) lease one request at
 * a time and count exactly.
 */
export const leaseSize = (limit: number, fraction: number): number => Math.max(1, Math.floor(limit * fraction));

type WithScript = Redis & { gatewayRateLimit(key: string, windowMs: number, lease: number): Promise<[number, number]> };

/** What this replica holds for one key in the current window. */
interface Lease {
  /** Reserved requests not yet admitted. */
  tokens: number;
  /** Requests left to every replica (limit − counter) when the lease was taken. */
  shared: number;
  /** When the Redis window ends (local clock); the lease and any refusal are void after it. */
  endsAt: number;
  /** A round trip for this key in flight: concurrent requests wait for it instead of adding their own. */
  pending?: Promise<void>;
}

export function createRedisRateLimiter(opts: RedisRateLimiterOptions): RateLimiter {
  const redis = opts.redis as WithScript;
  if (typeof redis.gatewayRateLimit !== 'function') redis.defineCommand('gatewayRateLimit', { numberOfKeys: 1, lua: SCRIPT });
  const timeoutMs = opts.timeoutMs ?? 250;
  const now = opts.now ?? Date.now;
  const { limit, windowMs } = opts.policy;
  const lease = leaseSize(limit, opts.leaseFraction ?? 0.01);
  const leases = new Map<string, Lease>();

  async function reserve(key: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const [count, ttl] = await Promise.race([
        redis.gatewayRateLimit(`${opts.prefix}${key}`, windowMs, lease),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      const before = Number(count) - lease;
      const granted = Math.max(0, Math.min(lease, limit - before));
      leases.set(key, { tokens: granted, shared: Math.max(0, limit - Number(count)), endsAt: now() + Math.max(1, Number(ttl)) });
    } catch (err) {
      throw new InfraError('redis', `rate limit: ${(err as Error).message}`, { retriable: true, cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  function admit(l: Lease, t: number): RateLimitDecision {
    const retryAfterSeconds = Math.max(1, Math.ceil((l.endsAt - t) / 1000));
    if (l.tokens === 0) return { allowed: false, remaining: 0, retryAfterSeconds };
    l.tokens -= 1;
    return { allowed: true, remaining: l.tokens + l.shared, retryAfterSeconds };
  }

  return {
    async take(key) {
      for (;;) {
        const t = now();
        const l = leases.get(key);
        if (l?.pending) {
          await l.pending;
          continue;
        }
        // A spent lease refuses without a round trip until its window ends, unless others may still
        // have budget (then ask Redis for more).
        if (l && t < l.endsAt && (l.tokens > 0 || l.shared === 0)) return admit(l, t);
        const waiting: Lease = l ?? { tokens: 0, shared: 0, endsAt: 0 };
        const p = reserve(key).finally(() => {
          if (leases.get(key) === waiting) waiting.pending = undefined;
        });
        waiting.pending = p;
        leases.set(key, waiting);
        await p;
        const fresh = leases.get(key) as Lease;
        return admit(fresh, now());
      }
    },
    async close() {
      // The Redis connection belongs to the composition root.
      leases.clear();
    },
  };
}
