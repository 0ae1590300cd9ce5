import { Registry } from 'prom-client';
import { createClickHouseHttpAnalytics, ensureClickHouseDatabase, runMigrations } from '@evp/clickhouse';
import { ConfigError, KeyRing, consumerProblems, createLogger } from '@evp/core';
import { closeServer, listen, serveOps } from '@evp/http';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { campaignWorkerConfig, clickhouseOptions, loadSegmenterConfig, segmentEngineConfig, sinkConfig } from './config';
import { createSegmenterApp } from './http/app';
import { clickhouseReport, createCampaigns } from './campaigns/compose';
import { createSegments } from './segments/compose';
import { createSink } from './sink';

/**
 * Composition root: config → logger → keys → ClickHouse (+ migrations) → Kafka + registry → segment
 * engine (its work consumer and timers) → campaigns (store, API service, campaign worker) → sink
 * (whose stored rows become segment work and event triggers) → the public API (request verdicts,
 * inspector, segments, campaigns) on PORT; /metrics, /healthz, /readyz on a side port.
 * Shutdown in reverse: stop answering → stop the sink (buffered rows are inserted, their work
 * produced, offsets committed) → stop the engine (the evaluation in hand finishes) → stop the
 * campaign worker (the batch in hand finishes) → leave Kafka →
 * close ClickHouse. A consumer that stops for good fails readiness and exits non-zero, so an
 * orchestrator restarts the process.
 */
async function main() {
  const config = loadSegmenterConfig();
  const logger = createLogger('segmenter', config.LOG_LEVEL);
  const keys = KeyRing.fromFile(config.KEYS_FILE);
  const chOptions = clickhouseOptions(config);
  if (config.CLICKHOUSE_MIGRATE_ON_START) await ensureClickHouseDatabase(chOptions);
  const analytics = createClickHouseHttpAnalytics(chOptions);
  if (config.CLICKHOUSE_MIGRATE_ON_START) {
    const dir = config.CLICKHOUSE_MIGRATIONS_DIR;
    const result = await runMigrations({ analytics, logger, ...(dir ? { dir } : {}) });
    logger.info({ applied: result.applied }, 'ClickHouse schema up to date');
  }
  const bus = createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'segmenter', logger, sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS });
  const registry = createConfluentRegistry({ url: config.SCHEMA_REGISTRY_URL, clientId: 'segmenter' });
  const metrics = new Registry();
  let stopping = false;
  let ops: Awaited<ReturnType<typeof serveOps>> | undefined;
  let http: Awaited<ReturnType<typeof listen>> | undefined;
  const dead = (consumer: string) => (err: Error) => {
    logger.fatal({ err }, `the ${consumer} consumer stopped for good: not ready, exiting to be restarted`);
    void shutdown('consumer dead', 1);
  };
  const { engine, service: segments } = createSegments({
    analytics,
    bus,
    registry,
    logger,
    metrics,
    config: segmentEngineConfig(config),
    onDead: dead('segment work'),
  });
  // Campaigns: the API's service and store, and the campaign worker (its trigger producers and its
  // consumer of campaigns.triggers), which reads the store and acts on the sink's stored events.
  const campaigns = createCampaigns({
    analytics,
    segments: engine.definitions,
    report: clickhouseReport(analytics),
    worker: { bus, registry, logger, metrics, config: campaignWorkerConfig(config), onDead: dead('campaign trigger') },
  });
  const { worker } = campaigns;
  const sink = createSink({
    bus,
    registry,
    analytics,
    logger,
    metrics,
    config: sinkConfig(config),
    // Segment work first, then the campaigns' event triggers; a failure delivers the batch again.
    onInserted: async (rows) => {
      await engine.onInserted(rows);
      await worker.onInserted(rows);
    },
    onDead: dead('sink'),
  });
  await engine.start();
  await worker.start();
  await sink.start();
  // /healthz: the process answers; /readyz: ClickHouse answers and the consumers are alive.
  const readiness = async () => [
    ...consumerProblems({ 'segmenter-sink': sink, 'segmenter-segments': engine, 'segmenter-campaigns': worker }),
    ...((await analytics.ping()) ? [] : ['clickhouse: not reachable']),
  ];
  // The public API (request verdicts, the inspector) on PORT, behind the edge; its request series
  // join the sink's on the side port's /metrics.
  const api = createSegmenterApp({ analytics, keys, logger, readiness, segments, campaigns: campaigns.service });
  // Assigned once each, but shutdown() can run before the assignments (a consumer dying during
  // start-up) and must then see undefined, not a const's temporal dead zone.
  // eslint-disable-next-line prefer-const
  ops = await serveOps({ port: config.METRICS_PORT, metrics: Registry.merge([metrics, api.metrics.registry]), readiness });
  // eslint-disable-next-line prefer-const
  http = await listen(api.app, config.PORT);
  logger.info({ metricsPort: ops.port, port: http.port }, 'segmenter sink and API running');

  async function shutdown(signal: string, code: number) {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: stop answering and consuming, insert buffered rows, close');
    if (http) await closeServer(http.server).catch((err) => logger.error({ err }, 'http close failed'));
    await sink.stop().catch((err) => logger.error({ err }, 'sink stop failed'));
    await engine.stop().catch((err) => logger.error({ err }, 'segment engine stop failed'));
    await worker.stop().catch((err) => logger.error({ err }, 'campaign worker stop failed'));
    const results = await Promise.allSettled([bus.close(), new Promise<void>((r) => (ops ? ops.server.close(() => r()) : r()))]);
    await analytics.close().catch((err) => logger.error({ err }, 'ClickHouse close failed'));
    for (const r of results) if (r.status === 'rejected') logger.error({ err: r.reason }, 'shutdown step failed');
    process.exit(code);
  }
  process.once('SIGTERM', () => void shutdown('SIGTERM', 0));
  process.once('SIGINT', () => void shutdown('SIGINT', 0));
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
