import { createServer } from 'node:http';
import { Registry } from 'prom-client';
import { ConfigError, createLogger } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { loadValidatorConfig } from './config';
import { startValidator } from './validator';

/** Composition root: config → logger → Kafka + registry → validator; /metrics on a side port. */
async function main() {
  const config = loadValidatorConfig();
  const logger = createLogger('validator', config.LOG_LEVEL);
  const bus = createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'validator', logger });
  const registry = createConfluentRegistry({ url: config.SCHEMA_REGISTRY_URL });
  const metrics = new Registry();
  const validator = await startValidator({ bus, registry, logger, metrics, normalize: { maxEventChars: config.MAX_EVENT_CHARS }, workers: config.VALIDATOR_WORKERS });
  const server = createServer(async (req, res) => {
    if (req.url === '/metrics') {
      res.setHeader('Content-Type', metrics.contentType);
      res.end(await metrics.metrics());
    } else if (req.url === '/healthz') res.end('{"status":"ok"}');
    else res.writeHead(404).end();
  }).listen(config.METRICS_PORT);

  const shutdown = async () => {
    logger.info('shutting down: stop consuming, flush producer');
    server.close();
    await validator.stop();
    await bus.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
