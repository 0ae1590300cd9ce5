import type { Registry } from 'prom-client';
import { KeyRing, KeyUsageTracker, UserTokenOutcomeTracker, createInMemoryKeyUsageStore, createInMemoryUserTokenCountStore, type Logger } from '@evp/core';
import { watchKeysFile, type KeysReloader } from './reload';
import { createRedisKeyUsageStore, type RedisHashCommands } from './redis-usage';
import { createRedisUserTokenCountStore } from './redis-token-outcomes';
import { createKeyUsageMetrics, createUserTokenCountMetrics } from '../metrics';

export interface ServiceKeysOptions {
  /** KEYS_FILE, KEYS_RELOAD_INTERVAL_MS, KEYS_USAGE_FLUSH_MS, KEYS_USAGE_PREFIX (envFragments.keys). */
  config: { KEYS_FILE: string; KEYS_RELOAD_INTERVAL_MS: number; KEYS_USAGE_FLUSH_MS: number; KEYS_USAGE_PREFIX: string };
  logger: Logger;
  /** Where last uses and user token counts are shared with the other replicas; without it they stay in this process. */
  redis?: RedisHashCommands;
  /** Where the reload and usage series are registered (the service's /metrics). */
  metrics: Registry;
}

export interface ServiceKeys {
  ring: KeyRing;
  reloader: KeysReloader;
  /** Stops the reload timer and flushes the uses and counts not yet written (at shutdown, before Redis closes). */
  close(): Promise<void>;
}

/** A service's keys: read from the file (a bad file at start fails the start), reloaded on change, uses shared. */
export function serviceKeys(opts: ServiceKeysOptions): ServiceKeys {
  const { config, logger } = opts;
  const { flushFailures } = createKeyUsageMetrics(opts.metrics);
  const usage = new KeyUsageTracker({
    store: opts.redis ? createRedisKeyUsageStore({ redis: opts.redis, prefix: config.KEYS_USAGE_PREFIX }) : createInMemoryKeyUsageStore(),
    flushMs: config.KEYS_USAGE_FLUSH_MS,
    onFlushError: (err) => {
      flushFailures.inc();
      logger.warn({ err }, 'could not record keys’ last uses; retrying at the next flush');
    },
  });
  const { flushFailures: countFailures } = createUserTokenCountMetrics(opts.metrics);
  const tokenOutcomes = new UserTokenOutcomeTracker({
    store: opts.redis ? createRedisUserTokenCountStore({ redis: opts.redis, prefix: config.KEYS_USAGE_PREFIX }) : createInMemoryUserTokenCountStore(),
    flushMs: config.KEYS_USAGE_FLUSH_MS,
    onFlushError: (err) => {
      countFailures.inc();
      logger.warn({ err }, 'could not add user token counts; retrying at the next flush');
    },
  });
  const ring = KeyRing.fromFile(config.KEYS_FILE, { usage, tokenOutcomes });
  const reloader = watchKeysFile({ path: config.KEYS_FILE, ring, logger, intervalMs: config.KEYS_RELOAD_INTERVAL_MS, metrics: opts.metrics });
  return {
    ring,
    reloader,
    async close() {
      reloader.close();
      await Promise.allSettled([usage.close(), tokenOutcomes.close()]);
    },
  };
}
