import type { Counter } from 'prom-client';
import type { Logger } from '@evp/core';
import type { RateLimiter } from './port';

/**
 * When the limiter's store (Redis) is down, let requests through. The rate limit protects against a
 * runaway client; losing it for a while is cheaper than refusing every app's data, and Kafka (the
 * part that must not be lost) is still checked on every request. Each bypass is counted and logged
 * (at most once per `logEveryMs`) so operators see it.
 */
export function failOpen(limiter: RateLimiter, opts: { logger: Logger; errors: Counter; logEveryMs?: number; now?: () => number }): RateLimiter {
  const now = opts.now ?? Date.now;
  let lastLog = -Infinity;
  return {
    async take(key) {
      try {
        return await limiter.take(key);
      } catch (err) {
        opts.errors.inc();
        if (now() - lastLog >= (opts.logEveryMs ?? 10_000)) {
          lastLog = now();
          opts.logger.warn({ err }, 'rate limiter unavailable; allowing requests (fail-open)');
        }
        return { allowed: true, remaining: 0, retryAfterSeconds: 1 };
      }
    },
    close: () => limiter.close(),
  };
}
