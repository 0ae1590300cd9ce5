import type { RateLimiter, RateLimitPolicy } from './port';

/**
 * One suite for every RateLimiter adapter. `make` builds a limiter with the given policy on a fresh
 * key space; the windows are short, so the suite waits for a real reset rather than faking time.
 */
export function describeRateLimiterConformance(name: string, make: (policy: RateLimitPolicy) => Promise<RateLimiter>) {
  describe(`RateLimiter conformance: ${name}`, () => {
    it('allows `limit` requests per window, then refuses with a Retry-After within the window', async () => {
      const rl = await make({ limit: 3, windowMs: 60_000 });
      const d = [];
      for (let i = 0; i < 4; i++) d.push(await rl.take('k1'));
      expect(d.map((x) => x.allowed)).toEqual([true, true, true, false]);
      expect(d.map((x) => x.remaining)).toEqual([2, 1, 0, 0]);
      expect(d[3]!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(d[3]!.retryAfterSeconds).toBeLessThanOrEqual(60);
      await rl.close();
    });

    it('counts keys independently', async () => {
      const rl = await make({ limit: 1, windowMs: 60_000 });
      expect((await rl.take('a')).allowed).toBe(true);
      expect((await rl.take('a')).allowed).toBe(false);
      expect((await rl.take('b')).allowed).toBe(true);
      await rl.close();
    });

    it('starts a new window after the old one expires', async () => {
      const rl = await make({ limit: 1, windowMs: 300 });
      expect((await rl.take('w')).allowed).toBe(true);
      expect((await rl.take('w')).allowed).toBe(false);
      await new Promise((r) => setTimeout(r, 400));
      expect((await rl.take('w')).allowed).toBe(true);
      await rl.close();
    });

    it('counts concurrent requests exactly', async () => {
      const rl = await make({ limit: 50, windowMs: 60_000 });
      const d = await Promise.all(Array.from({ length: 80 }, () => rl.take('c')));
      expect(d.filter((x) => x.allowed)).toHaveLength(50);
      await rl.close();
    });
  });
}
