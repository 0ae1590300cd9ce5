import { randomUUID } from 'node:crypto';
import type { Analytics, Logger } from '@evp/core';
import { clickhouseTargets, type ClickHouseTarget, type IdKind } from './targets';
import { createPrivacyStore } from './store';
import { createErasureProcessor, type ErasureDeps } from './erasure';
import { countExports, exportLines } from './export';
import { idHash } from '@evp/core';
import type { ErasureRequest, ExportRequest, Suppression } from './model';

export interface PrivacyServiceDeps {
  analytics: Analytics;
  logger: Logger;
  /** The key of the ids' keyed hash (PRIVACY_HASH_KEY). */
  hashKey: string;
  announce?: ErasureDeps['announce'];
  /** Tells every part a suppression is lifted (a tombstone on the suppression topic); absent: stored only here. */
  lift?: ErasureDeps['announce'];
  /**
   * Called when an export's rows are handed out: the hook for the read log (who read whose data).
   * Absent: nothing is recorded.
   */
  onExportRead?: (appId: string, exportId: string) => void | Promise<void>;
  targets?: ClickHouseTarget[];
  /** The action store to erase and export (ErasureDeps.actions). */
  actions?: ErasureDeps['actions'];
  betweenTables?: ErasureDeps['betweenTables'];
  chunkRows?: ErasureDeps['chunkRows'];
  now?: () => number;
}

/**
 * What this version does not do yet, stated in every erasure so `completed` is not read as more
 * than it is: nothing today beyond what `NO_ACTION_STORE` says when there is no action store.
 */
const NOT_COVERED: string[] = [];

/** Said when the processor was given no action store to erase (a segmenter without REDIS_URL). */
const NO_ACTION_STORE = 'redis (the action store: this segmenter has no REDIS_URL, so the person’s actions, blocks, caps and log entries there are not erased)';

/** Erasure and export requests for the routes, and the processor that carries them out. */
export function createPrivacyService(deps: PrivacyServiceDeps) {
  const now = deps.now ?? Date.now;
  const targets = deps.targets ?? clickhouseTargets();
  const store = createPrivacyStore(deps.analytics, now);
  const erasures = createErasureProcessor({ ...deps, store, targets });
  const hashes = (appId: string, ids: { kind: IdKind; id: string }[]) => ids.map((i) => idHash(deps.hashKey, appId, i.kind, i.id));

  return {
    targets,
    async createErasure(appId: string, ids: { kind: IdKind; id: string }[]): Promise<ErasureRequest> {
      const at = new Date(now()).toISOString();
      const request: ErasureRequest = {
        id: randomUUID(),
        kind: 'erasure',
        state: 'accepted',
        ids: { user: ids.filter((i) => i.kind === 'user').length, patient: ids.filter((i) => i.kind === 'patient').length },
        created_at: at,
        updated_at: at,
        steps: [{ state: 'accepted', at }],
        stores: [],
        kafka: [],
        not_covered: deps.actions ? NOT_COVERED : [NO_ACTION_STORE, ...NOT_COVERED],
      };
      // The ids first: a request whose row exists always has its ids to work with.
      await store.addWork(appId, request.id, ids);
      await store.save(appId, request, hashes(appId, ids));
      return request;
    },
    async createExport(appId: string, target: { kind: IdKind; id: string }): Promise<ExportRequest> {
      const at = new Date(now()).toISOString();
      const request: ExportRequest = { id: randomUUID(), kind: 'export', state: 'accepted', id_kind: target.kind, created_at: at, updated_at: at };
      await store.addWork(appId, request.id, [target]);
      await store.save(appId, request, hashes(appId, [target]));
      return request;
    },
    get: async (appId: string, kind: 'erasure' | 'export', id: string) => {
      const s = await store.get(appId, id);
      return s?.request.kind === kind ? s.request : undefined;
    },
    list: async (appId: string, kind: 'erasure' | 'export') => (await store.list(appId, kind)).map((s) => s.request),
    /** An export and the keyed hash of its person: what the access log records of its download (never the id). */
    async exportOf(appId: string, id: string): Promise<{ request: ExportRequest; person: string | null } | undefined> {
      const s = await store.get(appId, id);
      return s?.request.kind === 'export' ? { request: s.request, person: s.idHashes[0] ?? null } : undefined;
    },
    async *exportData(appId: string, id: string): AsyncGenerator<string> {
      await deps.onExportRead?.(appId, id);
      yield* exportLines({ analytics: deps.analytics, targets, store, ...(deps.actions ? { actions: deps.actions } : {}) }, appId, id);
    },
    suppressions: (appId: string) => store.suppressions(appId),
    /** Lifts the suppression of a user id; false when the user was not suppressed. */
    async liftSuppression(appId: string, userId: string): Promise<boolean> {
      const found: Suppression[] = await store.suppressions(appId, idHash(deps.hashKey, appId, 'user', userId));
      // The tombstone first: a lift that fails after it is retried and finds the suppression again.
      await deps.lift?.(appId, found);
      for (const s of found) await store.lift(appId, { ...s, at: new Date(now()).toISOString() });
      return found.length > 0;
    },
    /** One pass of the processor: erasures step by step, exports counted. */
    async runOnce(): Promise<void> {
      await erasures.runOnce();
      await countExports({ analytics: deps.analytics, store, targets, now, ...(deps.actions ? { actions: deps.actions } : {}) });
    },
  };
}

export type PrivacyService = ReturnType<typeof createPrivacyService>;
