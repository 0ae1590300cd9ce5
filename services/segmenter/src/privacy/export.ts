import type { ActionStore } from '@evp/actions';
import type { Analytics } from '@evp/core';
import type { ClickHouseTarget } from './targets';
import type { ExportRequest, StoredRequest } from './model';
import type { PrivacyStore } from './store';
import { ACTIONS_STORE, requestScope } from './erasure';

/** Rows read per query while an export streams: the export is never held in memory whole. */
const EXPORT_PAGE_ROWS = 1000;

/** What an export reads: the ClickHouse tables, and the action store when the segmenter has one. */
export interface ExportDeps {
  analytics: Analytics;
  store: PrivacyStore;
  targets: ClickHouseTarget[];
  /** The action store's live actions (store `redis.actions`); absent: not exported, not counted. */
  actions?: Pick<ActionStore, 'personActions'>;
  now?: () => number;
}

/**
 * The user ids of an export: the action store knows people by user id only (an action names its
 * user; a patient id can only sit in its free-form attrs or content, which nothing tags), so an
 * export by patient id has no action store lines.
 */
async function exportUsers(deps: Pick<ExportDeps, 'store'>, appId: string, requestId: string): Promise<string[]> {
  const work = await deps.store.workIdsOf([{ appId, requestId }]);
  return (work.get(requestId) ?? []).filter((w) => w.kind === 'user').map((w) => w.id);
}

/** The live actions of an export's person, as the action store hands them out (page by page). */
async function* liveActions(deps: Pick<ExportDeps, 'store' | 'actions'>, appId: string, requestId: string) {
  if (!deps.actions) return;
  for (const user of await exportUsers(deps, appId, requestId)) yield* deps.actions.personActions(appId, user);
}

/** Counts an accepted export's rows per store: `accepted` → `completed` with `rows`. */
export async function countExports(deps: ExportDeps): Promise<void> {
  const open = (await deps.store.open('export')) as StoredRequest<ExportRequest>[];
  for (const s of open) {
    const scope = requestScope([s.request.id]);
    const stores: { store: string; rows: number }[] = [];
    for (const t of deps.targets) {
      const [row] = await deps.analytics.query<{ n: number }>(`SELECT count() AS n FROM ${t.table} WHERE ${t.where(scope)}`);
      stores.push({ store: `clickhouse.${t.table}`, rows: Number(row?.n ?? 0) });
    }
    if (deps.actions) {
      let rows = 0;
      for await (const _ of liveActions(deps, s.appId, s.request.id)) rows++;
      stores.push({ store: ACTIONS_STORE, rows });
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
 * Then the person's live actions in the action store, `{"store": "redis.actions", "row": {…}}`, as
 * its personActions hands them out (a page of the user's index at a time).
 */
export async function* exportLines(
  deps: Pick<ExportDeps, 'analytics' | 'targets' | 'store' | 'actions'>,
  appId: string,
  requestId: string,
): AsyncGenerator<string> {
  const scope = requestScope([requestId]);
  for (const t of deps.targets) {
    for (let offset = 0; ; offset += EXPORT_PAGE_ROWS) {
      const rows = await deps.analytics.query(
        `SELECT * FROM ${t.table} WHERE ${t.where(scope)} ORDER BY _part, _part_offset LIMIT {limit:UInt32} OFFSET {offset:UInt64}`,
        { limit: EXPORT_PAGE_ROWS, offset },
      );
      for (const row of rows) yield `${JSON.stringify({ store: `clickhouse.${t.table}`, row })}\n`;
      if (rows.length < EXPORT_PAGE_ROWS) break;
    }
  }
  for await (const row of liveActions(deps, appId, requestId)) yield `${JSON.stringify({ store: ACTIONS_STORE, row })}\n`;
}
