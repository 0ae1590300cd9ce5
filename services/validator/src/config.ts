import { z } from 'zod';
import { envFragments, parseConfig } from '@evp/core';

const schema = z.object({
  KAFKA_BROKERS: envFragments.kafkaBrokers,
  SCHEMA_REGISTRY_URL: envFragments.url,
  LOG_LEVEL: envFragments.logLevel,
  MAX_EVENT_CHARS: envFragments.positiveInt.default(64 * 1024),
  METRICS_PORT: envFragments.port.default(9102),
});

export type ValidatorConfig = z.infer<typeof schema>;
export const loadValidatorConfig = (env: Record<string, string | undefined> = process.env): ValidatorConfig =>
  parseConfig(schema, env);
