import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { deletePrefix, describeLeaseConformance } from '@evp/testkit';
import { createRedisLeaseStore } from './redis';

const redis = new Redis(process.env.REDIS_URL as string);
const other = new Redis(process.env.REDIS_URL as string);
const prefix = `test:lease:${randomBytes(6).toString('hex')}:`;
let n = 0;
afterAll(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
  other.disconnect();
});

// Two connections on one key space: two replicas sharing the Redis.
describeLeaseConformance('redis', async () => {
  const p = `${prefix}${n++}:`;
  return { store: createRedisLeaseStore({ redis, prefix: p }), peer: createRedisLeaseStore({ redis: other, prefix: p }) };
});

describe('redis lease store', () => {
  it('keeps one string per lease under the prefix, its holder, expiring with the hold', async () => {
    const p = `${prefix}layout:`;
    const before = Date.now();
    await createRedisLeaseStore({ redis, prefix: p }).acquire('campaigns.adapt', 'host:1:ab', 60_000);
    expect(await redis.get(`${p}campaigns.adapt`)).toBe('host:1:ab');
    const expires = await redis.pexpiretime(`${p}campaigns.adapt`);
    expect(expires).toBeGreaterThanOrEqual(before + 60_000 - 5);
    expect(expires).toBeLessThanOrEqual(Date.now() + 60_000 + 5);
  });

  it('fails with a retriable InfraError when Redis is unreachable', async () => {
    const down = new Redis({ port: 1, host: '127.0.0.1', lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const store = createRedisLeaseStore({ redis: down, prefix });
    const infra = { name: 'InfraError', retriable: true, dependency: 'redis' };
    await expect(store.acquire('job', 'a', 1_000)).rejects.toMatchObject(infra);
    await expect(store.renew('job', 'a', 1_000)).rejects.toMatchObject(infra);
    await expect(store.release('job', 'a')).rejects.toMatchObject(infra);
    await expect(store.holderOf('job')).rejects.toMatchObject(infra);
    down.disconnect();
  });
});
