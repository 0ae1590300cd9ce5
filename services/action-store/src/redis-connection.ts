import Redis, { type RedisOptions } from 'ioredis';
import type { ActionStoreConfig } from './config';

type RedisSettings = Pick<ActionStoreConfig, 'REDIS_URL' | 'REDIS_SENTINELS' | 'REDIS_MASTER_NAME'>;

/**
 * How the store connects: to REDIS_URL, or through Sentinel to the current primary of
 * REDIS_MASTER_NAME. Either way requests fail fast while Redis is away (503 + Retry-After) instead of
 * queueing: during a failover a pull answers 503 and the caller pulls again once the replica is primary.
 */
export function redisClientOptions(c: RedisSettings): { url?: string; options: RedisOptions } {
  const failFast: RedisOptions = { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true };
  if (!c.REDIS_SENTINELS) return { url: c.REDIS_URL, options: failFast };
  return {
    options: {
      ...failFast,
      sentinels: c.REDIS_SENTINELS,
      name: c.REDIS_MASTER_NAME,
      // No `failoverDetector`: a dead primary breaks the connection and Sentinel disconnects the
      // clients of a demoted one, so reconnecting (and asking Sentinel again) is enough; under load the
      // detector's own disconnect raced a reconnection in progress and left the client closed for good
      // (ioredis 5.11: every later command failed with "Connection is closed"; fault scenario j).
    },
  };
}

export function createRedisClient(c: RedisSettings): Redis {
  const { url, options } = redisClientOptions(c);
  return url ? new Redis(url, options) : new Redis(options);
}
