import type { Analytics } from '@evp/core';
import type { ClickHouseTarget } from './targets';
import type { ExportRequest, StoredRequest } from './model';
import type { PrivacyStore } from './store';
import { requestScope } from './erasure';

/** Rows read per query while an export streams: the export is never held in memory whole. */
const EXPORT_PAGE_ROWS = 1000;

/** Counts an accepted export's rows per store: `accepted` → `completed` with `rows`. */
export async function countExports(deps: { analytics: Analytics; store: PrivacyStore; targets: ClickHouseTarget[]; now?: () => number }): Promise<void> {
  const open = (await deps.store.open('export')) as StoredRequest<ExportRequest>[];
  for (const s of open) {
    const scope = requestScope([s.request.id]);
    const stores: { store: string; rows: number }[] = [];
    for (const t of deps.targets) {
      const [row] = await deps.analytics.query<{ n: number }>(`SELECT count() AS n FROM ${t.table} WHERE ${t.where(scope)}`);
      stores.push({ store: `clickhouse.${t.table}`, rows: Number(row?.n ?? 0) });
    }
    const updated: ExportRequest = {
      ...s.request,
      state: 'completed',
      stores,
      rows: stores.reduce((sum, e) => sum + e.rows, 0),
      updated_at: new Date((deps.now ?? Date.now)()).toISOString(),
    };
    await deps.store.save(s.appId, updated, s.idHashes);
  }
}

/**
 * An export's rows as ndjson lines, `{"store": "clickhouse.<table>", "row": {…}}`, one page at a
 * time. Pages follow each row's place on disk (`_part`, `_part_offset`), which no two rows share.
 */
export async function* exportLines(analytics: Analytics, targets: ClickHouseTarget[], requestId: string): AsyncGenerator<string> {
  const scope = requestScope([requestId]);
  for (const t of targets) {
    for (let offset = 0; ; offset += EXPORT_PAGE_ROWS) {
      const rows = await analytics.query(
        `SELECT * FROM ${t.table} WHERE ${t.where(scope)} ORDER BY _part, _part_offset LIMIT {limit:UInt32} OFFSET {offset:UInt64}`,
        { limit: EXPORT_PAGE_ROWS, offset },
      );
      for (const row of rows) yield `${JSON.stringify({ store: `clickhouse.${t.table}`, row })}\n`;
      if (rows.length < EXPORT_PAGE_ROWS) break;
    }
  }
}
