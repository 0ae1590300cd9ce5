import {
  ACTION_TYPES,
  APP_CAP_WINDOW_MS,
  DEFAULT_LOG_LEASE_MS,
  DELIVERY_MODES,
  LOG_READ_RECORDS,
  LOG_RECORD_MAX_ENTRIES,
  RENDER_METHODS,
  DEFAULT_PULL_MAX,
  DEFAULT_RETENTION_MS,
  MAX_LAST_ERRORS,
  clampDetails,
  createdLogValue,
  entriesOfLogRecord,
  formatMicros,
  generatedId,
  idsNeeded,
  logAck,
  logRecordWithout,
  parseLogAck,
  prepareActions,
  recordId,
  statsFromFields,
  stepLogValue,
  type ActionErrorReport,
  type ActionLogBatch,
  type ActionFeedback,
  type ActionRecord,
  type ActionStats,
  type ActionStore,
  type Clock,
  type CreateOptions,
  type CreateResult,
  type FeedbackStatus,
  type NewAction,
  type PersonAction,
  type PersonErasure,
  type PersonHoldings,
  type PullOptions,
  type PullQuery,
  type PullResult,
  type UnblockStatus,
} from '@evp/actions';

/**
 * The ActionStore port in process memory, for embedded mode (`npm start`) and unit tests. It mirrors
 * the Redis adapter step by step (same record building, same order, same lazy sweep, same scan
 * budget, same counters), so the one conformance suite holds for both. Single-threaded JS gives the
 * atomicity that Lua gives in Redis: no await happens between choosing and retiring an action.
 */
export interface InMemoryActionStoreOptions {
  clock: Clock;
  retentionMs?: number;
  lazySweep?: number;
  scanBudget?: number;
  /** As the Redis adapter's: how long a read log record stays with its reader (real time, as Redis's stream idle time). */
  logLeaseMs?: number;
}

type State = 'available' | 'delivered' | 'expired' | 'withdrawn';

interface Entry {
  rid: string;
  seq: number;
  /** Epoch ms (whole) of creation: the Redis hash's `q`. */
  createdAt: number;
  record: ActionRecord;
  expiresAt: number | null;
  /** Epoch ms before which no pull returns it; null = at creation (the Redis hash's `v`). */
  availableAt: number | null;
  state: State;
  /** Clock ms after which the entry is forgotten (as a Redis TTL would); null = kept. */
  forgetAt: number | null;
  feedback: Set<string>;
}

interface AppState {
  seq: number;
  ids: number;
  entries: Map<string, Entry>;
  /** dim + user → available entries in seq order (Map keeps insertion order, and seq only grows). */
  byUser: Map<string, Map<string, Entry>>;
  byDim: Map<string, Map<string, Entry>>;
  /** dim + attr pair → available entries with that pair (the Redis `x:` zsets). */
  byAttr: Map<string, Map<string, Entry>>;
  /** Available entries that have an expiry (the Redis `exp` zset). */
  expiring: Set<Entry>;
  /** Available entries whose available_at has not come yet (the Redis `pd:`/`pu:` zsets). */
  pending: Set<Entry>;
  /** Cap counter key (as the Redis `cc:`/`ac:` keys) → creation times, oldest first. */
  caps: Map<string, number[]>;
  /**
   * Campaign cap key → its window. The Redis key's index entry lapses one window after its latest
   * creation (PEXPIRE), and the person's holdings then no longer count it: the same here.
   */
  capWindows: Map<string, number>;
  stats: Map<number, Map<string, number>>;
  blocked: Map<string, Set<number>>;
  /** action_id → user → latest error report; Map order is recency (oldest first), as the Redis `lz:` zset. */
  lastErrors: Map<number, Map<string, ActionErrorReport>>;
  /** rid → log value of cached actions no pull returned yet (the Redis adapter marks their entry JSON instead). */
  undelivered: Map<string, string>;
  /** The action log's outbox (the Redis `log` stream), oldest first. */
  outbox: OutboxRecord[];
  /** Number of the last outbox record. */
  logSeq: number;
}

interface OutboxRecord {
  id: string;
  fields: string[];
  /** Real-time ms until which its reader holds it; null = never read. */
  heldUntil: number | null;
}

/** The steps of one kind an operation took, as rid, log value pairs (action-log.ts). */
type LogPairs = string[];

const attrKey = (dim: string, k: string, v: string) => `${dim}:${k.length}:${k}:${v}`;

