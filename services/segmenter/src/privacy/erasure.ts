import type { ActionStore } from '@evp/actions';
import { allTopics, type Analytics, type Logger } from '@evp/core';
import type { ClickHouseTarget } from './targets';
import { chunksOf } from './chunks';
import { countByRequest } from './evidence';
import { mutationsDone, type MutationWait } from './mutations';
import type { ErasureRequest, KafkaEntry, StoreEntry, StoredRequest, Suppression } from './model';
import type { PrivacyStore } from './store';
import { idHash } from '@evp/core';

export interface ErasureDeps {
  analytics: Analytics;
  store: PrivacyStore;
  targets: ClickHouseTarget[];
  logger: Logger;
  hashKey: string;
  /**
   * Tells every part of the platform that these people are suppressed, before anything is deleted
   * (the compacted suppression topic). Absent: the suppression is stored only here.
   */
  announce?: (appId: string, suppressions: Suppression[]) => Promise<void>;
  /**
   * The action store (its Redis, or the embedded one), erased per app for the request's user ids
   * (store entry `redis.actions`), and read by exports (their live actions). Absent: not erased,
   * and each request says so (`not_covered`); not exported.
   */
  actions?: Pick<ActionStore, 'countPeople' | 'erasePeople' | 'personActions'>;
  /**
   * Awaited after each table's delete, before the next: where the fault suite holds a request in
   * `deleting` to kill the process mid-way (dev/src/sink-chdb, FAULT_ERASURE_PAUSE_MS). Absent: no wait.
   */
  betweenTables?: () => Promise<void>;
  /** A table with more rows is counted and deleted one partition at a time (chunks.ts; CHUNK_ROWS by default). */
  chunkRows?: number;
  /** How the asynchronous DELETE and mask rewrites are awaited (mutations.ts). */
  mutationWait?: MutationWait;
  now?: () => number;
}

/** The store entry of the action store (erasures' and exports'). */
export const ACTIONS_STORE = 'redis.actions';

/** Request ids are UUIDs (routes.ts makes them): safe to write into a statement, and they name no one. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const requestScope = (ids: string[]) => {
  for (const id of ids) if (!UUID.test(id)) throw new Error(`not a request id: ${id}`);
  return `request_id IN (${ids.map((id) => `'${id}'`).join(', ')})`;
};

/**
 * The requests of a batch, bound as a parameter (request ids, never a person's): written as a literal
 * list, 1,000 ids repeated in every subquery of a statement pass ClickHouse's max_query_size
 * (262,144 bytes; found by bench:privacy at 1,000 requests).
 */
const batchScope = (batch: StoredRequest<ErasureRequest>[]) => ({
  scope: 'request_id IN {batch:Array(String)}',
  params: { batch: batch.map((s) => s.request.id) },
});

const storeName = (t: ClickHouseTarget) => `clickhouse.${t.table}`;

/**
 * When the last copy in each topic is gone: the topic's retention after the suppression (nothing of
 * the person is written after it). The compacted suppression topic holds keyed hashes only, no data.
 */
const kafkaExpiry = (suppressedAt: number): KafkaEntry[] =>
  allTopics().flatMap((t) =>
    t.retentionMs === undefined
      ? []
      : [{ topic: t.name, retention_ms: t.retentionMs, last_copy_gone_by: new Date(suppressedAt + t.retentionMs).toISOString() }],
  );

/**
 * The erasure state machine: accepted → suppressed → deleting → verifying → completed | failed.
 * Every transition is stored before the next step starts, so a processor that dies anywhere resumes
 * from the stored state (a delete repeated is harmless). Deletes are batched: one statement per table
 * (per partition of a table over chunkRows) for all requests in `deleting`, then one per table (per
 * partition) to make it physical.
 */
