import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { envFragments, parseConfig } from '@evp/core';

const schema = z.object({
  KAFKA_BROKERS: envFragments.kafkaBrokers,
  KAFKA_SESSION_TIMEOUT_MS: envFragments.kafkaSessionTimeoutMs,
  SCHEMA_REGISTRY_URL: envFragments.url,
  LOG_LEVEL: envFragments.logLevel,
  MAX_EVENT_CHARS: envFragments.positiveInt.default(64 * 1024),
  METRICS_PORT: envFragments.port.default(9102),
  /**
   * Encode worker threads (encode-pool.ts). `auto`: one per CPU the process may run on; 0 works on
   * the main thread. Set it to the container's CPU quota where that is below the machine's CPUs.
   */
  VALIDATOR_WORKERS: z
    .union([z.literal('auto'), z.coerce.number().int().min(0).max(64)])
    .default('auto')
    .transform((v) => (v === 'auto' ? availableParallelism() : v)),
});

export type ValidatorConfig = z.infer<typeof schema>;
export const loadValidatorConfig = (env: Record<string, string | undefined> = process.env): ValidatorConfig => parseConfig(schema, env);
