import { z } from 'zod';
import { DEFAULT_LOG_LEASE_MS, DEFAULT_PULL_MAX, DEFAULT_RETENTION_MS } from '@evp/actions';
import { envFragments, parseConfig } from '@evp/core';

/** `a:1,b:2` → [{ host: 'a', port: 1 }, …]; a bad entry fails the config. */
function hostPorts(list: string, ctx: z.RefinementCtx): { host: string; port: number }[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const m = /^(.+):(\d{1,5})$/.exec(entry);
      if (!m || Number(m[2]) > 65535) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `expected host:port, got ${JSON.stringify(entry)}` });
        return { host: '', port: 0 };
      }
      return { host: m[1] as string, port: Number(m[2]) };
    });
}

/** The only place the action store reads the environment. */
const schema = z
  .object({
    PORT: envFragments.port.default(8083),
    /** One Redis (or the primary when no Sentinel is configured). */
    /** Refuses actions for suppressed (erased) users (docs/privacy.md); needs KAFKA_BROKERS. Unset: none is refused. */
    PRIVACY_HASH_KEY: envFragments.privacyHashKey,
    REDIS_URL: envFragments.url.default('redis://127.0.0.1:6379'),
    /**
     * Sentinel addresses (`host:port,…`): when set, the store asks them for REDIS_MASTER_NAME's
     * primary and follows failovers; REDIS_URL is then not used (docs/reliability.md "Redis failover").
     */
    REDIS_SENTINELS: z.string().min(1).transform(hostPorts).optional(),
    REDIS_MASTER_NAME: z.string().min(1).default('evp-actions'),
    /**
     * Replicas that must hold a delivery or a create before it is answered (`WAIT`); 0 = do not wait.
     * Replication is asynchronous: without it a failover may lose deliveries the old primary marked
     * (the actions are delivered again) and creates it acknowledged.
     */
    REDIS_WAIT_REPLICAS: z.coerce.number().int().min(0).max(16).default(0),
    /** How long one `WAIT` may take before the store answers anyway (a pull) or 503 (a create, which the caller may repeat). */
    REDIS_WAIT_TIMEOUT_MS: envFragments.positiveInt.default(200),
    /** Every Redis key starts with this, then `{<app_id>}:`. */
    REDIS_KEY_PREFIX: z.string().min(1).default('evp:act:'),
    ...envFragments.keys,
    LOG_LEVEL: envFragments.logLevel,
    /** Most actions one pull returns (spec 8 leaves it open); `more` says when some were left. */
    PULL_MAX: envFragments.positiveInt.max(10_000).default(DEFAULT_PULL_MAX),
    MAX_BODY_BYTES: envFragments.positiveInt.default(16 * 1024 * 1024),
    /** How long delivered/expired actions are remembered for idempotency and feedback. */
    RETENTION_MS: envFragments.positiveInt.default(DEFAULT_RETENTION_MS),
    SWEEP_INTERVAL_MS: envFragments.positiveInt.default(60_000),
    RETRY_AFTER_SECONDS: envFragments.positiveInt.default(1),
    /** Browser origins allowed to call the SDK pull; the API-key routes never answer CORS. */
    CORS_ORIGINS: envFragments.corsOrigins,
    /** Without brokers the service runs HTTP only (no actions.requested, no feedback, no action log relay). */
    KAFKA_BROKERS: envFragments.kafkaBrokers.optional(),
    KAFKA_SESSION_TIMEOUT_MS: envFragments.kafkaSessionTimeoutMs,
    SCHEMA_REGISTRY_URL: envFragments.url.optional(),
    CONSUMER_GROUP_PREFIX: z.string().min(1).default('action-store'),
    /**
     * Feedback is read from `actions.feedback`, which validators from issue 43 on write. `true` also
     * reads `events.core` (skipping other events by their `name` header): for an upgrade whose
     * validators do not all write `actions.feedback` yet, until they do (docs/actions.md, "Feedback").
     */
    FEEDBACK_FROM_CORE: envFragments.bool.default('false'),
    /** Action log entries the relay moves to actions.log per round (whole outbox records). */
    ACTION_LOG_BATCH: envFragments.positiveInt.max(100_000).default(1000),
    /** How often the relay looks at an empty outbox. */
    ACTION_LOG_IDLE_MS: envFragments.positiveInt.default(200),
    /** How long an outbox record read by one replica's relay stays its own before another may take it over. */
    ACTION_LOG_LEASE_MS: envFragments.positiveInt.default(DEFAULT_LOG_LEASE_MS),
  })
  .superRefine((c, ctx) => {
    if (c.KAFKA_BROKERS && !c.SCHEMA_REGISTRY_URL) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['SCHEMA_REGISTRY_URL'], message: 'required with KAFKA_BROKERS (feedback events are Avro)' });
    }
  });

export type ActionStoreConfig = z.infer<typeof schema>;
export const loadActionStoreConfig = (env: Record<string, string | undefined> = process.env): ActionStoreConfig => parseConfig(schema, env);
