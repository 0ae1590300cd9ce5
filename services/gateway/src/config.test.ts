import { ConfigError } from '@evp/core';
import { loadGatewayConfig } from './config';

describe('gateway config', () => {
  const base = { KAFKA_BROKERS: 'a:9092, b:9092', KEYS_FILE: '/keys.json' };

  it('documents its defaults: 5 MiB, 5,000 events/records, generous rate limit, no Redis', () => {
    const c = loadGatewayConfig(base);
    expect(c).toMatchObject({
      KAFKA_BROKERS: ['a:9092', 'b:9092'],
      MAX_BODY_BYTES: 5 * 1024 * 1024,
      MAX_EVENTS_PER_REQUEST: 5000,
      MAX_CATALOG_RECORDS_PER_REQUEST: 5000,
      RATE_LIMIT_REQUESTS: 600_000,
      RATE_LIMIT_WINDOW_SECONDS: 60,
      CORS_ORIGINS: ['*'],
    });
    expect(c.REDIS_URL).toBeUndefined();
  });

  it('lists every bad variable at once', () => {
    expect(() => loadGatewayConfig({ KEYS_FILE: '', RATE_LIMIT_REQUESTS: '0', REDIS_URL: 'nope' })).toThrow(ConfigError);
    try {
      loadGatewayConfig({ KEYS_FILE: '', RATE_LIMIT_REQUESTS: '0', REDIS_URL: 'nope' });
    } catch (err) {
      expect((err as ConfigError).problems.map((p) => p.split(':')[0])).toEqual(
        expect.arrayContaining(['KAFKA_BROKERS', 'KEYS_FILE', 'RATE_LIMIT_REQUESTS', 'REDIS_URL']),
      );
    }
  });
});
