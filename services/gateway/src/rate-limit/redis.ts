import type { Redis } from 'ioredis';
import { InfraError } from '@evp/core';
import { decide, type RateLimiter, type RateLimitPolicy } from './port';

/**
 * One round trip, atomic across replicas: INCR the window's counter, start its expiry on the first
 * hit, return count and remaining TTL. A fixed window allows up to 2× the limit across a window
 * boundary; that is acceptable for an abuse guard and far cheaper than a sliding log.
 */
const SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
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
}

type WithScript = Redis & { gatewayRateLimit(key: string, windowMs: number): Promise<[number, number]> };

export function createRedisRateLimiter(opts: RedisRateLimiterOptions): RateLimiter {
  const redis = opts.redis as WithScript;
  if (typeof redis.gatewayRateLimit !== 'function') redis.defineCommand('gatewayRateLimit', { numberOfKeys: 1, lua: SCRIPT });
  const timeoutMs = opts.timeoutMs ?? 250;
  return {
    async take(key) {
      let timer: NodeJS.Timeout | undefined;
      try {
        const [count, ttl] = await Promise.race([
          redis.gatewayRateLimit(`${opts.prefix}${key}`, opts.policy.windowMs),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        return decide(Number(count), Number(ttl), opts.policy);
      } catch (err) {
        throw new InfraError('redis', `rate limit: ${(err as Error).message}`, { retriable: true, cause: err });
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      // The Redis connection belongs to the composition root.
    },
  };
}
