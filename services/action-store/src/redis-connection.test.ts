import { redisClientOptions } from './redis-connection';

describe('redisClientOptions', () => {
  const failFast = { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true };

  it('connects to REDIS_URL without Sentinel', () => {
    expect(redisClientOptions({ REDIS_URL: 'redis://r:6379', REDIS_MASTER_NAME: 'evp-actions' })).toEqual({ url: 'redis://r:6379', options: failFast });
  });

  it('asks the sentinels for the primary when they are configured (REDIS_URL unused)', () => {
    const sentinels = [
      { host: 's1', port: 26379 },
      { host: 's2', port: 26379 },
    ];
    expect(redisClientOptions({ REDIS_URL: 'redis://r:6379', REDIS_SENTINELS: sentinels, REDIS_MASTER_NAME: 'm' })).toEqual({
      options: { ...failFast, sentinels, name: 'm' },
    });
  });
});
