import { ConfigError } from '@evp/core';
import { loadActionStoreConfig } from './config';

describe('loadActionStoreConfig', () => {
  it('applies defaults', () => {
    expect(loadActionStoreConfig({ KEYS_FILE: '/k.json' })).toEqual({
      PORT: 8083,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_MASTER_NAME: 'evp-actions',
      REDIS_WAIT_REPLICAS: 0,
      REDIS_WAIT_TIMEOUT_MS: 200,
      REDIS_KEY_PREFIX: 'evp:act:',
      KEYS_FILE: '/k.json',
      KEYS_RELOAD_INTERVAL_MS: 2000,
      KEYS_USAGE_FLUSH_MS: 5000,
      KEYS_USAGE_PREFIX: 'evp:keys:',
      LOG_LEVEL: 'info',
      PULL_MAX: 1000,
      MAX_BODY_BYTES: 16 * 1024 * 1024,
      RETENTION_MS: 604_800_000,
      SWEEP_INTERVAL_MS: 60_000,
      RETRY_AFTER_SECONDS: 1,
      CORS_ORIGINS: ['*'],
      CONSUMER_GROUP_PREFIX: 'action-store',
      FEEDBACK_FROM_CORE: false,
      KAFKA_SESSION_TIMEOUT_MS: 10_000,
      ACTION_LOG_BATCH: 1000,
      ACTION_LOG_IDLE_MS: 200,
      ACTION_LOG_LEASE_MS: 30_000,
    });
  });

  it('reports every problem at once', () => {
    let err: unknown;
    try {
      loadActionStoreConfig({ PULL_MAX: '0', PORT: 'x', KAFKA_BROKERS: 'localhost:9092' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems.map((p) => p.split(':')[0])).toEqual(['PORT', 'KEYS_FILE', 'PULL_MAX']);
  });

  it('needs the schema registry when Kafka is configured', () => {
    expect(() => loadActionStoreConfig({ KEYS_FILE: '/k', KAFKA_BROKERS: 'a:1' })).toThrow('SCHEMA_REGISTRY_URL: required with KAFKA_BROKERS');
    expect(loadActionStoreConfig({ KEYS_FILE: '/k', KAFKA_BROKERS: 'a:1,b:2', SCHEMA_REGISTRY_URL: 'http://r:8081' }).KAFKA_BROKERS).toEqual(['a:1', 'b:2']);
    expect([true, false].map((v) => loadActionStoreConfig({ KEYS_FILE: '/k', FEEDBACK_FROM_CORE: String(v) }).FEEDBACK_FROM_CORE)).toEqual([true, false]);
    expect(() => loadActionStoreConfig({ KEYS_FILE: '/k', FEEDBACK_FROM_CORE: 'yes' })).toThrow('FEEDBACK_FROM_CORE');
  });

  it('reads Sentinel addresses and the replica wait', () => {
    const c = loadActionStoreConfig({
      KEYS_FILE: '/k',
      REDIS_SENTINELS: 's1:26379, 10.0.0.2:26380',
      REDIS_MASTER_NAME: 'm',
      REDIS_WAIT_REPLICAS: '1',
      REDIS_WAIT_TIMEOUT_MS: '50',
    });
    expect([c.REDIS_SENTINELS, c.REDIS_MASTER_NAME, c.REDIS_WAIT_REPLICAS, c.REDIS_WAIT_TIMEOUT_MS]).toEqual([
      [
        { host: 's1', port: 26379 },
        { host: '10.0.0.2', port: 26380 },
      ],
      'm',
      1,
      50,
    ]);
    expect(() => loadActionStoreConfig({ KEYS_FILE: '/k', REDIS_SENTINELS: 's1:26379,s2' })).toThrow('REDIS_SENTINELS: expected host:port, got "s2"');
    expect(() => loadActionStoreConfig({ KEYS_FILE: '/k', REDIS_SENTINELS: 's1:70000' })).toThrow('REDIS_SENTINELS: expected host:port, got "s1:70000"');
  });
});
