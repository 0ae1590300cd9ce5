import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, createLogger } from '@evp/core';
import { loadDevConfig } from './config';
import { loadOrCreateDevKeys } from './dev-keys';
import { createEmbeddedParts } from './embedded-parts';
import { startInstructions } from './instructions';
import { startPipeline } from './pipeline';

/** `npm start`: the whole pipeline in one process on the embedded adapters. */
async function main() {
  const config = loadDevConfig();
  const logger = createLogger('platform', config.LOG_LEVEL);
  const keys = loadOrCreateDevKeys(config.KEYS_FILE);
  const chdbPath = resolve(config.DEV_DATA_DIR, 'chdb');
  mkdirSync(chdbPath, { recursive: true });
  const parts = createEmbeddedParts({ chdbPath, logger });
  const pipeline = await startPipeline({
    parts,
    keys: keys.ring,
    logger,
    host: config.HOST,
    gatewayPort: config.GATEWAY_PORT,
    actionsPort: config.ACTIONS_PORT,
  });
  process.stdout.write(
    startInstructions({
      gatewayUrl: pipeline.gatewayUrl,
      actionsUrl: pipeline.actionsUrl,
      appId: keys.appId,
      sdkKey: keys.sdkKey,
      apiKey: keys.apiKey,
      keysFile: config.KEYS_FILE,
      keysCreated: keys.created,
      chdbPath,
    }),
  );
  const shutdown = async () => {
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main().catch((err) => {
  // chdb binds its data directory to one process: a second `npm start` finds it locked.
  if ((err as { code?: string })?.code === 'CHDB_CONNECTION') {
    console.error('Cannot open the ClickHouse data directory: another `npm start` is probably using it; stop it, or set DEV_DATA_DIR to another directory.');
  } else console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
