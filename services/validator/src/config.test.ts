import { availableParallelism } from 'node:os';
import { ConfigError } from '@evp/core';
import { loadValidatorConfig } from './config';

const required = { KAFKA_BROKERS: 'k1:9092,k2:9092', SCHEMA_REGISTRY_URL: 'http://registry:8081', KEYS_FILE: '/run/keys/keys.json' };

describe('loadValidatorConfig', () => {
  it('applies defaults: one encode worker per CPU the process may use', () => {
    expect(loadValidatorConfig(required)).toEqual({
      KAFKA_BROKERS: ['k1:9092', 'k2:9092'],
      KAFKA_SESSION_TIMEOUT_MS: 10_000,
      SCHEMA_REGISTRY_URL: 'http://registry:8081',
      LOG_LEVEL: 'info',
      MAX_EVENT_CHARS: 64 * 1024,
      METRICS_PORT: 9102,
      VALIDATOR_WORKERS: availableParallelism(),
      KEYS_FILE: '/run/keys/keys.json',
      KEYS_RELOAD_INTERVAL_MS: 2_000,
    });
  });

  it('VALIDATOR_WORKERS takes a count (0 = inline) or auto', () => {
    expect(loadValidatorConfig({ ...required, VALIDATOR_WORKERS: '0' }).VALIDATOR_WORKERS).toBe(0);
    expect(loadValidatorConfig({ ...required, VALIDATOR_WORKERS: '3' }).VALIDATOR_WORKERS).toBe(3);
    expect(loadValidatorConfig({ ...required, VALIDATOR_WORKERS: 'auto' }).VALIDATOR_WORKERS).toBe(availableParallelism());
  });

  it('reports every problem at once', () => {
    let err: unknown;
    try {
      loadValidatorConfig({ VALIDATOR_WORKERS: 'many', MAX_EVENT_CHARS: '0' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'KAFKA_BROKERS',
      'KEYS_FILE',
      'MAX_EVENT_CHARS',
      'SCHEMA_REGISTRY_URL',
      'VALIDATOR_WORKERS',
    ]);
  });
});
