import { z } from 'zod';
import { envFragments, parseConfig } from '@evp/core';
import { loadSegmenterConfig, type SegmenterConfig } from '@evp/segmenter';

/**
 * The segmenter sink on chdb (dev and the fault suite only; service images never carry chdb): the
 * segmenter's own settings, with CLICKHOUSE_URL unused, plus the chdb data directory, a side port
 * that answers queries (chdb binds its directory to one process, so nobody else can read it) and
 * the insert faults to inject.
 *
 * SINK_CHDB_ROLE splits the one process in two for replicated segmenters (the fault suite's
 * scenario i): `store` is chdb and its side port only, standing in for a ClickHouse server;
 * `segmenter` is the segmenter alone, its ClickHouse being a store's side port (CHDB_REMOTE_URL),
 * so two of them are two replicas over one database. `all` (default) is both in one process.
 */
const schema = z
  .object({
    SINK_CHDB_ROLE: z.enum(['all', 'store', 'segmenter']).default('all'),
    /** Required unless the role is `segmenter`. */
    CHDB_PATH: z.string().min(1).optional(),
    /** The store's side port (`http://127.0.0.1:<SINK_QUERY_PORT>`); the `segmenter` role only. */
    CHDB_REMOTE_URL: z.string().url().optional(),
    CHDB_DATABASE: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .default('analytics'),
    /** 127.0.0.1 only: POST /query, /command, /insert, /bare-insert, GET /healthz. Required unless the role is `segmenter`. */
    SINK_QUERY_PORT: envFragments.port.optional(),
    /** The first N inserts into `events` are refused (retriable InfraError), as by an overloaded server. */
    FAULT_REFUSE_INSERTS: z.coerce.number().int().min(0).default(0),
    /** The next N inserts into `events` apply half their rows, then fail (retriable). */
    FAULT_HALF_INSERTS: z.coerce.number().int().min(0).default(0),
    /**
     * The privacy processor waits this long after each table's erasure delete: a request stays in
     * `deleting` long enough for the fault suite to kill the process there (scenario l).
     */
    FAULT_ERASURE_PAUSE_MS: z.coerce.number().int().min(0).default(0),
  })
  .superRefine((c, ctx) => {
    const need = (key: 'CHDB_PATH' | 'CHDB_REMOTE_URL' | 'SINK_QUERY_PORT') => {
      if (c[key] === undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [key], message: `required when SINK_CHDB_ROLE is ${c.SINK_CHDB_ROLE}` });
    };
    if (c.SINK_CHDB_ROLE === 'segmenter') need('CHDB_REMOTE_URL');
    else {
      need('CHDB_PATH');
      need('SINK_QUERY_PORT');
    }
  });

export type SinkChdbConfig = z.infer<typeof schema> & { segmenter: SegmenterConfig };

export const loadSinkChdbConfig = (env: Record<string, string | undefined> = process.env): SinkChdbConfig => ({
  ...parseConfig(schema, env),
  segmenter: loadSegmenterConfig({ CLICKHOUSE_URL: 'http://127.0.0.1:1', ...env }),
});
