import type { Analytics } from '@evp/core';
import { WHOLE_TABLE, type Chunk } from './chunks';
import { WORK_TABLE, type ClickHouseTarget } from './targets';

/**
 * The rows of a table naming each request of a batch, in one query for the whole batch (issue 40:
 * 1,000 requests took 3,000 counts per table when each request was counted alone).
 *
 * The table is read once through the target's `where` for the batch (the ids come from WORK_TABLE,
 * never from a literal); each row found is then given to the requests whose ids it carries: its
 * `keys` joined to the work rows' `kind:id` (a hash join, not a scan of every id per row), and each
 * text of `texts` searched for the ids of its app. A row is counted once per request, whatever number
 * of its ids the request names (`_part`, `_part_offset` name the row). `physical` counts the rows
 * still on disk (the deleted mask ignored). `params` binds the scope's parameters (the batch's request ids). Requests naming no row are absent from the map.
 * `chunk` (chunks.ts) limits the count to one partition of a large table.
 */
export async function countByRequest(
  analytics: Analytics,
  target: ClickHouseTarget,
  { scope, params }: { scope: string; params?: Record<string, unknown> },
  physical: boolean,
  chunk: Chunk = WHOLE_TABLE,
): Promise<Map<string, number>> {
  const rows = (columns: string) =>
    `SELECT _part AS part, _part_offset AS offset, app_id, ${columns} FROM ${target.table} WHERE ${chunk.where}(${target.where(scope)})`;
  const work = (columns: string) => `SELECT request_id, app_id, ${columns} FROM ${WORK_TABLE} WHERE ${scope}`;
  const byKey = `SELECT w.request_id AS request_id, r.part AS part, r.offset AS offset
    FROM (${rows(`arrayJoin(${target.keys}) AS key`)}) AS r
    INNER JOIN (${work(`concat(kind, ':', id) AS key`)}) AS w ON r.app_id = w.app_id AND r.key = w.key`;
  const byText = (target.texts ?? []).map(
    (t) => `SELECT w.request_id AS request_id, r.part AS part, r.offset AS offset
    FROM (${rows(`${t.text} AS text`)}) AS r
    INNER JOIN (${work(`${t.quoted ? `concat('"', id, '"')` : 'id'} AS needle`)}) AS w ON r.app_id = w.app_id
    WHERE position(r.text, w.needle) > 0`,
  );
  const found = await analytics.query<{ request_id: string; n: number | string }>(
    `SELECT request_id, uniqExact(part, offset) AS n FROM (${[byKey, ...byText].join(' UNION ALL ')}) GROUP BY request_id${physical ? ' SETTINGS apply_deleted_mask = 0' : ''}`,
    params,
  );
  return new Map(found.map((f) => [f.request_id, Number(f.n)]));
}
