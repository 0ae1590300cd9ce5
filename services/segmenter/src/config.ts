import { z } from 'zod';
import { envFragments, envShapeOf, fromEnv, parseConfig, withDefaults } from '@evp/core';
import type { ClickHouseHttpOptions } from '@evp/clickhouse';
import { SINK_OPTIONS, type SinkConfig } from './sink';
import { SEGMENT_ENGINE_OPTIONS, type SegmentEngineConfig } from './segments';
import { CAMPAIGN_WORKER_OPTIONS, type CampaignWorkerConfig } from './campaigns';

/** The only module of the segmenter that reads process.env; everything else gets typed values. */
const clickhouse = {
  CLICKHOUSE_URL: envFragments.url,
  CLICKHOUSE_USER: z.string().min(1).default('default'),
  CLICKHOUSE_PASSWORD: z.string().default(''),
  CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'letters, digits and _ only')
    .default('evp'),
  CLICKHOUSE_REQUEST_TIMEOUT_MS: envFragments.positiveInt.default(30_000),
  /** Defaults to deploy/clickhouse/migrations of this repository. */
  CLICKHOUSE_MIGRATIONS_DIR: z.string().min(1).optional(),
  LOG_LEVEL: envFragments.logLevel,
};

/**
 * The parts one replica runs; each is its own consumer group (or, for `api`, the HTTP port), so each
 * scales on its own. The producing sides of the segment engine and the campaign worker (work from
 * stored rows, recompute requests, API triggers) run in every replica whatever the parts.
 */
export const SEGMENTER_PARTS = ['sink', 'segments', 'campaigns', 'api'] as const;
export type SegmenterPart = (typeof SEGMENTER_PARTS)[number];

const parts = z
  .string()
  .default(SEGMENTER_PARTS.join(','))
  .transform((v) => v.split(',').map((p) => p.trim()))
  .pipe(z.array(z.enum(SEGMENTER_PARTS)).min(1))
  .refine((ps) => new Set(ps).size === ps.length, 'a part named twice');

const sinkSchema = z.object({
  ...clickhouse,
  /** Comma-separated: sink, segments, campaigns, api (default all four). */
  SEGMENTER_PARTS: parts,
  KAFKA_BROKERS: envFragments.kafkaBrokers,
  KAFKA_SESSION_TIMEOUT_MS: envFragments.kafkaSessionTimeoutMs,
  SCHEMA_REGISTRY_URL: envFragments.url,
  METRICS_PORT: envFragments.port.default(9464),
  /** The public API (request verdicts, the inspector): behind the edge, like the gateway's port. */
  PORT: envFragments.port.default(8070),
  ...envFragments.keys,
  /** Keys' last uses shared with the gateway and the action store; without it, this replica's own uses only. */
  REDIS_URL: envFragments.url.optional(),
  /** Browser origins that may read request verdicts (a web library's debug mode); `*` allows any. */
  CORS_ORIGINS: envFragments.corsOrigins,
  /** The console's build (packages/console), chart.umd.min.js and analytics.md (the image's /app/console); unset, the console and the inspector page are not served (`npm start` builds them in process). */
  CONSOLE_ASSETS_DIR: z.string().min(1).optional(),
  /** Applies pending migrations before consuming (idempotent); off when a separate `migrate` step runs. */
  CLICKHOUSE_MIGRATE_ON_START: envFragments.bool.default('true'),
  /**
   * The secret key of the keyed hash (HMAC-SHA256) that erasure and export requests and suppressions
   * are stored by (docs/privacy.md); at least 32 characters, the same in every replica, never changed
   * (a new key no longer finds the old suppressions). Unset: the /v1/privacy routes are not served.
   */
  PRIVACY_HASH_KEY: envFragments.privacyHashKey,
  /**
   * The action store's key prefix in the Redis at REDIS_URL (its REDIS_KEY_PREFIX): an erasure
   * deletes the person's actions there. The same Redis as the action store's, or nothing is found.
   */
  ACTIONS_REDIS_KEY_PREFIX: z.string().min(1).default('evp:act:'),
  /**
   * The key prefix of the singleton timers' leases in the Redis at REDIS_URL (`{prefix}campaigns.adapt`,
   * `{prefix}segments.expiry`): the same in every replica of one deployment, another for another
   * deployment sharing the Redis.
   */
  LEASE_KEY_PREFIX: z.string().min(1).default('evp:lease:'),
  /**
   * A ClickHouse server's HTTP interface for analysts' SQL (docker-compose: http://clickhouse:8123,
   * on the internal network): `/clickhouse/` is then served here, each statement run as the key's
   * own ClickHouse user (its row policies scope it) and recorded in the access log. Unset: not served.
   */
  ANALYST_SQL_CLICKHOUSE_URL: envFragments.url.optional(),
  /** How often the privacy processor carries open erasures and exports a step further. */
  PRIVACY_INTERVAL_MS: envFragments.positiveInt.default(1_000),
  // The parts' settings: each variable with its default and meaning in the part's options table
  // (docs/configuration.md is generated from them).
  ...envShapeOf(SINK_OPTIONS),
  ...envShapeOf(SEGMENT_ENGINE_OPTIONS),
  ...envShapeOf(CAMPAIGN_WORKER_OPTIONS),
});

const migrateSchema = z.object({
  ...clickhouse,
  /**
   * A cluster name from the servers' remote_servers: the migrations then create replicated local
   * tables and Distributed tables over them, ON CLUSTER (docs/scaling.md "ClickHouse"). Unset: one node.
   */
  CLICKHOUSE_CLUSTER: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'letters, digits and _ only')
    .optional(),
});

/** `apply-retention`: the database as for `migrate`, and the keys file the apps' retention is read from. */
const applyRetentionSchema = migrateSchema.extend({ KEYS_FILE: z.string().min(1) });

export type SegmenterConfig = z.infer<typeof sinkSchema>;
export type MigrateConfig = z.infer<typeof migrateSchema>;

export const loadSegmenterConfig = (env: Record<string, string | undefined> = process.env): SegmenterConfig => parseConfig(sinkSchema, env);

export const loadMigrateConfig = (env: Record<string, string | undefined> = process.env): MigrateConfig => parseConfig(migrateSchema, env);

export const loadApplyRetentionConfig = (env: Record<string, string | undefined> = process.env): MigrateConfig & { KEYS_FILE: string } =>
  parseConfig(applyRetentionSchema, env);

export const clickhouseOptions = (c: MigrateConfig): ClickHouseHttpOptions => ({
  url: c.CLICKHOUSE_URL,
  username: c.CLICKHOUSE_USER,
  password: c.CLICKHOUSE_PASSWORD,
  database: c.CLICKHOUSE_DATABASE,
  requestTimeoutMs: c.CLICKHOUSE_REQUEST_TIMEOUT_MS,
  application: 'evp-segmenter',
});

// What the environment sets of each part's options; the rest (the group ids among them) are the
// parts' own defaults, written once in their options tables.
export const sinkConfig = (c: SegmenterConfig): SinkConfig => withDefaults(SINK_OPTIONS, fromEnv(SINK_OPTIONS, c));

export const segmentEngineConfig = (c: SegmenterConfig): Partial<SegmentEngineConfig> => ({
  groupId: SEGMENT_ENGINE_OPTIONS.groupId.default,
  ...fromEnv(SEGMENT_ENGINE_OPTIONS, c),
});

export const campaignWorkerConfig = (c: SegmenterConfig): Partial<CampaignWorkerConfig> => fromEnv(CAMPAIGN_WORKER_OPTIONS, c);
