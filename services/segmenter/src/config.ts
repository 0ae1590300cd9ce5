import { z } from 'zod';
import { envFragments, parseConfig } from '@evp/core';
import type { ClickHouseHttpOptions } from '@evp/clickhouse';
import { DEFAULT_SINK_CONFIG, type SinkConfig } from './sink';
import { DEFAULT_SEGMENT_ENGINE_CONFIG, type SegmentEngineConfig } from './segments';
import type { CampaignWorkerConfig } from './campaigns';

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

const nonNegativeInt = z.coerce.number().int().min(0);

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');

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
  /** The console's chart.umd.min.js and analytics.md (the image's /app/console); default: the installed chart.js and this repository's docs. */
  CONSOLE_ASSETS_DIR: z.string().min(1).optional(),
  /** Applies pending migrations before consuming (idempotent); off when a separate `migrate` step runs. */
  CLICKHOUSE_MIGRATE_ON_START: bool.default('true'),
  SINK_BATCH_MAX_ROWS: envFragments.positiveInt.default(10_000),
  SINK_BATCH_MAX_WAIT_MS: envFragments.positiveInt.default(1_000),
  SINK_BATCH_MIN_INTERVAL_MS: nonNegativeInt.default(200),
  SINK_BUS_CONCURRENCY: envFragments.positiveInt.default(16),
  SINK_SLICE_ROWS: envFragments.positiveInt.default(5_000),
  SINK_RETRY_INITIAL_DELAY_MS: envFragments.positiveInt.default(200),
  SINK_RETRY_MAX_DELAY_MS: envFragments.positiveInt.default(5_000),
  SINK_RETRY_BUDGET_MS: envFragments.positiveInt.default(10_000),
  /** Full recompute of every time-driven segment, on multiples of this of the clock; 0: none on this replica. */
  SEGMENTS_RECOMPUTE_INTERVAL_MS: nonNegativeInt.default(60_000),
  /** Reload of the segment list the sink's trigger matches rows against. */
  SEGMENTS_REFRESH_INTERVAL_MS: envFragments.positiveInt.default(5_000),
  SEGMENTS_USERS_PER_ITEM: envFragments.positiveInt.default(1_000),
  SEGMENTS_RECOVERY_MARGIN_MS: nonNegativeInt.default(60_000),
  SEGMENTS_WORK_CONCURRENCY: envFragments.positiveInt.default(1),
  /** Reload of the active campaigns (the entry consumer's, the sink hook's and the schedule timer's list). */
  CAMPAIGNS_REFRESH_INTERVAL_MS: envFragments.positiveInt.default(5_000),
  /** How often the schedule timer looks for due occurrences; 0: no timer on this replica. */
  CAMPAIGNS_SCHEDULE_INTERVAL_MS: nonNegativeInt.default(60_000),
  /** An occurrence older than this when first seen due is not run (after an outage longer than it). */
  CAMPAIGNS_SCHEDULE_CATCH_UP_MS: nonNegativeInt.default(3_600_000),
  /** Users per worker batch: one outcome insert and its actions' messages. */
  CAMPAIGNS_USERS_PER_BATCH: envFragments.positiveInt.default(1_000),
  CAMPAIGNS_WORK_CONCURRENCY: envFragments.positiveInt.default(1),
  /** A first deployment's entry consumer reads segments.membership from its start (replays past entries into nudges). */
  CAMPAIGNS_ENTRIES_FROM_BEGINNING: bool.default('false'),
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

export type SegmenterConfig = z.infer<typeof sinkSchema>;
export type MigrateConfig = z.infer<typeof migrateSchema>;

export const loadSegmenterConfig = (env: Record<string, string | undefined> = process.env): SegmenterConfig => parseConfig(sinkSchema, env);

export const loadMigrateConfig = (env: Record<string, string | undefined> = process.env): MigrateConfig => parseConfig(migrateSchema, env);

export const clickhouseOptions = (c: MigrateConfig): ClickHouseHttpOptions => ({
  url: c.CLICKHOUSE_URL,
  username: c.CLICKHOUSE_USER,
  password: c.CLICKHOUSE_PASSWORD,
  database: c.CLICKHOUSE_DATABASE,
  requestTimeoutMs: c.CLICKHOUSE_REQUEST_TIMEOUT_MS,
  application: 'evp-segmenter',
});

// The group ids are the parts' own defaults (written once, beside each part).
export const sinkConfig = (c: SegmenterConfig): SinkConfig => ({
  groupId: DEFAULT_SINK_CONFIG.groupId,
  batchMaxRows: c.SINK_BATCH_MAX_ROWS,
  batchMaxWaitMs: c.SINK_BATCH_MAX_WAIT_MS,
  batchMinIntervalMs: c.SINK_BATCH_MIN_INTERVAL_MS,
  busConcurrency: c.SINK_BUS_CONCURRENCY,
  sliceRows: c.SINK_SLICE_ROWS,
  retryInitialDelayMs: c.SINK_RETRY_INITIAL_DELAY_MS,
  retryMaxDelayMs: c.SINK_RETRY_MAX_DELAY_MS,
  retryBudgetMs: c.SINK_RETRY_BUDGET_MS,
});

export const segmentEngineConfig = (c: SegmenterConfig): Partial<SegmentEngineConfig> => ({
  groupId: DEFAULT_SEGMENT_ENGINE_CONFIG.groupId,
  recomputeIntervalMs: c.SEGMENTS_RECOMPUTE_INTERVAL_MS,
  refreshIntervalMs: c.SEGMENTS_REFRESH_INTERVAL_MS,
  usersPerItem: c.SEGMENTS_USERS_PER_ITEM,
  recoveryMarginMs: c.SEGMENTS_RECOVERY_MARGIN_MS,
  concurrency: c.SEGMENTS_WORK_CONCURRENCY,
});

export const campaignWorkerConfig = (c: SegmenterConfig): Partial<CampaignWorkerConfig> => ({
  refreshIntervalMs: c.CAMPAIGNS_REFRESH_INTERVAL_MS,
  scheduleIntervalMs: c.CAMPAIGNS_SCHEDULE_INTERVAL_MS,
  scheduleCatchUpMs: c.CAMPAIGNS_SCHEDULE_CATCH_UP_MS,
  usersPerBatch: c.CAMPAIGNS_USERS_PER_BATCH,
  concurrency: c.CAMPAIGNS_WORK_CONCURRENCY,
  entryFromBeginning: c.CAMPAIGNS_ENTRIES_FROM_BEGINNING,
});
