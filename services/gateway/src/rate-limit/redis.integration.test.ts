import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import pino from 'pino';
import { Counter, Registry } from 'prom-client';
import { deletePrefix } from '@evp/testkit';
import { describeRateLimiterConformance } from './conformance';
import { failOpen } from './fail-open';
import { createRedisRateLimiter } from './redis';

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
