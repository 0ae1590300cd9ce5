import { chdbTestPath, describeAnalyticsConformance, testDatabase } from '@evp/testkit/src/conformance/analytics';
import { createChdbAnalytics } from './chdb-analytics';

// One chdb directory per jest worker process (see chdbTestPath); a database of its own keeps this
// file's tables apart from other files in the same worker.
const database = testDatabase('conf');

describeAnalyticsConformance('chdb (in-process ClickHouse via @clickhouse/client)', async () => {
  const analytics = createChdbAnalytics({ path: chdbTestPath(), database });
  return {
    analytics,
    close: async () => {
      await analytics.command(`DROP DATABASE IF EXISTS ${database}`);
      await analytics.close();
    },
  };
});

describe('createChdbAnalytics', () => {
  it('works inside the database it was given', async () => {
    const db = `${database}_own`;
    const analytics = createChdbAnalytics({ path: chdbTestPath(), database: db });
    try {
      expect(await analytics.query('SELECT currentDatabase() AS db')).toEqual([{ db }]);
    } finally {
      await analytics.command(`DROP DATABASE IF EXISTS ${db}`);
      await analytics.close();
    }
  });

  it('refuses a database name that is not an identifier', () => {
    expect(() => createChdbAnalytics({ path: chdbTestPath(), database: 'a-b' })).toThrow('invalid database name "a-b"');
  });
});
