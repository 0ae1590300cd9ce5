import { z } from 'zod';
import { envFragments, parseConfig } from '@evp/core';
import { loadSegmenterConfig, type SegmenterConfig } from '@evp/segmenter';

/**
 * The segmenter sink on chdb (dev and the fault suite only; service images never carry chdb): the
 * segmenter's own settings, with CLICKHOUSE_URL unused, plus the chdb data directory, a side port
 * that answers queries (chdb binds its directory to one process, so nobody else can read it) and
 * the insert faults to inject.
 */
const schema = z.object({
  CHDB_PATH: z.string().min(1),
  CHDB_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .default('analytics'),
  /** 127.0.0.1 only: POST /query, POST /command, POST /bare-insert, GET /healthz. */
  SINK_QUERY_PORT: envFragments.port,
  /** The first N inserts into `events` are refused (retriable InfraError), as by an overloaded server. */
  FAULT_REFUSE_INSERTS: z.coerce.number().int().min(0).default(0),
  /** The next N inserts into `events` apply half their rows, then fail (retriable). */
  FAULT_HALF_INSERTS: z.coerce.number().int().min(0).default(0),
});

export type SinkChdbConfig = z.infer<typeof schema> & { segmenter: SegmenterConfig };

export const loadSinkChdbConfig = (env: Record<string, string | undefined> = process.env): SinkChdbConfig => ({
  ...parseConfig(schema, env),
  segmenter: loadSegmenterConfig({ CLICKHOUSE_URL: 'http://127.0.0.1:1', ...env }),
});
