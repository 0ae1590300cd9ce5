import { Registry } from 'prom-client';
import { ConfigError, consumerProblems, createLogger } from '@evp/core';
import { serveOps } from '@evp/http';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { loadValidatorConfig } from './config';
import { startValidator, type RunningValidator } from './validator';

/**
 * Composition root: config → logger → Kafka + registry → validator; /metrics, /healthz, /readyz on a
 * side port. A raw consumer that stops for good fails readiness and exits non-zero, so an
 * orchestrator restarts the process instead of leaving it up consuming nothing.
 */
async function main() {
  const config = loadValidatorConfig();
  const logger = createLogger('validator', config.LOG_LEVEL);
  const bus = createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'validator', logger, sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS });
  const registry = createConfluentRegistry({ url: config.SCHEMA_REGISTRY_URL });
  const metrics = new Registry();
  // Assigned once, but shutdown() can run before the assignment (a consumer dying during start-up)
  // and must then see undefined, not a const's temporal dead zone.
  // eslint-disable-next-line prefer-const
  let validator: RunningValidator | undefined;
  let stopping = false;
  const shutdown = async (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down: stop consuming, flush producer');
    const results = await Promise.allSettled([validator?.stop(), new Promise<void>((r) => ops.server.close(() => r()))]);
    await bus.close();
    for (const r of results) if (r.status === 'rejected') logger.error({ err: r.reason }, 'shutdown step failed');
    process.exit(code);
  };
  const ops = await serveOps({
    port: config.METRICS_PORT,
    metrics,
    readiness: async () => (validator ? consumerProblems({ [`validator (ingest.raw)`]: validator }) : ['starting']),
  });
  validator = await startValidator({
    bus,
    registry,
    logger,
    metrics,
    normalize: { maxEventChars: config.MAX_EVENT_CHARS },
    workers: config.VALIDATOR_WORKERS,
    onDead: (err) => {
      logger.fatal({ err }, 'the ingest.raw consumer stopped for good: not ready, exiting to be restarted');
      void shutdown('consumer dead', 1);
    },
  });
  process.once('SIGTERM', () => void shutdown('SIGTERM', 0));
  process.once('SIGINT', () => void shutdown('SIGINT', 0));
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