export function createErasureProcessor(deps: ErasureDeps) {
  const now = deps.now ?? Date.now;
  const iso = () => new Date(now()).toISOString();
  // Every step stores the batch's new states in one insert (a per-request write made 1,000 requests
  // wait 4,000 round trips behind the analysts' queries: bench:privacy).
  const saveAll = (batch: StoredRequest<ErasureRequest>[]) =>
    deps.store.saveAll(batch.map((s) => ({ appId: s.appId, request: { ...s.request, updated_at: iso() }, idHashes: s.idHashes })));
  /** Request id → its ids in flight, as the store reads them for a batch. */
  type Work = Awaited<ReturnType<PrivacyStore['workIdsOf']>>;
  const workOf = (batch: StoredRequest<ErasureRequest>[]): Promise<Work> =>
    deps.store.workIdsOf(batch.map((s) => ({ appId: s.appId, requestId: s.request.id })));
  /** The request's user ids (the action store knows people by user id only). */
  const userIds = (work: Work, s: StoredRequest<ErasureRequest>) => (work.get(s.request.id) ?? []).filter((w) => w.kind === 'user').map((w) => w.id);
  const moveTo = (r: ErasureRequest, state: ErasureRequest['state']) => {
    r.state = state;
    r.steps.push({ state, at: iso() });
  };
  const moveStore = (e: StoreEntry, state: StoreEntry['state']) => {
    e.state = state;
    e.steps.push({ state, at: iso() });
  };

  async function suppress(batch: StoredRequest<ErasureRequest>[]) {
    const work = await workOf(batch);
    const at = iso();
    const byApp = new Map<string, Suppression[]>();
    for (const s of batch) {
      const entries = (work.get(s.request.id) ?? []).map((w) => ({
        id_hash: idHash(deps.hashKey, s.appId, w.kind, w.id),
        kind: w.kind,
        request_id: s.request.id,
        at,
      }));
      byApp.set(s.appId, [...(byApp.get(s.appId) ?? []), ...entries]);
    }
    for (const [appId, entries] of byApp) {
      await deps.announce?.(appId, entries);
      await deps.store.suppress(appId, entries);
    }
    for (const s of batch) {
      moveTo(s.request, 'suppressed');
      s.request.kafka = kafkaExpiry(now());
    }
    await saveAll(batch);
  }

  const chunks = (t: ClickHouseTarget) => chunksOf(deps.analytics, t.table, deps.chunkRows);

  /** Counts per request, one query per table (per partition of a large one) for the whole batch (evidence.ts). */
  async function countBatch(batch: StoredRequest<ErasureRequest>[], physical: boolean) {
    const { scope, params } = batchScope(batch);
    const counts = new Map<ClickHouseTarget, Map<string, number>>();
    for (const t of deps.targets) {
      const sum = new Map<string, number>();
      for (const chunk of await chunks(t))
        for (const [id, n] of await countByRequest(deps.analytics, t, { scope, params }, physical, chunk)) sum.set(id, (sum.get(id) ?? 0) + n);
      counts.set(t, sum);
    }
    return (t: ClickHouseTarget, s: StoredRequest<ErasureRequest>) => counts.get(t)?.get(s.request.id) ?? 0;
  }

  async function countBefore(batch: StoredRequest<ErasureRequest>[]) {
    const before = await countBatch(batch, false);
    const work: Work = deps.actions ? await workOf(batch) : new Map();
    for (const s of batch) {
      s.request.stores = [];
      for (const t of deps.targets) {
        const entry: StoreEntry = { store: storeName(t), state: 'pending', steps: [], before: before(t, s) };
        moveStore(entry, 'deleting');
        s.request.stores.push(entry);
      }
      if (deps.actions) {
        const held = await deps.actions.countPeople(s.appId, userIds(work, s));
        const entry: StoreEntry = { store: ACTIONS_STORE, state: 'pending', steps: [], before: held.records };
        moveStore(entry, 'deleting');
        s.request.stores.push(entry);
      }
      moveTo(s.request, 'deleting');
    }
    await saveAll(batch);
  }

  async function deleteBatch(batch: StoredRequest<ErasureRequest>[]) {
    const { scope, params } = batchScope(batch);
    // The action store first: its outbox entries naming the person are gone before ClickHouse's
    // actions_log is deleted, so the relay has the least chance to bring one back after (docs/privacy.md).
    // One call per app for every request of the batch: one AOF rewrite per app, not per request.
    if (deps.actions) {
      const work = await workOf(batch);
      const byApp = new Map<string, StoredRequest<ErasureRequest>[]>();
      for (const s of batch) byApp.set(s.appId, [...(byApp.get(s.appId) ?? []), s]);
      for (const [appId, requests] of byApp) {
        const users = requests.flatMap((s) => userIds(work, s));
        const erased = await deps.actions.erasePeople(appId, users);
        for (const s of requests) {
          const entry = s.request.stores.find((e) => e.store === ACTIONS_STORE);
          if (entry) entry.storage = erased.storage;
        }
      }
    }
    for (const t of deps.targets) {
      if (t.beforeDelete) await deps.analytics.command(t.beforeDelete(scope), params);
      // A large table one partition at a time (chunks.ts): the analysts' queries in the same chdb session run between.
      for (const chunk of await chunks(t)) {
        // Issued without waiting and awaited by polling (mutations.ts): the session stays free for analysts.
        await deps.analytics.command(`DELETE FROM ${t.table}${chunk.partition} WHERE ${t.where(scope)} SETTINGS lightweight_deletes_sync = 0`, params);
        await mutationsDone(deps.analytics, t.table, deps.mutationWait);
        // The lightweight delete only masks rows; rewriting the affected parts removes them from disk
        // (the old parts go once ClickHouse cleans them up: old_parts_lifetime).
        await deps.analytics.command(`ALTER TABLE ${t.table} APPLY DELETED MASK${chunk.partition} SETTINGS mutations_sync = 0`);
        await mutationsDone(deps.analytics, t.table, deps.mutationWait);
      }
      await deps.betweenTables?.();
    }
    for (const s of batch) {
      for (const e of s.request.stores) moveStore(e, 'verifying');
      moveTo(s.request, 'verifying');
    }
    await saveAll(batch);
  }

  async function verify(batch: StoredRequest<ErasureRequest>[]) {
    if (batch.length === 0) return;
    const after = await countBatch(batch, false);
    const afterPhysical = await countBatch(batch, true);
    const work: Work = deps.actions ? await workOf(batch) : new Map();
    for (const s of batch) await verifyOne(s, after, afterPhysical, work);
  }

  type Counted = (t: ClickHouseTarget, s: StoredRequest<ErasureRequest>) => number;
  async function verifyOne(s: StoredRequest<ErasureRequest>, after: Counted, afterPhysical: Counted, work: Work) {
    for (const t of deps.targets) {
      const entry = s.request.stores.find((e) => e.store === storeName(t));
      if (!entry) continue;
      entry.after = after(t, s);
      entry.after_physical = afterPhysical(t, s);
      moveStore(entry, entry.after === 0 && entry.after_physical === 0 ? 'completed' : 'failed');
    }
    const actions = s.request.stores.find((e) => e.store === ACTIONS_STORE);
    if (deps.actions && actions) {
      const held = await deps.actions.countPeople(s.appId, userIds(work, s));
      actions.after = held.records;
      actions.keys_after = held.keys;
      moveStore(actions, held.records === 0 && held.keys === 0 ? 'completed' : 'failed');
    }
    const failed = s.request.stores.filter((e) => e.state === 'failed').map((e) => e.store);
    if (failed.length > 0) s.request.failure = { stores: failed };
    moveTo(s.request, failed.length > 0 ? 'failed' : 'completed');
  }

  async function end(batch: StoredRequest<ErasureRequest>[]) {
    await saveAll(batch);
    for (const s of batch) {
      const failed = s.request.failure?.stores ?? [];
      deps.logger.info({ requestId: s.request.id, appId: s.appId, state: s.request.state, failed }, 'erasure ended');
    }
  }

  /** One pass over every open erasure: each moves as far as it can. */
  async function runOnce(): Promise<void> {
    const open = (await deps.store.open('erasure')) as StoredRequest<ErasureRequest>[];
    const accepted = open.filter((o) => o.request.state === 'accepted');
    if (accepted.length > 0) await suppress(accepted);
    const suppressed = open.filter((o) => o.request.state === 'suppressed');
    if (suppressed.length > 0) await countBefore(suppressed);
    const deleting = open.filter((o) => o.request.state === 'deleting');
    if (deleting.length > 0) await deleteBatch(deleting);
    const verifying = open.filter((o) => o.request.state === 'verifying');
    await verify(verifying);
    // The ended requests' ids leave the work table together (one delete for the batch, not one per
    // request), before their end is stored: a processor killed in between verifies them again on
    // restart, finds nothing (no ids left to look for) and ends them then. The other way round a
    // kill would leave ids of ended requests in the table for ever.
    await deps.store.dropWork(verifying.map((s) => s.request.id));
    await end(verifying);
  }

  return { runOnce };
}
