import type { Analytics } from '@evp/core';
import type { IdKind } from './targets';
import { WORK_TABLE } from './targets';
import type { PrivacyRequest, StoredRequest, Suppression } from './model';

interface RequestRow {
  app_id: string;
  request_id: string;
  id_hashes: string[];
  document: string;
}

const toStored = (r: RequestRow): StoredRequest => ({ appId: r.app_id, request: JSON.parse(r.document) as PrivacyRequest, idHashes: r.id_hashes });

/**
 * Requests, their ids in flight and suppressions, in ClickHouse (migration 019). Every write of a
 * request is a new version of its row (ReplacingMergeTree; reads take the newest with FINAL), so a
 * request's progress survives a restart and is resumed from its stored state.
 */
export function createPrivacyStore(analytics: Analytics, now: () => number = Date.now) {
  let last = 0;
  // Versions grow even within one millisecond and across restarts (the clock is the high part).
  const nextVersion = () => (last = Math.max(now() * 1000, last + 1));
  /** New versions of many requests in one insert: a batch of 1,000 is one write, not 1,000. */
  const saveAll = async (items: { appId: string; request: PrivacyRequest; idHashes: string[] }[]): Promise<void> => {
    if (items.length === 0) return;
    await analytics.insert(
      'privacy_requests',
      items.map(({ appId, request, idHashes }) => ({
        app_id: appId,
        request_id: request.id,
        kind: request.kind,
        id_hashes: idHashes,
        state: request.state,
        document: JSON.stringify(request),
        version: nextVersion(),
        created_at: Date.parse(request.created_at),
        updated_at: Date.parse(request.updated_at),
      })),
    );
  };
  return {
    async save(appId: string, request: PrivacyRequest, idHashes: string[]): Promise<void> {
      await saveAll([{ appId, request, idHashes }]);
    },
    saveAll,
    async get(appId: string, id: string): Promise<StoredRequest | undefined> {
      const rows = await analytics.query<RequestRow>(
        'SELECT app_id, request_id, id_hashes, document FROM privacy_requests FINAL WHERE app_id = {app:String} AND request_id = {id:String}',
        { app: appId, id },
      );
      return rows[0] && toStored(rows[0]);
    },
    async list(appId: string, kind: PrivacyRequest['kind'], limit = 100): Promise<StoredRequest[]> {
      const rows = await analytics.query<RequestRow>(
        'SELECT app_id, request_id, id_hashes, document FROM privacy_requests FINAL WHERE app_id = {app:String} AND kind = {kind:String} ORDER BY created_at DESC, request_id LIMIT {limit:UInt32}',
        { app: appId, kind, limit },
      );
      return rows.map(toStored);
    },
    /** Requests of every app not yet ended: what the processor works on (after a restart too). */
    async open(kind: PrivacyRequest['kind']): Promise<StoredRequest[]> {
      const rows = await analytics.query<RequestRow>(
        "SELECT app_id, request_id, id_hashes, document FROM privacy_requests FINAL WHERE kind = {kind:String} AND state NOT IN ('completed', 'failed') ORDER BY created_at, request_id",
        { kind },
      );
      return rows.map(toStored);
    },
    /** The ids of a request in flight, for the statements' subqueries. */
    async addWork(appId: string, requestId: string, ids: { kind: IdKind; id: string }[]): Promise<void> {
      await analytics.insert(
        WORK_TABLE,
        ids.map((i) => ({ app_id: appId, request_id: requestId, kind: i.kind, id: i.id })),
      );
    },
    /** The ids in flight of many requests in one read: request id → its ids. */
    async workIdsOf(requests: { appId: string; requestId: string }[]): Promise<Map<string, { kind: IdKind; id: string }[]>> {
      const out = new Map<string, { kind: IdKind; id: string }[]>(requests.map((r) => [r.requestId, []]));
      if (requests.length === 0) return out;
      const apps = new Map(requests.map((r) => [r.requestId, r.appId]));
      const rows = await analytics.query<{ app_id: string; request_id: string; kind: IdKind; id: string }>(
        `SELECT app_id, request_id, kind, id FROM ${WORK_TABLE} WHERE request_id IN {ids:Array(String)}`,
        { ids: requests.map((r) => r.requestId) },
      );
      for (const r of rows) if (apps.get(r.request_id) === r.app_id) out.get(r.request_id)?.push({ kind: r.kind, id: r.id });
      return out;
    },
    /** Forgets the ids of ended requests, and makes that physical: their ids must not outlive them on disk. */
    async dropWork(requestIds: string[]): Promise<void> {
      if (requestIds.length === 0) return;
      await analytics.command(`DELETE FROM ${WORK_TABLE} WHERE request_id IN {ids:Array(String)}`, { ids: requestIds });
      await analytics.command(`ALTER TABLE ${WORK_TABLE} APPLY DELETED MASK`);
    },
    async suppress(appId: string, entries: Suppression[]): Promise<void> {
      await analytics.insert(
        'privacy_suppressions',
        entries.map((s) => ({
          app_id: appId,
          id_hash: s.id_hash,
          kind: s.kind,
          request_id: s.request_id,
          at: Date.parse(s.at),
          lifted: false,
          version: nextVersion(),
        })),
      );
    },
    async lift(appId: string, s: Suppression): Promise<void> {
      await analytics.insert('privacy_suppressions', [
        { app_id: appId, id_hash: s.id_hash, kind: s.kind, request_id: s.request_id, at: Date.parse(s.at), lifted: true, version: nextVersion() },
      ]);
    },
    async suppressions(appId: string, idHash?: string): Promise<Suppression[]> {
      const rows = await analytics.query<Omit<Suppression, 'at'> & { at_ms: number }>(
        `SELECT id_hash, kind, request_id, toUnixTimestamp64Milli(at) AS at_ms FROM privacy_suppressions FINAL
         WHERE app_id = {app:String} AND NOT lifted ${idHash ? 'AND id_hash = {hash:String}' : ''} ORDER BY at_ms DESC, id_hash LIMIT 1000`,
        { app: appId, ...(idHash ? { hash: idHash } : {}) },
      );
      return rows.map(({ at_ms, ...s }) => ({ ...s, at: new Date(at_ms).toISOString() }));
    },
  };
}

export type PrivacyStore = ReturnType<typeof createPrivacyStore>;

/**
 * Which of these users of an app an erasure is carrying out now (their ids are in WORK_TABLE from the
 * request until it ends). The segment engine asks before it writes a membership change or an emitted
 * mark: it writes and emits nothing for them (docs/privacy.md, "Erasure and export").
 */
export function usersBeingErased(analytics: Analytics) {
  return async (appId: string, users: readonly string[]): Promise<Set<string>> => {
    if (users.length === 0) return new Set();
    const rows = await analytics.query<{ id: string }>(
      `SELECT DISTINCT id FROM ${WORK_TABLE} WHERE app_id = {app:String} AND kind = 'user' AND id IN {users:Array(String)}`,
      { app: appId, users },
    );
    return new Set(rows.map((r) => r.id));
  };
}
