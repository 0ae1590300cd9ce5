import { createClickHouseHttpAnalytics, ensureClickHouseDatabase, runMigrations } from '@evp/clickhouse';
import { ConfigError, createLogger } from '@evp/core';
import { clickhouseOptions, loadMigrateConfig } from './config';

/**
 * `migrate`: creates the database when missing and applies pending migrations from
 * deploy/clickhouse/migrations (with CLICKHOUSE_CLUSTER: their clustered form, on every server). Idempotent; run with `npx tsx services/segmenter/src/migrate.ts`.
 */
async function main() {
  const config = loadMigrateConfig();
  const logger = createLogger('segmenter-migrate', config.LOG_LEVEL);
  const options = clickhouseOptions(config);
  await ensureClickHouseDatabase(options, config.CLICKHOUSE_CLUSTER);
  const analytics = createClickHouseHttpAnalytics(options);
  try {
    const result = await runMigrations({
      analytics,
      logger,
      cluster: config.CLICKHOUSE_CLUSTER,
      ...(config.CLICKHOUSE_MIGRATIONS_DIR ? { dir: config.CLICKHOUSE_MIGRATIONS_DIR } : {}),
    });
    logger.info({ database: options.database, ...result }, 'ClickHouse migrations done');
  } finally {
    await analytics.close();
  }
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