function addTo(index: Map<string, Map<string, Entry>>, key: string, e: Entry): void {
  let m = index.get(key);
  if (!m) index.set(key, (m = new Map()));
  m.set(e.rid, e);
}

function removeFrom(index: Map<string, Map<string, Entry>>, key: string, rid: string): void {
  const m = index.get(key);
  m?.delete(rid);
  if (m?.size === 0) index.delete(key);
}

/** Whether a cap counter key (as the Redis `cc:`/`ac:` keys) is this user's. */
const capKeyOf = (key: string, user: string) => key === `ac:${user}` || key.startsWith(`cc:${user.length}:${user}:`);

/** Whether a byUser key (`<mode>:<type>:<render_method>:<user>`) is this user's (no part of a dim holds a ':'). */
const ofUser = (key: string, user: string) => key.split(':').slice(3).join(':') === user;

const dimOf = (p: { delivery_mode: string; type: string; render_method: string }) => `${p.delivery_mode}:${p.type}:${p.render_method}`;

const logValue = (e: Entry) => stepLogValue(e.createdAt, e.expiresAt, e.record.payload);

/**
 * Whether a cap counter already holds `max` creations within `within` ms before now; drops the older
 * ones first, as the Redis script's ZREMRANGEBYSCORE.
 */
function capFull(a: AppState, key: string, max: number, within: number, now: number): boolean {
  const times = (a.caps.get(key) ?? []).filter((t) => t > now - within);
  if (times.length === 0) {
    a.caps.delete(key);
    a.capWindows.delete(key);
  } else a.caps.set(key, times);
  return times.length >= max;
}

/** As the Redis adapter's SWEEP_BATCH: expired actions per sweep step, so outbox records split alike. */
const SWEEP_BATCH = 1000;

export class InMemoryActionStore implements ActionStore {
  private readonly apps = new Map<string, AppState>();
  private readonly clock: Clock;
  private readonly retentionMs: number;
  private readonly lazySweep: number;
  private readonly scanBudget: number | undefined;
  private readonly logLeaseMs: number;

  constructor(opts: InMemoryActionStoreOptions) {
    this.clock = opts.clock;
    this.retentionMs = opts.retentionMs ?? DEFAULT_RETENTION_MS;
    this.lazySweep = opts.lazySweep ?? 100;
    this.scanBudget = opts.scanBudget;
    this.logLeaseMs = opts.logLeaseMs ?? DEFAULT_LOG_LEASE_MS;
  }

  private app(appId: string): AppState {
    let a = this.apps.get(appId);
    if (!a) {
      a = {
        seq: 0,
        ids: 0,
        entries: new Map(),
        byUser: new Map(),
        byDim: new Map(),
        byAttr: new Map(),
        expiring: new Set(),
        pending: new Set(),
        caps: new Map(),
        capWindows: new Map(),
        stats: new Map(),
        blocked: new Map(),
        lastErrors: new Map(),
        undelivered: new Map(),
        outbox: [],
        logSeq: 0,
      };
      this.apps.set(appId, a);
    }
    return a;
  }

  private now(): number {
    return Math.floor(this.clock.now());
  }

  /** An entry, unless its retention ran out (then it is dropped, as Redis drops an expired key). */
  private live(a: AppState, rid: string, now: number): Entry | undefined {
    const e = a.entries.get(rid);
    if (e && e.forgetAt !== null && now >= e.forgetAt) {
      this.unindex(a, e);
      a.entries.delete(rid);
      return undefined;
    }
    return e;
  }

  private bump(a: AppState, actionId: number, invId: number, counter: string, n = 1): void {
    let s = a.stats.get(actionId);
    if (!s) a.stats.set(actionId, (s = new Map()));
    s.set(counter, (s.get(counter) ?? 0) + n);
    const k = `${invId}|${counter}`;
    s.set(k, (s.get(k) ?? 0) + n);
  }

  /** Takes an entry out of every index; true when it was a cached action no pull had returned. */
  private unindex(a: AppState, e: Entry): boolean {
    const dim = dimOf(e.record.payload);
    removeFrom(a.byUser, `${dim}:${e.record.user_id}`, e.rid);
    removeFrom(a.byDim, dim, e.rid);
    for (const [k, v] of Object.entries(e.record.payload.attr)) removeFrom(a.byAttr, attrKey(dim, k, v), e.rid);
    a.expiring.delete(e);
    a.pending.delete(e);
    return a.undelivered.delete(e.rid);
  }

