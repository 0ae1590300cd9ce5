import { createServer } from 'node:http';
import { Registry } from 'prom-client';
import { createClickHouseHttpAnalytics, ensureClickHouseDatabase, runMigrations } from '@evp/clickhouse';
import { ConfigError, createLogger } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { clickhouseOptions, loadSegmenterConfig, sinkConfig } from './config';
import { createSink } from './sink';

/**
 * Composition root: config → logger → ClickHouse (+ migrations) → Kafka + registry → sink;
 * /metrics on a side port. Shutdown in reverse: stop consuming (buffered rows are inserted and
 * committed) → leave Kafka → close ClickHouse.
 */
async function main() {
  const config = loadSegmenterConfig();
  const logger = createLogger('segmenter', config.LOG_LEVEL);
  const chOptions = clickhouseOptions(config);
  if (config.CLICKHOUSE_MIGRATE_ON_START) await ensureClickHouseDatabase(chOptions);
  const analytics = createClickHouseHttpAnalytics(chOptions);
  if (config.CLICKHOUSE_MIGRATE_ON_START) {
    const dir = config.CLICKHOUSE_MIGRATIONS_DIR;
    const result = await runMigrations({ analytics, logger, ...(dir ? { dir } : {}) });
    logger.info({ applied: result.applied }, 'ClickHouse schema up to date');
  }
  const bus = createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'segmenter', logger });
  const registry = createConfluentRegistry({ url: config.SCHEMA_REGISTRY_URL, clientId: 'segmenter' });
  const metrics = new Registry();
  const sink = createSink({ bus, registry, analytics, logger, metrics, config: sinkConfig(config) });
  await sink.start();

  const server = createServer((req, res) => {
    if (req.url === '/metrics') {
      metrics.metrics().then(
        (body) => res.setHeader('Content-Type', metrics.contentType).end(body),
        (err) => res.writeHead(500).end(String(err)),
      );
    } else if (req.url === '/healthz') {
      analytics.ping().then((ok) => res.writeHead(ok ? 200 : 503).end(JSON.stringify({ clickhouse: ok })));
    } else res.writeHead(404).end();
  }).listen(config.METRICS_PORT);
  logger.info({ metricsPort: config.METRICS_PORT }, 'segmenter sink running');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: stop consuming, insert buffered rows, close');
    await sink.stop().catch((err) => logger.error({ err }, 'sink stop failed'));
    const results = await Promise.allSettled([bus.close(), new Promise<void>((r) => server.close(() => r()))]);
    await analytics.close().catch((err) => logger.error({ err }, 'ClickHouse close failed'));
    for (const r of results) if (r.status === 'rejected') logger.error({ err: r.reason }, 'shutdown step failed');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
