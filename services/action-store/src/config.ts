import { z } from 'zod';
import { envFragments, parseConfig } from '@evp/core';

/** The only place the action store reads the environment. */
const schema = z
  .object({
    PORT: envFragments.port.default(8083),
    REDIS_URL: envFragments.url.default('redis://127.0.0.1:6379'),
    /** Every Redis key starts with this, then `{<app_id>}:`. */
    REDIS_KEY_PREFIX: z.string().min(1).default('evp:act:'),
    ...envFragments.keys,
    LOG_LEVEL: envFragments.logLevel,
    /** Most actions one pull returns (spec 8 leaves it open); `more` says when some were left. */
    PULL_MAX: envFragments.positiveInt.max(10_000).default(1000),
    MAX_BODY_BYTES: envFragments.positiveInt.default(16 * 1024 * 1024),
    /** How long delivered/expired actions are remembered for idempotency and feedback. */
    RETENTION_MS: envFragments.positiveInt.default(7 * 24 * 3600 * 1000),
    SWEEP_INTERVAL_MS: envFragments.positiveInt.default(60_000),
    RETRY_AFTER_SECONDS: envFragments.positiveInt.default(1),
    /** Browser origins allowed to call the SDK pull; the API-key routes never answer CORS. */
    CORS_ORIGINS: envFragments.corsOrigins,
    /** Without brokers the service runs HTTP only (no actions.requested, no feedback, no action log relay). */
    KAFKA_BROKERS: envFragments.kafkaBrokers.optional(),
    KAFKA_SESSION_TIMEOUT_MS: envFragments.kafkaSessionTimeoutMs,
    SCHEMA_REGISTRY_URL: envFragments.url.optional(),
    CONSUMER_GROUP_PREFIX: z.string().min(1).default('action-store'),
    /** Action log entries the relay moves to actions.log per round (whole outbox records). */
    ACTION_LOG_BATCH: envFragments.positiveInt.max(100_000).default(1000),
    /** How often the relay looks at an empty outbox. */
    ACTION_LOG_IDLE_MS: envFragments.positiveInt.default(200),
    /** How long an outbox record read by one replica's relay stays its own before another may take it over. */
    ACTION_LOG_LEASE_MS: envFragments.positiveInt.default(30_000),
  })
  .superRefine((c, ctx) => {
    if (c.KAFKA_BROKERS && !c.SCHEMA_REGISTRY_URL) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['SCHEMA_REGISTRY_URL'], message: 'required with KAFKA_BROKERS (feedback events are Avro)' });
    }
  });

export type ActionStoreConfig = z.infer<typeof schema>;
export const loadActionStoreConfig = (env: Record<string, string | undefined> = process.env): ActionStoreConfig => parseConfig(schema, env);