  private retire(a: AppState, e: Entry, state: State, now: number): boolean {
    const undelivered = this.unindex(a, e);
    e.state = state;
    if (e.forgetAt === null) e.forgetAt = now + this.retentionMs;
    return undelivered;
  }

  /** Retires an expired entry; logs it when no pull had returned it. */
  private expire(a: AppState, e: Entry, now: number, xs: LogPairs): void {
    const undeliveredCached = this.retire(a, e, 'expired', now);
    this.bump(a, e.record.payload.internal.action_id, e.record.payload.internal.inv_id, 'expired');
    if (e.record.payload.delivery_mode === 'one-off' || undeliveredCached) xs.push(e.rid, logValue(e));
  }

  /** The `limit` soonest-expired available entries, in Redis zset order (score, then member). */
  private sweepApp(a: AppState, now: number, limit: number, xs: LogPairs): number {
    const due: Entry[] = [];
    for (const e of a.expiring) {
      if ((e.expiresAt as number) <= now) due.push(e);
    }
    due.sort((x, y) => (x.expiresAt as number) - (y.expiresAt as number) || (x.rid < y.rid ? -1 : x.rid > y.rid ? 1 : 0));
    const batch = due.slice(0, limit);
    for (const e of batch) this.expire(a, e, now, xs);
    return batch.length;
  }

  /** One outbox record per LOG_RECORD_MAX_ENTRIES pairs, as the Redis script's flushLog. */
  private appendLog(a: AppState, code: 'c' | 'd' | 'w' | 'x' | 'p', now: number, pairs: LogPairs, source?: string): void {
    for (let c = 0; c < pairs.length; c += 2 * LOG_RECORD_MAX_ENTRIES) {
      const fields = ['k', code, 't', String(now), ...(source === undefined ? [] : ['s', source]), ...pairs.slice(c, c + 2 * LOG_RECORD_MAX_ENTRIES)];
      a.outbox.push({ id: `${++a.logSeq}-0`, fields, heldUntil: null });
    }
  }

  async create(appId: string, actions: readonly NewAction[], opts: CreateOptions = {}): Promise<CreateResult[]> {
    if (actions.length === 0) return [];
    const a = this.app(appId);
    const need = idsNeeded(actions);
    const fresh: number[] = [];
    for (let i = 0; i < need; i++) fresh.push(generatedId(++a.ids));
    const nowMs = this.clock.now();
    const now = Math.floor(nowMs);
    const cs: LogPairs = [];
    const ps: LogPairs = [];
    const results = prepareActions(actions, fresh, nowMs).map((p) => {
      const result = { ...p.result };
      if (result.status !== 'created') return result;
      const { internal } = p.record.payload;
      const user = p.record.user_id;
      const campaign = p.caps?.campaign;
      const ck = campaign && `cc:${user.length}:${user}:${campaign.key}`;
      const ak = p.caps?.app && `ac:${user}`;
      // The Redis script's order: duplicate, block, then both caps before either counts.
      if (this.live(a, p.rid, now)) {
        result.status = 'duplicate';
      } else if (a.blocked.get(user)?.has(internal.action_id)) {
        result.status = 'blocked';
      } else if (ck && capFull(a, ck, campaign.max, campaign.within_ms, now)) {
        result.status = 'capped';
        result.reason = 'campaign_cap';
      } else if (ak && capFull(a, ak, p.caps?.app?.max ?? 0, APP_CAP_WINDOW_MS, now)) {
        result.status = 'capped';
        result.reason = 'app_cap';
      } else {
        const e: Entry = {
          rid: p.rid,
          seq: ++a.seq,
          createdAt: now,
          record: p.record,
          expiresAt: p.expiresAt,
          availableAt: p.availableAt,
          state: 'available',
          forgetAt: p.expiresAt === null ? null : Math.max(now, p.expiresAt) + this.retentionMs,
          feedback: new Set(),
        };
        a.entries.set(p.rid, e);
        const dim = dimOf(p.record.payload);
        addTo(a.byUser, `${dim}:${p.record.user_id}`, e);
        addTo(a.byDim, dim, e);
        for (const [k, v] of Object.entries(p.record.payload.attr)) addTo(a.byAttr, attrKey(dim, k, v), e);
        if (e.expiresAt !== null) a.expiring.add(e);
        if (e.availableAt !== null) a.pending.add(e);
        if (ck) {
          a.caps.set(ck, [...(a.caps.get(ck) ?? []), now]);
          a.capWindows.set(ck, campaign.within_ms);
        }
        if (ak) a.caps.set(ak, [...(a.caps.get(ak) ?? []), now]);
        if (p.record.payload.delivery_mode === 'cached') a.undelivered.set(p.rid, logValue(e));
        this.bump(a, internal.action_id, internal.inv_id, 'created');
        cs.push(p.rid, createdLogValue(p));
      }
      if (result.status === 'capped') ps.push(p.rid, `${result.reason}|${createdLogValue(p)}`);
      return result;
    });
    this.appendLog(a, 'c', now, cs, opts.source ?? '');
    this.appendLog(a, 'p', now, ps, opts.source ?? '');
    return results;
  }

