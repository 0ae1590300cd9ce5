import { consumerProblems, createLogger, followSuppressions, type BusProducer, type Subscription } from '@evp/core';
import {
  closeServer,
  createAccessLog,
  createHttpMetrics,
  createRedisAccessLogStorage,
  busMetrics,
  listen,
  runService,
  serviceKeys,
  serviceLifecycle,
} from '@evp/http';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { canonicalFromAvro } from '@evp/schemas';
import { RedisActionStore, systemClock } from '@evp/actions';
import { createActionStoreApp } from './app';
import { loadActionStoreConfig } from './config';
import { startActionRequestsConsumer } from './consumers/action-requests';
import { startFeedbackConsumer } from './consumers/feedback';
import { startLogRelay, type LogRelay } from './log-relay';
import { createRedisClient } from './redis-connection';
import { startSweeper } from './sweeper';

/**
 * Composition root: config → logger → Redis → keys (reloaded on change) → store → (Kafka consumers, action log relay) → sweeper → HTTP.
 * Shutdown in reverse: stop accepting HTTP, stop consuming, stop sweeping, let the relay finish its
 * batch, close Kafka, close Redis.
 */
async function main() {
  const config = loadActionStoreConfig();
  const logger = createLogger('action-store', config.LOG_LEVEL);
  const redis = createRedisClient(config);
  redis.on('error', (err) => logger.warn({ err }, 'redis connection error'));
  await redis.connect();
  const httpMetrics = createHttpMetrics('action_store');
  // Reloaded on change; last uses and the last hour's user token counts shared with the other services through the same Redis.
  const keys = serviceKeys({ config, logger, redis, metrics: httpMetrics.registry });
  const store = new RedisActionStore({
    redis,
    clock: systemClock(),
    prefix: config.REDIS_KEY_PREFIX,
    retentionMs: config.RETENTION_MS,
    logLeaseMs: config.ACTION_LOG_LEASE_MS,
    replicaWait: config.REDIS_WAIT_REPLICAS > 0 ? { replicas: config.REDIS_WAIT_REPLICAS, timeoutMs: config.REDIS_WAIT_TIMEOUT_MS } : undefined,
    onUnconfirmed: (what, replicas) => logger.warn({ what, replicas }, 'Redis write answered before a replica confirmed it (WAIT timed out)'),
  });

  const bus = config.KAFKA_BROKERS
    ? createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'action-store', logger, sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS })
    : undefined;
  // Who is suppressed (read from the bus, whole, before the first request): an erased user gets no action.
  const suppressions = bus && config.PRIVACY_HASH_KEY ? await followSuppressions(bus, config.PRIVACY_HASH_KEY) : undefined;
  await suppressions?.ready();
  const consumers: Record<string, Subscription> = {};
  const { app, metrics } = createActionStoreApp({
    ...(suppressions ? { suppressions } : {}),
    store,
    // Not ready while Redis is away or a consumer is dead (that one also ends the process, below).
    readiness: async () => [...consumerProblems(consumers), ...((await store.ping()) ? [] : ['action store: not reachable'])],
    keys: keys.ring,
    metrics: httpMetrics,
    logger,
    pullMax: config.PULL_MAX,
    maxBodyBytes: config.MAX_BODY_BYTES,
    retryAfterSeconds: config.RETRY_AFTER_SECONDS,
    corsOrigins: config.CORS_ORIGINS,
    accessLog: createAccessLog(createRedisAccessLogStorage({ redis })),
  });

  let relay: LogRelay | undefined;
  let producer: BusProducer | undefined;
  // Its consumers' dead letters on the app's /metrics.
  if (bus) busMetrics(bus, metrics.registry);
  if (bus && config.SCHEMA_REGISTRY_URL) {
    const registry = createConfluentRegistry({ url: config.SCHEMA_REGISTRY_URL });
    consumers['actions.requested'] = await startActionRequestsConsumer({
      ...(suppressions ? { suppressions } : {}),
      bus,
      store,
      logger,
      groupId: `${config.CONSUMER_GROUP_PREFIX}.requests`,
      metrics: metrics.registry,
    });
    consumers.feedback = await startFeedbackConsumer({
      bus,
      store,
      logger,
      groupId: `${config.CONSUMER_GROUP_PREFIX}.feedback`,
      fromCore: config.FEEDBACK_FROM_CORE,
      metrics: metrics.registry,
      decode: async (value) => canonicalFromAvro((await registry.decode(value)) as Record<string, unknown>),
    });
    producer = await bus.producer();
    relay = startLogRelay({
      store,
      producer,
      registry,
      logger,
      metrics: metrics.registry,
      batchMax: config.ACTION_LOG_BATCH,
      idleMs: config.ACTION_LOG_IDLE_MS,
    });
  } else {
    // The store still logs (atomically, into its outbox); a replica with Kafka relays it.
    logger.warn('KAFKA_BROKERS not set: HTTP only (no actions.requested, no feedback, no action log relay: the outbox grows)');
  }
  const sweeper = startSweeper({ store, logger, intervalMs: config.SWEEP_INTERVAL_MS });
  const { server, port } = await listen(app, config.PORT);
  logger.info({ port }, 'action-store listening');

  const lifecycle = serviceLifecycle({
    logger,
    steps: () => [
      { what: 'consumer watch', run: () => clearInterval(watch) },
      { what: 'HTTP', run: () => closeServer(server) },
      { what: 'consumers', run: () => Promise.all(Object.values(consumers).map((c) => c.stop())) },
      { what: 'sweeper', run: () => sweeper.stop() },
      { what: 'action log relay (finishes its batch)', run: () => relay?.stop() },
      { what: 'producer', run: () => producer?.close() },
      { what: 'Kafka', run: () => bus?.close() },
      { what: 'store', run: () => store.close() },
      { what: 'keys (last uses and user token counts flushed)', run: () => keys.close() },
      { what: 'Redis', run: () => redis.quit().catch(() => redis.disconnect()) },
    ],
  });
  // A consumer that stopped for good leaves the process up consuming nothing: /readyz already says
  // so; exiting non-zero lets an orchestrator restart it.
  const watch = setInterval(() => {
    const dead = Object.entries(consumers).filter(([, c]) => c.health().state === 'dead');
    if (dead.length === 0) return;
    logger.fatal({ problems: consumerProblems(Object.fromEntries(dead)) }, 'a consumer stopped for good: exiting to be restarted');
    void lifecycle.shutdown('consumer dead', 1);
  }, 1_000);
}

void runService(main);
