import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import Redis from 'ioredis';
import { Registry } from 'prom-client';
import { RedisActionStore, systemClock } from '@evp/actions';
import { ConfigError, createInMemoryLeaseStore, createLogger, followSuppressions, type Analytics } from '@evp/core';
import { createRedisLeaseStore, serviceKeys } from '@evp/http';
import { createChdbAnalytics } from '@evp/embedded';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import {
  campaignWorkerConfig,
  createPrivacyService,
  createSegmenterApp,
  createSegmenterParts,
  runMigrations,
  segmentEngineConfig,
  sinkConfig,
  startPrivacyProcessor,
  suppressionLog,
} from '@evp/segmenter';
import { loadSinkChdbConfig } from './config';
import { withInsertFaults } from './faulty-analytics';
import { startQueryServer } from './query-server';
import { createRemoteAnalytics } from './remote-analytics';

/**
 * Composition root of the segmenter on chdb, the real sink and segment engine code on the real
 * broker and registry with an embedded ClickHouse: what the fault suite and the pipeline bench run
 * where no ClickHouse server exists. As in the service (services/segmenter/src/main.ts), the sink's
 * stored rows become segment work and event triggers, the campaign worker turns triggers (segment
 * entries, events, schedules, API calls) into actions, and the public API (segments, campaigns,
 * request verdicts) answers on PORT.
 * SINK_CHDB_ROLE (config.ts) runs the store or the segmenter alone, for replicated segmenters.
 * Insert faults are injected here (FAULT_* in config.ts), never in the service. Shutdown as the
 * service's: stop answering, stop consuming (buffered rows inserted and committed), stop the engine,
 * stop the campaign worker (the batch in hand finishes), leave Kafka, close ClickHouse.
 */
async function main() {
  const config = loadSinkChdbConfig();
  const logger = createLogger('segmenter-chdb', config.segmenter.LOG_LEVEL);
  const metrics = new Registry();
  // The store: chdb itself and (below) its side port (`all` and `store`); a `segmenter` replica has neither.
  let chdb: Analytics | undefined;
  let server: Server | undefined;
  if (config.SINK_CHDB_ROLE !== 'segmenter') {
    mkdirSync(config.CHDB_PATH as string, { recursive: true });
    chdb = createChdbAnalytics({ path: config.CHDB_PATH as string, database: config.CHDB_DATABASE });
    await runMigrations({ analytics: chdb, logger });
  }
  // The segmenter: on chdb in this process, or on the store's side port.
  let segmenter:
    | {
        parts: ReturnType<typeof createSegmenterParts>;
        bus: ReturnType<typeof createKafkaBus>;
        http: Server;
        keys: ReturnType<typeof serviceKeys>;
        privacy?: ReturnType<typeof startPrivacyProcessor>;
        redis?: Redis;
      }
    | undefined;
  if (config.SINK_CHDB_ROLE !== 'store') {
    const analytics = chdb ?? createRemoteAnalytics(config.CHDB_REMOTE_URL as string);
    const sinkAnalytics = withInsertFaults(analytics, { table: 'events', refuse: config.FAULT_REFUSE_INSERTS, half: config.FAULT_HALF_INSERTS }, (kind) =>
      logger.warn({ kind }, 'injected ClickHouse insert fault'),
    );
    const bus = createKafkaBus({
      brokers: config.segmenter.KAFKA_BROKERS,
      clientId: 'segmenter',
      logger,
      sessionTimeoutMs: config.segmenter.KAFKA_SESSION_TIMEOUT_MS,
    });
    const registry = createConfluentRegistry({ url: config.segmenter.SCHEMA_REGISTRY_URL, clientId: 'segmenter' });
    const keys = serviceKeys({ config: config.segmenter, logger, metrics });
    // Erasure as in the service: with a hash key, suppressions read whole before the sink starts, the
    // processor on this process, the action store's Redis erased when REDIS_URL is set.
    const hashKey = config.segmenter.PRIVACY_HASH_KEY;
    const suppressions = hashKey ? await followSuppressions(bus, hashKey) : undefined;
    await suppressions?.ready();
    // As in the service: replicas (SINK_CHDB_ROLE=segmenter) share the timers' leases through Redis.
    const redis = config.segmenter.REDIS_URL ? new Redis(config.segmenter.REDIS_URL, { maxRetriesPerRequest: 1 }) : undefined;
    const parts = createSegmenterParts({
      ...(suppressions ? { suppressions } : {}),
      lease: redis ? createRedisLeaseStore({ redis, prefix: config.segmenter.LEASE_KEY_PREFIX }) : createInMemoryLeaseStore(),
      analytics,
      sinkAnalytics,
      bus,
      registry,
      logger,
      metrics,
      sink: sinkConfig(config.segmenter),
      segments: segmentEngineConfig(config.segmenter),
      campaigns: campaignWorkerConfig(config.segmenter),
      retention: (appId) => keys.ring.retention(appId),
      apps: () => keys.ring.apps(),
    });
    await parts.start();
    const actions = redis && new RedisActionStore({ redis, clock: systemClock(), prefix: config.segmenter.ACTIONS_REDIS_KEY_PREFIX });
    const pauseMs = config.FAULT_ERASURE_PAUSE_MS;
    const privacy = hashKey
      ? createPrivacyService({
          analytics,
          logger: logger.child({ part: 'privacy' }),
          hashKey,
          ...(actions ? { actions } : {}),
          ...(pauseMs > 0 ? { betweenTables: () => new Promise<void>((r) => setTimeout(r, pauseMs)) } : {}),
          ...suppressionLog(await bus.producer()),
        })
      : undefined;
    const processor = privacy && startPrivacyProcessor({ privacy, logger, intervalMs: config.segmenter.PRIVACY_INTERVAL_MS });
    const api = createSegmenterApp({
      analytics,
      keys: keys.ring,
      logger,
      segments: parts.segments.service,
      campaigns: parts.campaigns.service,
      ...(privacy ? { privacy } : {}),
    });
    const http = createServer(api.app);
    await new Promise<void>((resolve) => http.listen(config.segmenter.PORT, '127.0.0.1', resolve));
    segmenter = { parts, bus, http, keys, ...(processor ? { privacy: processor } : {}), ...(redis ? { redis } : {}) };
  }
  // Last: the side port answering /healthz is what the fault suite waits for, so the consumers run by then.
  if (chdb) server = await startQueryServer({ analytics: chdb, metrics, port: config.SINK_QUERY_PORT as number });
  logger.info(
    { role: config.SINK_CHDB_ROLE, port: config.SINK_QUERY_PORT, apiPort: config.segmenter.PORT, chdb: config.CHDB_PATH ?? config.CHDB_REMOTE_URL },
    'segmenter sink and segments on chdb running',
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: stop consuming, insert buffered rows, close');
    await segmenter?.privacy?.stop().catch((err) => logger.error({ err }, 'privacy processor stop failed'));
    await segmenter?.parts.stop().catch((err) => logger.error({ err }, 'segmenter parts stop failed'));
    const servers = [server, segmenter?.http].filter((s): s is Server => s !== undefined);
    await Promise.allSettled([segmenter?.keys.close(), segmenter?.bus.close(), ...servers.map((s) => new Promise<void>((r) => s.close(() => r())))]);
    segmenter?.redis?.disconnect();
    await chdb?.close().catch((err) => logger.error({ err }, 'chdb close failed'));
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