  async pull(appId: string, query: PullQuery, opts: PullOptions = {}): Promise<PullResult> {
    const max = opts.max ?? DEFAULT_PULL_MAX;
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`pull max must be a positive integer, got ${max}`);
    const a = this.apps.get(appId);
    if (!a) return { data: [], more: false };
    const now = this.now();
    const xs: LogPairs = [];
    this.sweepApp(a, now, this.lazySweep, xs);

    const dim = dimOf(query);
    const attrs = Object.entries(query.attr ?? {});
    let scan: Map<string, Entry> | undefined;
    let implied = -1;
    if (query.user_id !== '*') {
      scan = a.byUser.get(`${dim}:${query.user_id}`);
    } else {
      // The smallest candidate set, chosen exactly as the Redis script does (ties keep the earlier).
      scan = a.byDim.get(dim);
      attrs.forEach(([k, v], j) => {
        const m = a.byAttr.get(attrKey(dim, k, v));
        if ((m?.size ?? 0) < (scan?.size ?? 0)) {
          scan = m;
          implied = j;
        }
      });
    }
    const want = attrs.filter((_, j) => j !== implied);
    // As the Redis pending zsets: entries that became available leave, any left of this dim (and
    // user) send the pull down the entry-by-entry path.
    for (const e of a.pending) if ((e.availableAt as number) <= now) a.pending.delete(e);
    const pending = [...a.pending].some((e) => dimOf(e.record.payload) === dim && (query.user_id === '*' || e.record.user_id === query.user_id));
    let backlog = false;
    for (const e of a.expiring) if ((e.expiresAt as number) <= now) backlog = true;
    const after = query.cursor === undefined ? -Infinity : Number(query.cursor);
    const budget = this.scanBudget ?? Math.max(10 * max, 10_000);

    const picked: Entry[] = [];
    let more = false;
    let consumed = 0;
    let examined = 0;
    // Snapshot: expiring entries while iterating would otherwise mutate the map under the loop.
    const candidates = scan ? [...scan.values()].filter((e) => e.seq > after) : [];
    if (!backlog && !pending && want.length === 0) {
      // Every candidate matches (the Redis fast path): no per-entry work, no scan budget.
      picked.push(...candidates.slice(0, max));
      consumed = picked[picked.length - 1]?.seq ?? 0;
      more = candidates.length > max;
    } else {
      for (const e of candidates) {
        if (e.expiresAt !== null && e.expiresAt <= now) {
          this.expire(a, e, now, xs);
        } else if (e.availableAt !== null && e.availableAt > now) {
          // Not available yet: passed over like an entry that does not match.
        } else if (want.every(([k, v]) => Object.hasOwn(e.record.payload.attr, k) && e.record.payload.attr[k] === v)) {
          if (picked.length === max) {
            more = true;
            break;
          }
          picked.push(e);
        }
        consumed = e.seq;
        if (++examined >= budget) {
          more = true;
          break;
        }
      }
    }

    this.appendLog(a, 'x', now, xs);

