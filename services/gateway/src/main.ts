import Redis from 'ioredis';
import { createLogger, followSuppressions } from '@evp/core';
import { createHttpMetrics, listen, runService, serviceKeys, serviceLifecycle } from '@evp/http';
import { createKafkaBus } from '@evp/kafka';
import { createGatewayApp } from './app';
import { coalescingProducer } from './coalescing-producer';
import { loadGatewayConfig } from './config';
import { createInMemoryRateLimiter, createRedisRateLimiter } from './rate-limit';
import { scriptFilesFromDir } from './sdk-script';
import { gatewayReadiness } from './readiness';
import { shutdownGateway } from './shutdown';

/** Composition root: config → logger → Kafka producer, Redis → keys (reloaded on change) → HTTP; shutdown in reverse order. */
async function main() {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const bus = createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'gateway', logger, produceTimeoutMs: config.PRODUCE_TIMEOUT_MS });
  // Concurrent requests share produce requests; each still answers only after its own ack.
  const producer = coalescingProducer(await bus.producer(), { queueTimeoutMs: config.PRODUCE_TIMEOUT_MS });
  const policy = { limit: config.RATE_LIMIT_REQUESTS, windowMs: config.RATE_LIMIT_WINDOW_SECONDS * 1000 };
  // No offline queue: while Redis is down a check fails at once and the limiter fails open.
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 }) : undefined;
  redis?.on('error', (err) => logger.debug({ err }, 'redis connection error'));
  const httpMetrics = createHttpMetrics('gateway');
  // Reloaded on change; last uses and the last hour's user token counts shared through Redis when there is one.
  const keys = serviceKeys({ config, logger, metrics: httpMetrics.registry, ...(redis ? { redis } : {}) });
  const rateLimiter = redis ? createRedisRateLimiter({ redis, policy, prefix: config.RATE_LIMIT_PREFIX }) : createInMemoryRateLimiter(policy);
  // Who is suppressed, read whole before the first request: an erased user's upload is never stored.
  const suppressions = config.PRIVACY_HASH_KEY ? await followSuppressions(bus, config.PRIVACY_HASH_KEY) : undefined;
  await suppressions?.ready();
  let draining = false;
  const { app } = createGatewayApp({
    producer,
    keys: keys.ring,
    logger,
    metrics: httpMetrics,
    corsOrigins: config.CORS_ORIGINS,
    rateLimiter,
    limits: {
      maxBodyBytes: config.MAX_BODY_BYTES,
      maxEventsPerRequest: config.MAX_EVENTS_PER_REQUEST,
      maxCatalogRecordsPerRequest: config.MAX_CATALOG_RECORDS_PER_REQUEST,
      retryAfterSeconds: config.RETRY_AFTER_SECONDS,
    },
    readiness: gatewayReadiness({ bus, isDraining: () => draining }),
    webSdk: scriptFilesFromDir(config.WEB_SDK_DIR),
    ...(suppressions ? { suppressions } : {}),
  });
  const { server, port } = await listen(app, config.PORT);
  logger.info({ port, rateLimit: { ...policy, shared: Boolean(redis) } }, 'gateway listening');

  // The gateway's own drain (stop accepting, answer in-flight requests, flush the producer) is one step.
  serviceLifecycle({
    logger,
    steps: () => [
      {
        what: 'drain (stop accepting, finish in-flight, flush the producer)',
        run: () =>
          shutdownGateway({
            server,
            producer,
            logger,
            graceMs: config.SHUTDOWN_GRACE_MS,
            onDrain: () => void (draining = true),
            closers: [
              () => rateLimiter.close(),
              async () => suppressions?.close(),
              () => keys.close(),
              async () => void redis?.disconnect(),
              () => bus.close(),
            ],
          }),
      },
    ],
  });
}

void runService(main);
