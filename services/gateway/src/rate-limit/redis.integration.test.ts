import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import pino from 'pino';
import { Counter, Registry } from 'prom-client';
import { deletePrefix } from '@evp/testkit';
import { describeRateLimiterConformance } from './conformance';
import { failOpen } from './fail-open';
import { createRedisRateLimiter, leaseSize } from './redis';

const redis = new Redis(process.env.REDIS_URL as string, { lazyConnect: false });
const prefix = `test:gw:rl:${randomBytes(6).toString('hex')}:`;
let n = 0;
afterAll(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

// Each limiter gets its own sub-prefix: a fresh key space, as the suite expects.
describeRateLimiterConformance('redis', async (policy) => createRedisRateLimiter({ redis, policy, prefix: `${prefix}${n++}:` }));

describe('redis rate limiter when Redis is unreachable', () => {
  it('throws a retriable InfraError quickly, and failOpen lets the request through and counts it', async () => {
    // Nothing listens on port 1; no offline queue, so commands fail instead of waiting for a connection.
    const down = new Redis({ port: 1, host: '127.0.0.1', lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const rl = createRedisRateLimiter({ redis: down, policy: { limit: 1, windowMs: 1000 }, prefix });
    await expect(rl.take('k')).rejects.toMatchObject({ name: 'InfraError', retriable: true, dependency: 'redis' });
    const registry = new Registry();
    const errors = new Counter({ name: 'rl_errors_total', help: 'x', registers: [registry] });
    const open = failOpen(rl, { logger: pino({ level: 'silent' }), errors });
    const t0 = Date.now();
    expect((await open.take('k')).allowed).toBe(true);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect((await registry.getSingleMetric('rl_errors_total')!.get()).values[0]!.value).toBe(1);
    down.disconnect();
  });
});

describe('redis rate limiter leases', () => {
  it('reserves a lease per round trip and spends it locally', async () => {
    const p = `${prefix}lease-a:`;
    const rl = createRedisRateLimiter({ redis, policy: { limit: 1000, windowMs: 60_000 }, prefix: p });
    const counter = async () => Number(await redis.get(`${p}k`));
    const first = await rl.take('k');
    expect(first).toEqual({ allowed: true, remaining: 999, retryAfterSeconds: 60 });
    expect(await counter()).toBe(10);
    for (let i = 0; i < 9; i++) await rl.take('k');
    expect(await counter()).toBe(10);
    expect(await rl.take('k')).toMatchObject({ allowed: true, remaining: 989 });
    expect(await counter()).toBe(20);
  });

  it('admits exactly the limit across replicas sharing the counter, then refuses without asking Redis', async () => {
    const p = `${prefix}lease-b:`;
    const policy = { limit: 1005, windowMs: 60_000 };
    const a = createRedisRateLimiter({ redis, policy, prefix: p });
    const b = createRedisRateLimiter({ redis, policy, prefix: p });
    let allowed = 0;
    // Interleaved and concurrent, as two gateway replicas under load.
    for (let round = 0; round < 60; round++) {
      const d = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).take('k')));
      allowed += d.filter((x) => x.allowed).length;
    }
    expect(allowed).toBe(1005);
    const counter = Number(await redis.get(`${p}k`));
    expect(counter).toBeGreaterThanOrEqual(1005);
    expect(counter).toBeLessThanOrEqual(1005 + 2 * 10);
    await redis.del(`${p}k`);
    // Both replicas already know the window is spent: still refused although the counter is gone.
    expect(await a.take('k')).toMatchObject({ allowed: false, remaining: 0 });
    expect(await b.take('k')).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('sizes leases at 1 % of the limit and never below one request', () => {
    expect([leaseSize(600_000, 0.01), leaseSize(1000, 0.01), leaseSize(199, 0.01), leaseSize(3, 0.01)]).toEqual([6000, 10, 1, 1]);
  });
});
