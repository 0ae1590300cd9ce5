import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, createLogger } from '@evp/core';
import { createChdbAnalystSql } from '@evp/embedded';
import { watchKeysFile } from '@evp/http';
import { loadDevConfig } from './config';
import { loadOrCreateDevKeys, loadOrCreatePrivacyHashKey } from './dev-keys';
import { createEmbeddedParts } from './embedded-parts';
import { startInstructions } from './instructions';
import { startPipeline } from './pipeline';

/** `npm start`: the whole pipeline in one process on the embedded adapters. */
async function main() {
  const config = loadDevConfig();
  const logger = createLogger('platform', config.LOG_LEVEL);
  const keys = loadOrCreateDevKeys(config.KEYS_FILE);
  // Edit dev/keys.local.json (add, revoke with revoked_at, remove) and it applies within 2 s.
  const reloader = watchKeysFile({ path: config.KEYS_FILE, ring: keys.ring, logger });
  const chdbPath = resolve(config.DEV_DATA_DIR, 'chdb');
  mkdirSync(chdbPath, { recursive: true });
  const parts = createEmbeddedParts({ chdbPath, logger });
  const pipeline = await startPipeline({
    parts,
    keys: keys.ring,
    logger,
    privacyHashKey: loadOrCreatePrivacyHashKey(resolve(config.DEV_DATA_DIR, 'privacy-hash-key')),
    metrics: reloader.metrics,
    host: config.HOST,
    port: config.PORT,
    corsOrigins: config.CORS_ORIGINS,
    demo: { sdkKey: keys.sdkKey, userTokenKey: keys.userTokenKey },
    analystSql: createChdbAnalystSql({ path: chdbPath, database: 'analytics' }),
    clickhouseHttpPort: config.CLICKHOUSE_HTTP_PORT,
  });
  process.stdout.write(
    startInstructions({
      baseUrl: pipeline.baseUrl,
      appId: keys.appId,
      sdkKey: keys.sdkKey,
      apiKey: keys.apiKey,
      analystKeys: keys.analystKeys,
      clickhouseHttpUrl: pipeline.clickhouseHttpUrl ?? '',
      keysFile: config.KEYS_FILE,
      keysCreated: keys.created,
      chdbPath,
    }),
  );
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    clearInterval(watch);
    reloader.close();
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
    process.exit(code);
  };
  // A consumer that stopped for good fails the gateway's /readyz; exiting non-zero makes it visible.
  const watch = setInterval(() => {
    const problems = pipeline.consumerProblems();
    if (problems.length === 0) return;
    logger.fatal({ problems }, 'a consumer stopped for good: exiting');
    void shutdown(1);
  }, 1_000);
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));
}

main().catch((err) => {
  // chdb binds its data directory to one process: a second `npm start` finds it locked.
  if ((err as { code?: string })?.code === 'CHDB_CONNECTION') {
    console.error('Cannot open the ClickHouse data directory: another `npm start` is probably using it; stop it, or set DEV_DATA_DIR to another directory.');
  } else console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
