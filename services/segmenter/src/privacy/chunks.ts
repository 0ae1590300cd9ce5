import type { Analytics } from '@evp/core';

/**
 * The part of a table one erasure statement reads or rewrites. In one chdb session (`npm start`)
 * the analysts' queries wait behind each statement of the erasure; on 10M events a whole-table
 * `DELETE` held the session 21 s and its `APPLY DELETED MASK` 32 s (bench:privacy), so a large
 * table is taken one partition at a time: a statement then holds the session for the time of one
 * partition, and the analysts' queries run between them. The same rows are read, counted and deleted
 * as by one statement: the partitions cover the table, and no row is in two of them.
 */
export interface Chunk {
  /** Written before the statement's WHERE condition: `` (the whole table) or `_partition_id = '…' AND `. */
  where: string;
  /** Written after the table of a DELETE or an APPLY DELETED MASK: `` or ` IN PARTITION ID '…'`. */
  partition: string;
}

export const WHOLE_TABLE: Chunk = { where: '', partition: '' };

/**
 * A table of up to this many rows (active parts) is one statement: most of the platform's tables,
 * whose statements take milliseconds. A larger one is taken by partition. Measured (bench:privacy,
 * 1,000 requests): 1M events as one chunk, its `APPLY DELETED MASK` held the session 7.9 s; 10M
 * events by partition (about 1M rows each), 9.1 s at most a statement. A statement's time follows
 * the rows it rewrites, so a partition is the smallest chunk there is.
 */
const CHUNK_ROWS = 100_000;

/** A partition id as ClickHouse names it (`202611-0`): read from system.parts, written into statements. */
const PARTITION_ID = /^[A-Za-z0-9_-]+$/;

/**
 * The chunks of `table` for one statement kind: the whole table when it holds at most `chunkRows`
 * rows, else one chunk per partition (of the active parts at the time, read from system.parts).
 */
export async function chunksOf(analytics: Analytics, table: string, chunkRows = CHUNK_ROWS): Promise<Chunk[]> {
  const parts = await analytics.query<{ partition_id: string; rows: number | string }>(
    `SELECT partition_id, sum(rows) AS rows FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active
     GROUP BY partition_id ORDER BY partition_id`,
    { table },
  );
  const total = parts.reduce((n, p) => n + Number(p.rows), 0);
  if (total <= chunkRows || parts.length < 2) return [WHOLE_TABLE];
  return parts.map(({ partition_id: id }) => {
    if (!PARTITION_ID.test(id)) throw new Error(`not a partition id: ${id}`);
    return { where: `_partition_id = '${id}' AND `, partition: ` IN PARTITION ID '${id}'` };
  });
}
