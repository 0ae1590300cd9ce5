import Redis from 'ioredis';
import { RedisActionStore, systemClock } from '@evp/actions';
import { Registry } from 'prom-client';
import { createClickHouseHttpAnalytics, createHttpAnalystSql, ensureClickHouseDatabase, runMigrations } from '@evp/clickhouse';
import { consumerProblems, createInMemoryLeaseStore, createLogger, followSuppressions } from '@evp/core';
import {
  closeServer,
  createAccessLog,
  createHttpMetrics,
  createInMemoryAccessLogStorage,
  createRedisAccessLogStorage,
  createRedisLeaseStore,
  busMetrics,
  listen,
  runService,
  serveOps,
  serviceKeys,
  serviceLifecycle,
} from '@evp/http';
import { createClickHouseHttpHandler } from '@evp/clickhouse-http';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { campaignWorkerConfig, clickhouseOptions, loadSegmenterConfig, segmentEngineConfig, sinkConfig } from './config';
import { createSegmenterApp, loadConsoleAssets } from './api';
import { createSegmenterParts } from './segmenter-parts';
import { createPrivacyService, startPrivacyProcessor, suppressionLog } from './privacy';

/**
 * Composition root: config → logger → keys (reloaded on change; last uses in Redis) → the singleton
 * timers' leases (Redis, else in memory) → ClickHouse (+ migrations) → Kafka + registry → segment
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
  // Keys' last uses, user token counts and the access log live in Redis here, and an erasure deletes
  // the person's actions there: without it GET /v1/keys shows this replica's own uses, GET
  // /v1/keys/user-tokens no counts (the gateway and action store make them) and erasures leave the
  // action store alone (each request says so).
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 }) : undefined;
  redis?.on('error', (err) => logger.debug({ err }, 'redis connection error'));
  const httpMetrics = createHttpMetrics('segmenter');
  const keys = serviceKeys({ config, logger, metrics: httpMetrics.registry, ...(redis ? { redis } : {}) });
  // The access log (docs/privacy.md, "Access log") is shared with the action store through Redis;
  // without REDIS_URL it lives in this process and is lost at exit, which is said at start.
  const accessLog = createAccessLog(redis ? createRedisAccessLogStorage({ redis }) : createInMemoryAccessLogStorage());
  if (!redis) logger.warn('REDIS_URL is not set: the access log of reads is kept in memory only and lost at exit');
  // The singleton timers (the campaign allocation, the expiry of ended memberships) run a turn only
  // while holding their lease: through Redis one replica at a time runs each; in memory each replica
  // holds its own, so every replica would run them.
  const lease = redis ? createRedisLeaseStore({ redis, prefix: config.LEASE_KEY_PREFIX }) : createInMemoryLeaseStore();
  if (!redis)
    logger.warn(
      'REDIS_URL is not set: the campaign allocation and membership expiry timers hold in-memory leases, which assume this is the only segmenter replica running them',
    );
  const chOptions = clickhouseOptions(config);
  if (config.CLICKHOUSE_MIGRATE_ON_START) await ensureClickHouseDatabase(chOptions);
  const analytics = createClickHouseHttpAnalytics(chOptions);
  const analystSql = config.ANALYST_SQL_CLICKHOUSE_URL
    ? createHttpAnalystSql({ url: config.ANALYST_SQL_CLICKHOUSE_URL, database: chOptions.database })
    : undefined;
  if (config.CLICKHOUSE_MIGRATE_ON_START) {
    const dir = config.CLICKHOUSE_MIGRATIONS_DIR;
    const result = await runMigrations({ analytics, logger, ...(dir ? { dir } : {}) });
    logger.info({ applied: result.applied }, 'ClickHouse schema up to date');
  }
  const bus = createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'segmenter', logger, sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS });
  const registry = createConfluentRegistry({ url: config.SCHEMA_REGISTRY_URL, clientId: 'segmenter' });
  const metrics = new Registry();
  // Assigned once each, but a shutdown can start before the assignments (a consumer dying during
  // start-up) and must then see undefined, not a const's temporal dead zone.
  // eslint-disable-next-line prefer-const
  let ops: Awaited<ReturnType<typeof serveOps>> | undefined;
  let http: Awaited<ReturnType<typeof listen>> | undefined;
  // eslint-disable-next-line prefer-const -- assigned once, after the lifecycle that stops it (which may run first)
  let privacyProcessor: ReturnType<typeof startPrivacyProcessor> | undefined;
  // The parts are read when a shutdown starts (a signal or a dead consumer, both after they exist).
  const lifecycle = serviceLifecycle({
    logger,
    steps: () => [
      { what: 'HTTP', run: () => http && closeServer(http.server) },
      { what: 'privacy processor (the pass in hand finishes)', run: () => privacyProcessor?.stop() },
      { what: 'sink, segment engine, campaign worker', run: () => parts.stop() },
      { what: 'Kafka', run: () => bus.close() },
      { what: 'ops server', run: () => ops && closeServer(ops.server) },
      { what: 'ClickHouse', run: () => Promise.all([analytics.close(), analystSql?.close()]) },
      { what: 'keys (last uses flushed), Redis', run: () => keys.close().then(() => redis?.disconnect()) },
    ],
  });
  // Who is suppressed, read whole before the sink and the campaign worker start.
  const suppressions = config.PRIVACY_HASH_KEY ? await followSuppressions(bus, config.PRIVACY_HASH_KEY) : undefined;
  await suppressions?.ready();
  const parts = createSegmenterParts({
    ...(suppressions ? { suppressions } : {}),
    analytics,
    bus,
    registry,
    logger,
    metrics,
    sink: sinkConfig(config),
    segments: segmentEngineConfig(config),
    campaigns: campaignWorkerConfig(config),
    parts: config.SEGMENTER_PARTS,
    // Read per batch: a change of the keys file's retention applies without a restart.
    retention: (appId) => keys.ring.retention(appId),
    // The apps whose ended memberships the engine expires (SEGMENTS_EXPIRY_INTERVAL_MS), as the keys file lists them now.
    apps: () => keys.ring.apps(),
    lease,
    onDead: lifecycle.exitOnDead,
  });
  const { segments, campaigns } = parts;
  await parts.start();
  // Erasure and export: served, and carried out, only with a hash key (the requests are stored by it).
  // An erasure deletes the person's actions in the action store's Redis too, when there is one.
  const actions = redis && new RedisActionStore({ redis, clock: systemClock(), prefix: config.ACTIONS_REDIS_KEY_PREFIX });
  const privacy = config.PRIVACY_HASH_KEY
    ? createPrivacyService({
        analytics,
        logger: logger.child({ part: 'privacy' }),
        hashKey: config.PRIVACY_HASH_KEY,
        ...(actions ? { actions } : {}),
        ...suppressionLog(await bus.producer()),
      })
    : undefined;
  privacyProcessor =
    privacy && config.SEGMENTER_PARTS.includes('api') ? startPrivacyProcessor({ privacy, logger, intervalMs: config.PRIVACY_INTERVAL_MS }) : undefined;
  // /healthz: the process answers; /readyz: ClickHouse answers and the consumers are alive.
  const readiness = async () => [...consumerProblems(parts.consumers), ...((await analytics.ping()) ? [] : ['clickhouse: not reachable'])];
  // The public API (request verdicts, the inspector) on PORT, behind the edge; its request series
  // join the sink's on the side port's /metrics.
  const api = createSegmenterApp({
    analytics,
    keys: keys.ring,
    logger,
    metrics: httpMetrics,
    readiness,
    segments: segments.service,
    campaigns: campaigns.service,
    ...(privacy ? { privacy } : {}),
    corsOrigins: config.CORS_ORIGINS,
    accessLog,
    ...(config.CONSOLE_ASSETS_DIR ? { console: loadConsoleAssets({ dir: config.CONSOLE_ASSETS_DIR }) } : {}),
  });
  // Analysts' SQL (docs/analytics.md, "docker-compose"): ClickHouse's HTTP interface under /clickhouse/
  // on the API's port, run on the server as the key's own user, every statement in the access log.
  const sqlGateway =
    analystSql &&
    createClickHouseHttpHandler({
      sql: analystSql,
      keys: keys.ring,
      logger: logger.child({ part: 'clickhouse-http' }),
      database: chOptions.database,
      prefix: '/clickhouse',
      accessLog,
    });
  const serveApi = config.SEGMENTER_PARTS.includes('api');
  const apiMetrics = serveApi ? [api.metrics.registry] : [];
  ops = await serveOps({ port: config.METRICS_PORT, metrics: Registry.merge([metrics, ...apiMetrics, busMetrics(bus)]), readiness });
  if (serveApi) http = await listen((req, res) => (sqlGateway && /^\/clickhouse(\/|\?|$)/.test(req.url ?? '') ? sqlGateway : api.app)(req, res), config.PORT);
  logger.info({ metricsPort: ops.port, port: http?.port, parts: config.SEGMENTER_PARTS }, 'segmenter running');
}

void runService(main);
