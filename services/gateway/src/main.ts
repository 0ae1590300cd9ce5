import { ConfigError, KeyRing, createLogger, topics } from '@evp/core';
import { closeServer, listen } from '@evp/http';
import { createKafkaBus } from '@evp/kafka';
import { createGatewayApp } from './app';
import { loadGatewayConfig } from './config';

/** Composition root: config → logger → Kafka producer → HTTP; shutdown in reverse order. */
async function main() {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const keys = KeyRing.fromFile(config.KEYS_FILE);
  const bus = createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'gateway', logger, produceTimeoutMs: config.PRODUCE_TIMEOUT_MS });
  const producer = await bus.producer();
  const { app } = createGatewayApp({
    producer,
    keys,
    logger,
    corsOrigins: config.CORS_ORIGINS,
    limits: {
      maxBodyBytes: config.MAX_BODY_BYTES,
      maxEventsPerRequest: config.MAX_EVENTS_PER_REQUEST,
      retryAfterSeconds: config.RETRY_AFTER_SECONDS,
    },
    readiness: async () => {
      try {
        return (await bus.listTopics()).includes(topics.raw) ? [] : [`topic ${topics.raw} is missing`];
      } catch (err) {
        return [`kafka: ${(err as Error).message}`];
      }
    },
  });
  const { server, port } = await listen(app, config.PORT);
  logger.info({ port }, 'gateway listening');

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down: stop accepting, finish in-flight, flush producer');
    await closeServer(server).catch((err) => logger.error({ err }, 'http close failed'));
    await Promise.allSettled([producer.close()]);
    await bus.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  // Config errors list every problem at once; anything else is unexpected at start-up.
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
