import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { createChdbAnalytics } from '@evp/embedded';
import { chdbTestPath, describeAnalyticsConformance, testDatabase } from '@evp/testkit/src/conformance/analytics';
import { loadSinkChdbConfig } from './config';
import { startQueryServer } from './query-server';
import { createRemoteAnalytics } from './remote-analytics';

// A `segmenter` replica's Analytics (the store's side port in front of chdb) holds to the same
// contract as the adapters themselves: what the sink and segments rely on, errors included.
const database = testDatabase('remote');

describeAnalyticsConformance('a chdb store’s side port (remote-analytics.ts)', async () => {
  const chdb = createChdbAnalytics({ path: chdbTestPath(), database });
  const server = await startQueryServer({ analytics: chdb, metrics: new Registry(), port: 0 });
  const analytics = createRemoteAnalytics(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return {
    analytics,
    close: async () => {
      await new Promise((r) => server.close(r));
      await chdb.command(`DROP DATABASE IF EXISTS ${database}`);
      await chdb.close();
    },
  };
});

describe('the chdb sink’s roles (SINK_CHDB_ROLE)', () => {
  const base = { KAFKA_BROKERS: '127.0.0.1:9092', SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081', KEYS_FILE: 'keys.json' };

  it('needs the store’s directory and side port for `all` and `store`, the store’s URL for `segmenter`', () => {
    expect(() => loadSinkChdbConfig(base)).toThrow(/CHDB_PATH: required when SINK_CHDB_ROLE is all[\s\S]*SINK_QUERY_PORT: required when SINK_CHDB_ROLE is all/);
    expect(() => loadSinkChdbConfig({ ...base, SINK_CHDB_ROLE: 'store', CHDB_PATH: '/d' })).toThrow(/SINK_QUERY_PORT: required when SINK_CHDB_ROLE is store/);
    expect(() => loadSinkChdbConfig({ ...base, SINK_CHDB_ROLE: 'segmenter' })).toThrow(/CHDB_REMOTE_URL: required when SINK_CHDB_ROLE is segmenter/);
    expect(loadSinkChdbConfig({ ...base, SINK_CHDB_ROLE: 'segmenter', CHDB_REMOTE_URL: 'http://127.0.0.1:1' })).toMatchObject({
      SINK_CHDB_ROLE: 'segmenter',
      CHDB_REMOTE_URL: 'http://127.0.0.1:1',
    });
    expect(loadSinkChdbConfig({ ...base, CHDB_PATH: '/d', SINK_QUERY_PORT: '1' })).toMatchObject({
      SINK_CHDB_ROLE: 'all',
      CHDB_PATH: '/d',
      SINK_QUERY_PORT: 1,
    });
  });

  it('answers ping false and throws a retriable error when the store is away', async () => {
    const away = createRemoteAnalytics('http://127.0.0.1:1');
    expect(await away.ping()).toBe(false);
    await expect(away.query('SELECT 1')).rejects.toMatchObject({ name: 'InfraError', dependency: 'clickhouse', retriable: true });
  });
});
