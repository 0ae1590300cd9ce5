import { decide, type RateLimiter, type RateLimitPolicy } from './port';

/** Fixed windows in a Map; expired windows are dropped lazily and by a periodic sweep. */
export function createInMemoryRateLimiter(policy: RateLimitPolicy, now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const sweep = setInterval(
    () => {
      const t = now();
      for (const [k, w] of windows) if (w.resetAt <= t) windows.delete(k);
    },
    Math.max(1000, policy.windowMs),
  );
  sweep.unref();
  return {
    async take(key) {
      const t = now();
      let w = windows.get(key);
      if (!w || w.resetAt <= t) {
        w = { count: 0, resetAt: t + policy.windowMs };
        windows.set(key, w);
      }
      w.count += 1;
      return decide(w.count, w.resetAt - t, policy);
    },
    async close() {
      clearInterval(sweep);
      windows.clear();
    },
  };
}
