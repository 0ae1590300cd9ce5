import { Registry } from 'prom-client';
import { KeyRing, consumerProblems, createLogger, followSuppressions } from '@evp/core';
import { closeServer, busMetrics, runService, serveOps, serviceLifecycle, watchKeysFile } from '@evp/http';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { loadValidatorConfig, validatorConsumerConfig } from './config';
import { startValidator, type RunningValidator } from './validator';

/**
 * Composition root: config → logger → Kafka + registry, keys file (privacy policy) → validator; /metrics, /healthz, /readyz on a
 * side port. A raw consumer that stops for good fails readiness and exits non-zero, so an
 * orchestrator restarts the process instead of leaving it up consuming nothing.
 */
async function main() {
  const config = loadValidatorConfig();
  const logger = createLogger('validator', config.LOG_LEVEL);
  const bus = createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'validator', logger, sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS });
  const registry = createConfluentRegistry({ url: config.SCHEMA_REGISTRY_URL });
  const metrics = new Registry();
  // The privacy policy and pseudonym keys: a bad file at start fails the start; reloads apply without a restart.
  const keys = KeyRing.fromFile(config.KEYS_FILE);
  const reloader = watchKeysFile({ path: config.KEYS_FILE, ring: keys, logger, intervalMs: config.KEYS_RELOAD_INTERVAL_MS, metrics });
  // Assigned once, but a shutdown can start before the assignments (a consumer dying during
  // start-up) and must then see undefined, not a const's temporal dead zone.
  // eslint-disable-next-line prefer-const
  let validator: RunningValidator | undefined;
  // eslint-disable-next-line prefer-const
  let ops: Awaited<ReturnType<typeof serveOps>> | undefined;
  const lifecycle = serviceLifecycle({
    logger,
    steps: () => [
      { what: 'validator (stop consuming, flush the producer)', run: () => validator?.stop() },
      { what: 'ops server', run: () => ops && closeServer(ops.server) },
      { what: 'Kafka', run: () => bus.close() },
      { what: 'keys file reloads', run: async () => reloader.close() },
    ],
  });
  ops = await serveOps({
    port: config.METRICS_PORT,
    metrics: Registry.merge([metrics, busMetrics(bus)]),
    readiness: async () => (validator ? consumerProblems({ [`validator (ingest.raw)`]: validator }) : ['starting']),
  });
  // Who is suppressed, read whole before the first raw message: an erased person's events are dropped.
  const suppressions = config.PRIVACY_HASH_KEY ? await followSuppressions(bus, config.PRIVACY_HASH_KEY) : undefined;
  await suppressions?.ready();
  validator = await startValidator({
    ...(suppressions ? { suppressions } : {}),
    bus,
    registry,
    logger,
    metrics,
    privacy: () => keys.privacyTable(),
    config: validatorConsumerConfig(config),
    onDead: lifecycle.exitOnDead('ingest.raw'),
  });
}

void runService(main);
