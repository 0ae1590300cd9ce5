import { z } from 'zod';
import { envFragments, parseConfig } from '@evp/core';

const schema = z.object({
  PORT: envFragments.port.default(8080),
  KAFKA_BROKERS: envFragments.kafkaBrokers,
  ...envFragments.keys,
  LOG_LEVEL: envFragments.logLevel,
  MAX_BODY_BYTES: envFragments.positiveInt.default(5 * 1024 * 1024),
  MAX_EVENTS_PER_REQUEST: envFragments.positiveInt.default(5000),
  MAX_CATALOG_RECORDS_PER_REQUEST: envFragments.positiveInt.default(5000),
  PRODUCE_TIMEOUT_MS: envFragments.positiveInt.default(5000),
  RETRY_AFTER_SECONDS: envFragments.positiveInt.default(5),
  CORS_ORIGINS: envFragments.corsOrigins,
  /** Shared rate-limit counters; without it each replica counts alone (in memory). */
  REDIS_URL: envFragments.url.optional(),
  /** Generous by default (10k requests/s per key over a minute): a guard against runaway clients, not a quota. */
  RATE_LIMIT_REQUESTS: envFragments.positiveInt.default(600_000),
  RATE_LIMIT_WINDOW_SECONDS: envFragments.positiveInt.default(60),
  RATE_LIMIT_PREFIX: z.string().default('gw:rl:'),
  SHUTDOWN_GRACE_MS: envFragments.positiveInt.default(25_000),
  /** The web library's script build (web.js, web-messages.js), served at /sdk/; the image's build writes it here. */
  WEB_SDK_DIR: z.string().min(1).default('/app/sdk'),
  /** Drops the envelopes of suppressed (erased) users (docs/privacy.md); unset: none is dropped. */
  PRIVACY_HASH_KEY: envFragments.privacyHashKey,
});

export type GatewayConfig = z.infer<typeof schema>;
export const loadGatewayConfig = (env: Record<string, string | undefined> = process.env): GatewayConfig => parseConfig(schema, env);