    const data: ActionRecord[] = [];
    const ds: LogPairs = [];
    for (const e of picked) {
      data.push(structuredClone(e.record));
      // Only one-off deliveries count (as in the Redis adapter: cached pulls write no counters).
      if (query.delivery_mode === 'one-off') {
        this.retire(a, e, 'delivered', now);
        this.bump(a, e.record.payload.internal.action_id, e.record.payload.internal.inv_id, 'delivered');
        ds.push(e.rid, logValue(e));
      } else {
        // A cached action's first delivery is logged, later ones are not.
        const value = a.undelivered.get(e.rid);
        if (value !== undefined) {
          a.undelivered.delete(e.rid);
          ds.push(e.rid, value);
        }
      }
    }
    this.appendLog(a, 'd', now, ds);
    return more ? { data, more, cursor: String(consumed) } : { data, more };
  }

  async recordFeedback(appId: string, fb: ActionFeedback): Promise<FeedbackStatus> {
    const a = this.apps.get(appId);
    const now = this.now();
    const e = a && this.live(a, recordId(fb.inv_id, fb.action_id, fb.user_id), now);
    if (!a || !e) return 'unknown';
    if (e.feedback.has(fb.response)) return 'repeated';
    e.feedback.add(fb.response);
    this.bump(a, fb.action_id, fb.inv_id, `r:${fb.response}`);
    if (fb.response === 'error') {
      let m = a.lastErrors.get(fb.action_id);
      if (!m) a.lastErrors.set(fb.action_id, (m = new Map()));
      // Delete first so the user moves to the newest end; then drop the oldest beyond the cap.
      m.delete(fb.user_id);
      m.set(fb.user_id, { user_id: fb.user_id, inv_id: fb.inv_id, details: clampDetails(fb.details), at: formatMicros(now) });
      for (const user of m.keys()) {
        if (m.size <= MAX_LAST_ERRORS) break;
        m.delete(user);
      }
    }
    if (fb.response === 'block') {
      let set = a.blocked.get(fb.user_id);
      if (!set) a.blocked.set(fb.user_id, (set = new Set()));
      set.add(fb.action_id);
      // Every dimension of this user, as the Redis script walks them.
      const ws: LogPairs = [];
      for (const mode of DELIVERY_MODES) {
        for (const type of ACTION_TYPES) {
          for (const rm of RENDER_METHODS) {
            const m = a.byUser.get(`${mode}:${type}:${rm}:${fb.user_id}`);
            for (const other of m ? [...m.values()] : []) {
              if (other.record.payload.internal.action_id === fb.action_id) {
                this.retire(a, other, 'withdrawn', now);
                ws.push(other.rid, logValue(other));
              }
            }
          }
        }
      }
      this.appendLog(a, 'w', now, ws);
    }
    return 'recorded';
  }

  async unblock(appId: string, userId: string, actionId: number): Promise<UnblockStatus> {
    const a = this.apps.get(appId);
    if (!a?.stats.has(actionId)) return 'unknown_action';
    const set = a.blocked.get(userId);
    if (!set?.delete(actionId)) return 'not_blocked';
    if (set.size === 0) a.blocked.delete(userId);
    return 'unblocked';
  }

  async stats(appId: string, actionId: number): Promise<ActionStats | null> {
    const a = this.apps.get(appId);
    const s = a?.stats.get(actionId);
    if (!s) return null;
    const reports = [...(a?.lastErrors.get(actionId)?.values() ?? [])].reverse().map((r) => ({ ...r }));
    return statsFromFields(actionId, Object.fromEntries(s), reports);
  }

  async sweepExpired(): Promise<number> {
    const now = this.now();
    let total = 0;
    for (const id of [...this.apps.keys()].sort()) {
      const a = this.apps.get(id) as AppState;
      // In steps of SWEEP_BATCH, one outbox record each, as the Redis adapter's sweep calls.
      for (;;) {
        const xs: LogPairs = [];
        const n = this.sweepApp(a, now, SWEEP_BATCH, xs);
        this.appendLog(a, 'x', now, xs);
        total += n;
        if (n < SWEEP_BATCH) break;
      }
      for (const [rid, e] of a.entries) {
        if (e.forgetAt !== null && now >= e.forgetAt) {
          this.unindex(a, e);
          a.entries.delete(rid);
        }
      }
    }
    return total;
  }

  /** As the Redis adapter: per app, stale records (lease over) first, then never-read ones, LOG_READ_RECORDS each. */
  async readLog(max: number): Promise<ActionLogBatch> {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`readLog max must be a positive integer, got ${max}`);
    const batch: ActionLogBatch = { entries: [], acks: [] };
    const now = Date.now();
    for (const id of [...this.apps.keys()].sort()) {
      if (batch.entries.length >= max) break;
      const a = this.apps.get(id) as AppState;
      const stale = a.outbox.filter((r) => r.heldUntil !== null && r.heldUntil <= now).slice(0, LOG_READ_RECORDS);
      const fresh = a.outbox.filter((r) => r.heldUntil === null).slice(0, LOG_READ_RECORDS);
      for (const r of [...stale, ...fresh]) {
        r.heldUntil = now + this.logLeaseMs;
        batch.entries.push(...entriesOfLogRecord(id, r.fields));
        batch.acks.push(logAck(id, r.id));
      }
    }
    return batch;
  }

  async ackLog(acks: readonly string[]): Promise<void> {
    const byApp = new Map<string, Set<string>>();
    for (const ack of acks) {
      const { appId, recordId } = parseLogAck(ack);
      const ids = byApp.get(appId) ?? new Set();
      byApp.set(appId, ids.add(recordId));
    }
    for (const [appId, ids] of byApp) {
      const a = this.apps.get(appId);
      if (a) a.outbox = a.outbox.filter((r) => !ids.has(r.id));
    }
  }

  async logLength(): Promise<number> {
    let n = 0;
    for (const a of this.apps.values()) n += a.outbox.length;
    return n;
  }

  /** As the Redis adapter's count: the same records; `keys` are this store's map entries naming the users. */
  async countPeople(appId: string, userIds: readonly string[]): Promise<PersonHoldings> {
    const a = this.apps.get(appId);
    const users = new Set(userIds);
    const out: PersonHoldings = { records: 0, keys: 0 };
    if (!a) return out;
    const now = this.now();
    for (const rid of [...a.entries.keys()]) {
      const e = this.live(a, rid, now);
      if (e && users.has(e.record.user_id)) {
        out.records++;
        out.keys++;
      }
    }
    for (const user of users) {
      const blocked = a.blocked.get(user)?.size ?? 0;
      out.records += blocked;
      out.keys += blocked > 0 ? 1 : 0;
      for (const [key, times] of a.caps) {
        if (!capKeyOf(key, user)) continue;
        const within = a.capWindows.get(key);
        if (within !== undefined && Math.max(...times) + within <= now) continue;
        out.records += times.length;
        out.keys++;
      }
      for (const m of a.lastErrors.values()) out.records += m.has(user) ? 1 : 0;
      for (const key of a.byUser.keys()) out.keys += ofUser(key, user) ? 1 : 0;
    }
    for (const r of a.outbox) out.records += logRecordWithout(r.fields, users).removed;
    return out;
  }

  /** As the Redis adapter's erasure: every structure naming the users, then their outbox entries (a record naming others too goes back at the end). */
  async erasePeople(appId: string, userIds: readonly string[]): Promise<PersonErasure> {
    const before = await this.countPeople(appId, userIds);
    const a = this.apps.get(appId);
    const users = new Set(userIds);
    if (a) {
      for (const [rid, e] of [...a.entries]) {
        if (!users.has(e.record.user_id)) continue;
        this.unindex(a, e);
        a.entries.delete(rid);
      }
      for (const user of users) {
        a.blocked.delete(user);
        for (const key of [...a.caps.keys()]) {
          if (!capKeyOf(key, user)) continue;
          a.caps.delete(key);
          a.capWindows.delete(key);
        }
        for (const m of a.lastErrors.values()) m.delete(user);
      }
      const outbox = a.outbox;
      a.outbox = [];
      const rewritten: OutboxRecord[] = [];
      for (const r of outbox) {
        const { kept, removed, left } = logRecordWithout(r.fields, users);
        if (removed === 0) a.outbox.push(r);
        else if (left > 0) rewritten.push({ id: '', fields: kept, heldUntil: null });
      }
      for (const r of rewritten) a.outbox.push({ ...r, id: `${++a.logSeq}-0` });
    }
    return { before, after: await this.countPeople(appId, userIds), storage: 'in memory: nothing on disk' };
  }

  /** As the Redis adapter's: every remembered action of the user, handed out one at a time from the live map (no copy of the set). */
  async *personActions(appId: string, userId: string): AsyncGenerator<PersonAction> {
    const a = this.apps.get(appId);
    if (!a) return;
    for (const rid of a.entries.keys()) {
      const e = this.live(a, rid, this.now());
      if (!e || e.record.user_id !== userId) continue;
      const p = e.record.payload;
      yield {
        user_id: e.record.user_id,
        inv_id: p.internal.inv_id,
        action_id: p.internal.action_id,
        state: e.state,
        delivery_mode: p.delivery_mode,
        type: p.type,
        render_method: p.render_method,
        attr: { ...p.attr },
        expires_at: e.expiresAt,
        available_at: e.availableAt,
        feedback: [...e.feedback].sort(),
        entry: e.state === 'available' ? e.record : null,
      };
    }
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}
}
