import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { createLogger } from '@evp/core';
import Redis from 'ioredis';
import { deletePrefix } from '@evp/testkit';
import { describeKeyUsageStoreConformance } from './conformance';
import { createRedisKeyUsageStore } from './redis-usage';
import { describeUserTokenCountStoreConformance } from './token-outcomes-conformance';
import { createRedisUserTokenCountStore } from './redis-token-outcomes';
import { serviceKeys } from './service-keys';

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

describeUserTokenCountStoreConformance('redis', async () => {
  const p = `${prefix}${n++}:`;
  return { store: createRedisUserTokenCountStore({ redis, prefix: p }), peer: createRedisUserTokenCountStore({ redis: other, prefix: p }) };
});

describe('redis user token count store', () => {
  it('keeps one hash per app and minute under the prefix, outcome → calls, gone an hour after the minute ends', async () => {
    const p = `${prefix}layout:`;
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    await createRedisUserTokenCountStore({ redis, prefix: p }).add([
      { appId: 'demo-app', outcome: 'valid', minute, count: 3 },
      { appId: 'demo-app', outcome: 'required', minute, count: 2 },
    ]);
    const key = `${p}{demo-app}:user_tokens:${minute}`;
    expect(await redis.hgetall(key)).toEqual({ valid: '3', required: '2' });
    expect(await redis.pexpiretime(key)).toBe(minute + 61 * 60_000);
  });

  it('fails with a retriable InfraError when Redis is unreachable', async () => {
    const down = new Redis({ port: 1, host: '127.0.0.1', lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const store = createRedisUserTokenCountStore({ redis: down, prefix });
    await expect(store.add([{ appId: 'a', outcome: 'valid', minute: 0, count: 1 }])).rejects.toMatchObject({
      name: 'InfraError',
      retriable: true,
      dependency: 'redis',
    });
    await expect(store.lastHour('a', Date.now())).rejects.toMatchObject({ name: 'InfraError', retriable: true, dependency: 'redis' });
    down.disconnect();
  });

  it('in a service: counts reach Redis at the flush; while Redis is down a check still returns at once and the failure is counted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-counts-'));
    const path = join(dir, 'keys.json');
    writeFileSync(path, JSON.stringify({ keys: [{ id: 'k-sdk', app_id: 'app-s', role: 'sdk', key: 'sdk-key-app-s-0123456789' }] }));
    const config = { KEYS_FILE: path, KEYS_RELOAD_INTERVAL_MS: 60_000, KEYS_USAGE_FLUSH_MS: 60_000, KEYS_USAGE_PREFIX: `${prefix}svc:` };
    const logger = createLogger('test', 'silent');
    const failures = async (r: Registry) => (await r.getSingleMetric('user_token_counts_flush_failures_total')!.get()).values[0]?.value;

    const up = new Registry();
    const live = serviceKeys({ config, logger, redis, metrics: up });
    live.ring.tokenOutcomes.record('app-s', 'expired');
    live.ring.tokenOutcomes.record('app-s', 'expired');
    await live.close();
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    expect(await redis.hgetall(`${prefix}svc:{app-s}:user_tokens:${minute}`)).toEqual({ expired: '2' });
    expect(await failures(up)).toBe(0);

    const down = new Redis({ port: 1, host: '127.0.0.1', lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const metrics = new Registry();
    const keys = serviceKeys({ config, logger, redis: down, metrics });
    const started = process.hrtime.bigint();
    keys.ring.tokenOutcomes.record('app-s', 'valid');
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(5);
    await keys.ring.tokenOutcomes.flush();
    expect(await failures(metrics)).toBe(1);
    await keys.close();
    down.disconnect();
  });
});
