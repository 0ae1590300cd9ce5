import { runMigrations } from '@evp/clickhouse';
import type { Analytics } from '@evp/core';
import { createChdbAnalytics } from '@evp/embedded';
import { chdbTestPath, testDatabase } from './conformance/analytics';

/**
 * A database of its own on the test process's chdb, with every migration applied, for one test file:
 * registers the jest hooks that create it before the file's tests and drop it after them. Hooks the
 * file registers later (seeding rows, say) run after the migrations.
 */
export function useMigratedChdb(prefix: string): { readonly analytics: Analytics; readonly database: string } {
  const database = testDatabase(prefix);
  let analytics: Analytics | undefined;
  beforeAll(async () => {
    analytics = createChdbAnalytics({ path: chdbTestPath(), database });
    await runMigrations({ analytics });
  });
  afterAll(async () => {
    await analytics?.command(`DROP DATABASE IF EXISTS ${database}`);
    await analytics?.close();
  });
  return {
    database,
    get analytics(): Analytics {
      if (!analytics) throw new Error('useMigratedChdb: the database exists only inside tests and hooks');
      return analytics;
    },
  };
}
