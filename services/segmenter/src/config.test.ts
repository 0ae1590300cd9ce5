import { ConfigError } from '@evp/core';
import { campaignWorkerConfig, clickhouseOptions, loadMigrateConfig, loadSegmenterConfig, segmentEngineConfig, sinkConfig } from './config';

const env = {
  KAFKA_BROKERS: 'k1:9092, k2:9092',
  SCHEMA_REGISTRY_URL: 'http://registry:8081',
  CLICKHOUSE_URL: 'http://clickhouse:8123',
  KEYS_FILE: '/run/keys/keys.json',
};

describe('segmenter config', () => {
  it('applies the documented defaults', () => {
    const c = loadSegmenterConfig(env);
    expect(c.KAFKA_BROKERS).toEqual(['k1:9092', 'k2:9092']);
    expect(clickhouseOptions(c)).toEqual({
      url: 'http://clickhouse:8123',
      username: 'default',
      password: '',
      database: 'evp',
      requestTimeoutMs: 30_000,
      application: 'evp-segmenter',
    });
    expect(sinkConfig(c)).toEqual({
      groupId: 'segmenter-sink',
      batchMaxRows: 10_000,
      batchMaxWaitMs: 1_000,
      batchMinIntervalMs: 200,
      busConcurrency: 16,
      sliceRows: 10_000,
      retryInitialDelayMs: 200,
      retryMaxDelayMs: 5_000,
      retryBudgetMs: 10_000,
    });
    expect([c.CLICKHOUSE_MIGRATE_ON_START, c.METRICS_PORT, c.LOG_LEVEL]).toEqual([true, 9464, 'info']);
    // Unset: /clickhouse/ is not served (the analysts' SQL gateway needs a server to run on).
    expect(c.ANALYST_SQL_CLICKHOUSE_URL).toBeUndefined();
    expect(loadSegmenterConfig({ ...env, ANALYST_SQL_CLICKHOUSE_URL: 'http://clickhouse:8123' }).ANALYST_SQL_CLICKHOUSE_URL).toBe('http://clickhouse:8123');
    expect(segmentEngineConfig(c)).toEqual({
      groupId: 'segmenter-segments',
      recomputeIntervalMs: 60_000,
      refreshIntervalMs: 5_000,
      usersPerItem: 1_000,
      recoveryMarginMs: 60_000,
      expiryIntervalMs: 3_600_000,
      concurrency: 1,
    });
    expect(segmentEngineConfig(loadSegmenterConfig({ ...env, SEGMENTS_RECOMPUTE_INTERVAL_MS: '0' })).recomputeIntervalMs).toBe(0);
    expect(segmentEngineConfig(loadSegmenterConfig({ ...env, SEGMENTS_EXPIRY_INTERVAL_MS: '0' })).expiryIntervalMs).toBe(0);
  });

  it('reads the campaign worker settings, with the documented defaults', () => {
    expect(campaignWorkerConfig(loadSegmenterConfig(env))).toEqual({
      refreshIntervalMs: 5_000,
      scheduleIntervalMs: 60_000,
      scheduleCatchUpMs: 3_600_000,
      usersPerBatch: 1_000,
      concurrency: 1,
      entryFromBeginning: false,
      adaptIntervalMs: 600_000,
    });
    const c = loadSegmenterConfig({ ...env, CAMPAIGNS_SCHEDULE_INTERVAL_MS: '0', CAMPAIGNS_ENTRIES_FROM_BEGINNING: 'true', CAMPAIGNS_USERS_PER_BATCH: '250' });
    expect(campaignWorkerConfig(c)).toMatchObject({ scheduleIntervalMs: 0, entryFromBeginning: true, usersPerBatch: 250 });
    expect(() => loadSegmenterConfig({ ...env, CAMPAIGNS_USERS_PER_BATCH: '0' })).toThrow(/CAMPAIGNS_USERS_PER_BATCH/);
  });

  it('runs every part by default, or the chosen ones (SEGMENTER_PARTS), each named once', () => {
    expect(loadSegmenterConfig(env).SEGMENTER_PARTS).toEqual(['sink', 'segments', 'campaigns', 'api']);
    expect(loadSegmenterConfig({ ...env, SEGMENTER_PARTS: 'segments, api' }).SEGMENTER_PARTS).toEqual(['segments', 'api']);
    const problems = (parts: string) => {
      try {
        loadSegmenterConfig({ ...env, SEGMENTER_PARTS: parts });
      } catch (e) {
        return (e as ConfigError).problems;
      }
      return [];
    };
    expect(problems('sink,sink')).toEqual(['SEGMENTER_PARTS: a part named twice']);
    expect(problems('sink,search')[0]).toMatch(
      /^SEGMENTER_PARTS\.1: Invalid enum value\. Expected 'sink' \| 'segments' \| 'campaigns' \| 'api', received 'search'$/,
    );
    expect(problems('')[0]).toMatch(/^SEGMENTER_PARTS\.0: Invalid enum value/);
  });

  it('reports every bad variable at once', () => {
    let err: unknown;
    try {
      loadSegmenterConfig({ ...env, CLICKHOUSE_URL: 'not a url', CLICKHOUSE_DATABASE: 'evp-prod', SINK_BATCH_MAX_ROWS: '0', KAFKA_BROKERS: undefined });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems.map((p) => p.split(':')[0])).toEqual([
      'CLICKHOUSE_URL',
      'CLICKHOUSE_DATABASE',
      'KAFKA_BROKERS',
      'SINK_BATCH_MAX_ROWS',
    ]);
  });

  it('needs only the ClickHouse variables for migrate', () => {
    expect(loadMigrateConfig({ CLICKHOUSE_URL: 'http://clickhouse:8123', CLICKHOUSE_DATABASE: 'analytics' }).CLICKHOUSE_DATABASE).toBe('analytics');
    expect(loadMigrateConfig({ CLICKHOUSE_URL: 'http://clickhouse:8123', CLICKHOUSE_CLUSTER: 'evp' }).CLICKHOUSE_CLUSTER).toBe('evp');
    expect(() => loadMigrateConfig({ CLICKHOUSE_URL: 'http://clickhouse:8123', CLICKHOUSE_CLUSTER: 'a b' })).toThrow(
      'CLICKHOUSE_CLUSTER: letters, digits and _ only',
    );
  });
});
