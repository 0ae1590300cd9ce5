import { mkdirSync } from 'node:fs';
import { Registry } from 'prom-client';
import { ConfigError, createLogger } from '@evp/core';
import { createChdbAnalytics } from '@evp/embedded';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { createSink, runMigrations, sinkConfig } from '@evp/segmenter';
import { loadSinkChdbConfig } from './config';
import { withInsertFaults } from './faulty-analytics';
import { startQueryServer } from './query-server';

/**
 * Composition root of the segmenter sink on chdb, the real sink code on the real broker and
 * registry with an embedded ClickHouse: what the fault suite and the pipeline bench run where no
 * ClickHouse server exists. Insert faults are injected here (FAULT_* in config.ts), never in the
 * service. Shutdown as the service's: stop consuming (buffered rows inserted and committed), leave
 * Kafka, close ClickHouse.
 */
async function main() {
  const config = loadSinkChdbConfig();
  const logger = createLogger('segmenter-chdb', config.segmenter.LOG_LEVEL);
  mkdirSync(config.CHDB_PATH, { recursive: true });
  const chdb = createChdbAnalytics({ path: config.CHDB_PATH, database: config.CHDB_DATABASE });
  await runMigrations({ analytics: chdb, logger });
  const analytics = withInsertFaults(chdb, { table: 'events', refuse: config.FAULT_REFUSE_INSERTS, half: config.FAULT_HALF_INSERTS }, (kind) =>
    logger.warn({ kind }, 'injected ClickHouse insert fault'),
  );
  const bus = createKafkaBus({ brokers: config.segmenter.KAFKA_BROKERS, clientId: 'segmenter', logger });
  const registry = createConfluentRegistry({ url: config.segmenter.SCHEMA_REGISTRY_URL, clientId: 'segmenter' });
  const metrics = new Registry();
  const sink = createSink({ bus, registry, analytics, logger, metrics, config: sinkConfig(config.segmenter) });
  await sink.start();
  const server = await startQueryServer({ analytics: chdb, metrics, port: config.SINK_QUERY_PORT });
  logger.info({ port: config.SINK_QUERY_PORT, chdb: config.CHDB_PATH }, 'segmenter sink on chdb running');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: stop consuming, insert buffered rows, close');
    await sink.stop().catch((err) => logger.error({ err }, 'sink stop failed'));
    await Promise.allSettled([bus.close(), new Promise<void>((r) => server.close(() => r()))]);
    await chdb.close().catch((err) => logger.error({ err }, 'chdb close failed'));
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
