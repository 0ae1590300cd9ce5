import { createClickHouseHttpAnalytics, restampRetention } from '@evp/clickhouse';
import { ConfigError, createLogger, readKeysFile, resolveRetention } from '@evp/core';
import { clickhouseOptions, loadApplyRetentionConfig } from './config';

/**
 * `apply-retention <app_id>`: the explicit one-off step after an app's retention was shortened
 * (docs/privacy.md, "Changing a retention"). Rows carry the retention they were inserted under; this
 * moves the app's existing rows to the keys file's current setting (copy per partition, then delete
 * the old rows; those already past the new days are not copied, so gone when it returns).
 * Prints what it changed as JSON; running it again changes nothing. Run with
 * `npm run apply-retention -w @evp/segmenter -- <app_id>`.
 */
async function main() {
  const appId = process.argv[2];
  if (!appId) throw new ConfigError(['usage: apply-retention <app_id>']);
  const config = loadApplyRetentionConfig();
  const logger = createLogger('segmenter-apply-retention', config.LOG_LEVEL);
  const retention = resolveRetention(readKeysFile(config.KEYS_FILE).apps?.[appId]?.retention);
  const analytics = createClickHouseHttpAnalytics(clickhouseOptions(config));
  try {
    const result = await restampRetention(analytics, appId, retention, config.CLICKHOUSE_CLUSTER);
    logger.info({ appId, retention, ...result }, 'retention applied to existing rows');
    console.log(JSON.stringify({ app_id: appId, retention, ...result }));
  } finally {
    await analytics.close();
  }
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
