import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { deletePrefix } from '@evp/testkit';
import { describeKeyUsageStoreConformance } from './conformance';
import { createRedisKeyUsageStore } from './redis-usage';

const redis = new Redis(process.env.REDIS_URL as string);
const other = new Redis(process.env.REDIS_URL as string);
const prefix = `test:keys:${randomBytes(6).toString('hex')}:`;
let n = 0;
afterAll(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
  other.disconnect();
});

// Two connections on one key space: two replicas sharing the Redis.
describeKeyUsageStoreConformance('redis', async () => {
  const p = `${prefix}${n++}:`;
  return { store: createRedisKeyUsageStore({ redis, prefix: p }), peer: createRedisKeyUsageStore({ redis: other, prefix: p }) };
});

describe('redis key usage store', () => {
  it('keeps one hash per app under the prefix, key id → epoch ms', async () => {
    const p = `${prefix}layout:`;
    await createRedisKeyUsageStore({ redis, prefix: p }).record([{ appId: 'demo-app', keyId: 'demo-sdk', at: 1_767_225_600_123 }]);
    expect(await redis.hgetall(`${p}{demo-app}:last_used`)).toEqual({ 'demo-sdk': '1767225600123' });
  });

  it('fails with a retriable InfraError when Redis is unreachable', async () => {
    const down = new Redis({ port: 1, host: '127.0.0.1', lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const store = createRedisKeyUsageStore({ redis: down, prefix });
    await expect(store.record([{ appId: 'a', keyId: 'k', at: 1 }])).rejects.toMatchObject({ name: 'InfraError', retriable: true, dependency: 'redis' });
    await expect(store.lastUsed('a')).rejects.toMatchObject({ name: 'InfraError', retriable: true, dependency: 'redis' });
    down.disconnect();
  });
});
