import { createHash } from 'node:crypto';
import { ReplyError, type Redis } from 'ioredis';
import { InfraError } from '@evp/core';
import type { Clock } from '../clock';
import {
  APP_CAP_WINDOW_MS,
  DEFAULT_PULL_MAX,
  MAX_LAST_ERRORS,
  type ActionErrorReport,
  type ActionFeedback,
  type ActionRecord,
  type ActionStats,
  type CapReason,
  type CreateOptions,
  type CreateResult,
  type FeedbackStatus,
  type NewAction,
  type PullOptions,
  type PullQuery,
  type PullResult,
  type UnblockStatus,
} from '../model';
import { clampDetails, generatedId, idsNeeded, prepareActions, recordId, statsFromFields } from '../records';
import { formatMicros } from '../time';
import {
  DEFAULT_BLOCK_TTL_MS,
  DEFAULT_RETENTION_MS,
  type ActionStore,
  type PersonAction,
  type PersonActionState,
  type PersonErasure,
  type PersonHoldings,
} from '../store';
import {
  DEFAULT_LOG_LEASE_MS,
  LOG_READ_RECORDS,
  createdLogValue,
  entriesOfLogRecord,
  logAck,
  logRecordWithout,
  parseLogAck,
  type ActionLogBatch,
} from '../action-log';
import { ACK_LOG, COUNT_PERSON, CREATE, ERASE_PERSON, FEEDBACK, PULL, REWRITE_LOG, STATS, SWEEP, UNBLOCK } from './lua';

export interface RedisActionStoreOptions {
  redis: Redis;
  clock: Clock;
  /** Prefix of every key; tests use a random one. Default `evp:act:`. */
  prefix?: string;
  retentionMs?: number;
  /** How long a user's block of an action_id is kept after it was last set. Default DEFAULT_BLOCK_TTL_MS (400 days). */
  blockTtlMs?: number;
  /** Expired actions of the pulled app swept inside each pull (bounded work). Default 100. */
  lazySweep?: number;
  /** Entries one pull may examine before it returns `more` with a cursor. Default max(10 × max, 10,000). */
  scanBudget?: number;
  /**
   * This store's name among the action log's readers (a stream consumer). Default `relay` for every
   * instance: a record's lease is its idle time, whoever holds it, so one shared name works and
   * restarts leave no consumer behind.
   */
  logConsumer?: string;
  /** How long an action log record read here stays this reader's before another may claim it. Default 30 s. */
  logLeaseMs?: number;
  /**
   * Replication is asynchronous: a primary that fails over may take its last writes with it. With
   * this, a create and a one-off pull that delivered something wait (`WAIT replicas timeoutMs`) until
   * that many replicas hold the write before answering. Unconfirmed in time, a create fails
   * (retriable: creates are idempotent, so the repeat is safe) and a pull answers anyway (the actions
   * are marked on the primary; a failover now would deliver them again) and calls `onUnconfirmed`.
   * Default: no waiting (docs/reliability.md "Redis failover").
   */
  replicaWait?: { replicas: number; timeoutMs: number };
  onUnconfirmed?: (what: 'pull' | 'create', replicas: number) => void;
}

/** A script run by SHA, loaded on first use or after a Redis restart (NOSCRIPT). */
class LuaScript {
  private readonly sha: string;
  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: Redis, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (err instanceof ReplyError && String((err as Error).message).startsWith('NOSCRIPT')) {
        return redis.eval(this.source, keys.length, ...keys, ...args);
      }
      throw err;
    }
  }
}

const scripts = {
  create: new LuaScript(CREATE),
  pull: new LuaScript(PULL),
  feedback: new LuaScript(FEEDBACK),
  sweep: new LuaScript(SWEEP),
  unblock: new LuaScript(UNBLOCK),
  stats: new LuaScript(STATS),
  ackLog: new LuaScript(ACK_LOG),
  countPerson: new LuaScript(COUNT_PERSON),
  erasePerson: new LuaScript(ERASE_PERSON),
  rewriteLog: new LuaScript(REWRITE_LOG),
};

/** How long an erasure waits for an AOF rewrite that was already running before asking for its own. */
const AOF_WAIT_MS = 10_000;

/** Outbox records one XRANGE of an erasure's pass reads. */
const OUTBOX_PAGE = 1000;

/** Index members one ZSCAN step of an export asks for (a hint: Redis returns a small index whole). */
const EXPORT_PAGE = 500;

const STATES: Record<string, PersonActionState> = { a: 'available', d: 'delivered', x: 'expired', w: 'withdrawn' };

/** The stream consumer group every action log reader of every store instance belongs to. */
const LOG_GROUP = 'relay';
/** Record ids one acknowledgement script takes at most (Lua's unpack limit is far above). */
const ACK_CHUNK = 1000;

type StreamRecord = [id: string, fields: string[] | null];

/**
 * Redis error replies whose code means "the server is busy or failing over" are worth retrying;
 * any other error reply (a script bug, a wrong type) is not. Connection-level failures always are.
 */
const RETRIABLE_REPLY = /^(BUSY|LOADING|READONLY|TRYAGAIN|CLUSTERDOWN|MASTERDOWN|MOVED|ASK)\b/;

function toInfraError(err: unknown, op: string): InfraError {
  if (err instanceof InfraError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const retriable = err instanceof ReplyError ? RETRIABLE_REPLY.test(message) : true;
  return new InfraError('redis', `${op}: ${message}`, { retriable, cause: err });
}

const SWEEP_BATCH = 1000;

export class RedisActionStore implements ActionStore {
  private readonly redis: Redis;
  private readonly clock: Clock;
  private readonly prefix: string;
  private readonly retentionMs: number;
  private readonly blockTtlMs: number;
  private readonly lazySweep: number;
  private readonly scanBudget: number | undefined;
  private readonly logConsumer: string;
  private readonly logLeaseMs: number;
  private readonly replicaWait: RedisActionStoreOptions['replicaWait'];
  private readonly onUnconfirmed: NonNullable<RedisActionStoreOptions['onUnconfirmed']>;
  /** Set while the primary has fewer replicas than replicaWait asks for: WAIT is skipped until `until`. */
  private shortOfReplicas?: { connected: number; until: number };
  /** Apps whose outbox stream is known to have the readers' group. */
  private readonly logGroups = new Set<string>();

  constructor(opts: RedisActionStoreOptions) {
    this.redis = opts.redis;
    this.clock = opts.clock;
    this.prefix = opts.prefix ?? 'evp:act:';
    this.retentionMs = opts.retentionMs ?? DEFAULT_RETENTION_MS;
    this.blockTtlMs = opts.blockTtlMs ?? DEFAULT_BLOCK_TTL_MS;
    this.lazySweep = opts.lazySweep ?? 100;
    this.scanBudget = opts.scanBudget;
    this.logConsumer = opts.logConsumer ?? LOG_GROUP;
    this.logLeaseMs = opts.logLeaseMs ?? DEFAULT_LOG_LEASE_MS;
    this.replicaWait = opts.replicaWait;
    this.onUnconfirmed = opts.onUnconfirmed ?? (() => undefined);
  }

  /**
   * Whether the replicas asked for hold this connection's writes so far (true when not asked to
   * wait); never throws. `WAIT` counts the replicas that acknowledged the connection's latest write
   * offset, which is at or past the script just run.
   */
  private async confirmed(what: 'pull' | 'create'): Promise<boolean> {
    const want = this.replicaWait;
    if (!want) return true;
    // WAIT blocks this connection, and every command queued behind it, until it returns: on a
    // primary with too few replicas (after a failover, before a replica is back) each delivering pull
    // would cost the whole timeout, one after another. Then it is not asked at all until `ROLE` lists
    // enough replicas again (looked at once per timeout), and nothing is confirmed meanwhile.
    if (this.shortOfReplicas) {
      if (Date.now() >= this.shortOfReplicas.until) {
        const connected = await this.connectedReplicas().catch(() => 0);
        this.shortOfReplicas = connected < want.replicas ? { connected, until: Date.now() + want.timeoutMs } : undefined;
      }
      if (this.shortOfReplicas) {
        this.onUnconfirmed(what, this.shortOfReplicas.connected);
        return false;
      }
    }
    // A connection lost while waiting (the primary died) is no confirmation; the write happened.
    const got = await this.redis.wait(want.replicas, want.timeoutMs).then(Number, () => 0);
    if (got >= want.replicas) {
      this.shortOfReplicas = undefined;
      return true;
    }
    const connected = await this.connectedReplicas().catch(() => 0);
    this.shortOfReplicas = connected < want.replicas ? { connected, until: Date.now() + want.timeoutMs } : undefined;
    this.onUnconfirmed(what, got);
    return false;
  }

  /** Replicas connected to the primary now (`ROLE`: their list is its third element). */
  private async connectedReplicas(): Promise<number> {
    const role = (await this.redis.call('ROLE')) as [string, number, unknown[]];
    return role[0] === 'master' ? role[2].length : 0;
  }

  /** `<prefix>{<app>}:`: the braces are a cluster hash tag, so one app's keys share a slot and scripts may touch them together. */
  private base(appId: string): string {
    return `${this.prefix}{${appId}}:`;
  }

  private now(): number {
    return Math.floor(this.clock.now());
  }

  async create(appId: string, actions: readonly NewAction[], opts: CreateOptions = {}): Promise<CreateResult[]> {
    if (actions.length === 0) return [];
    const base = this.base(appId);
    try {
      const need = idsNeeded(actions);
      const fresh: number[] = [];
      if (need > 0) {
        const last = await this.redis.incrby(`${base}ids`, need);
        for (let n = last - need + 1; n <= last; n++) fresh.push(generatedId(n));
      }
      const nowMs = this.clock.now();
      const prepared = prepareActions(actions, fresh, nowMs);
      const toStore = prepared.filter((p) => p.result.status === 'created');
      const results = prepared.map((p) => ({ ...p.result }));
      if (toStore.length === 0) return results;

      const args: (string | number)[] = [base, Math.floor(nowMs), this.retentionMs, opts.source ?? '', APP_CAP_WINDOW_MS, toStore.length];
      for (const p of toStore) {
        const { payload } = p.record;
        args.push(
          p.rid,
          p.record.user_id,
          payload.delivery_mode,
          payload.type,
          payload.render_method,
          p.expiresAt === null ? '' : p.expiresAt,
          payload.internal.inv_id,
          payload.internal.action_id,
          JSON.stringify(p.record),
          JSON.stringify(Object.entries(payload.attr).flat()),
          createdLogValue(p),
          p.availableAt ?? '',
          p.caps?.campaign?.key ?? '',
          p.caps?.campaign?.max ?? '',
          p.caps?.campaign?.within_ms ?? '',
          p.caps?.app?.max ?? '',
        );
      }
      // The app set lets the sweeper find apps without SCAN; outside the script because, in a
      // cluster, it lives in another slot than the app's keys.
      const [statuses] = await Promise.all([
        scripts.create.run(this.redis, [`${base}seq`], args) as Promise<string[]>,
        this.redis.sadd(`${this.prefix}apps`, appId),
      ]);
      if (!(await this.confirmed('create'))) {
        throw new InfraError('redis', `create: fewer than ${this.replicaWait?.replicas} replicas confirmed within ${this.replicaWait?.timeoutMs} ms`, {
          retriable: true,
        });
      }
      let k = 0;
      for (const r of results) {
        if (r.status !== 'created') continue;
        const status = statuses[k++] as string;
        if (status.startsWith('capped:')) {
          r.status = 'capped';
          r.reason = status.slice('capped:'.length) as CapReason;
        } else {
          r.status = status as CreateResult['status'];
        }
      }
      return results;
    } catch (err) {
      throw toInfraError(err, 'create');
    }
  }

  async pull(appId: string, query: PullQuery, opts: PullOptions = {}): Promise<PullResult> {
    const max = opts.max ?? DEFAULT_PULL_MAX;
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`pull max must be a positive integer, got ${max}`);
    const base = this.base(appId);
    const attrs = Object.entries(query.attr ?? {});
    const args: (string | number)[] = [
      base,
      this.now(),
      max,
      query.delivery_mode,
      query.type,
      query.render_method,
      query.user_id,
      query.cursor ?? '',
      this.retentionMs,
      this.scanBudget ?? Math.max(10 * max, 10_000),
      this.lazySweep,
      attrs.length,
      ...attrs.flat(),
    ];
    let reply: [number, string, ...string[]];
    try {
      reply = (await scripts.pull.run(this.redis, [`${base}exp`], args)) as typeof reply;
      // The delivered one-off actions are marked on the primary: answered unconfirmed all the same,
      // since withholding them would lose them (the mark stays), while answering risks a repeat.
      if (query.delivery_mode === 'one-off' && reply.length > 2) await this.confirmed('pull');
    } catch (err) {
      throw toInfraError(err, 'pull');
    }
    // One parse of the joined entries instead of one per entry.
    const [more, cursor, ...entries] = reply;
    const data = JSON.parse(`[${entries.join(',')}]`) as ActionRecord[];
    return more === 1 ? { data, more: true, cursor: String(cursor) } : { data, more: false };
  }

  async recordFeedback(appId: string, fb: ActionFeedback): Promise<FeedbackStatus> {
    const base = this.base(appId);
    const rid = recordId(fb.inv_id, fb.action_id, fb.user_id);
    const now = this.now();
    // Built here rather than in Lua so both adapters serialise the report identically.
    const report: ActionErrorReport | undefined =
      fb.response === 'error' ? { user_id: fb.user_id, inv_id: fb.inv_id, details: clampDetails(fb.details), at: formatMicros(now) } : undefined;
    try {
      return (await scripts.feedback.run(
        this.redis,
        [`${base}a:${rid}`],
        [
          base,
          rid,
          fb.user_id,
          fb.inv_id,
          fb.action_id,
          fb.response,
          now,
          this.retentionMs,
          report ? JSON.stringify(report) : '',
          MAX_LAST_ERRORS,
          this.blockTtlMs,
        ],
      )) as FeedbackStatus;
    } catch (err) {
      throw toInfraError(err, 'recordFeedback');
    }
  }

  async unblock(appId: string, userId: string, actionId: number): Promise<UnblockStatus> {
    const base = this.base(appId);
    try {
      return (await scripts.unblock.run(this.redis, [`${base}st:${actionId}`], [base, actionId, userId])) as UnblockStatus;
    } catch (err) {
      throw toInfraError(err, 'unblock');
    }
  }

  async stats(appId: string, actionId: number): Promise<ActionStats | null> {
    const base = this.base(appId);
    let reply: [string[], (string | null)[]];
    try {
      reply = (await scripts.stats.run(this.redis, [`${base}st:${actionId}`], [base, actionId])) as typeof reply;
    } catch (err) {
      throw toInfraError(err, 'stats');
    }
    const [flat, reports] = reply;
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
    const lastErrors = reports.filter((r): r is string => typeof r === 'string').map((r) => JSON.parse(r) as ActionErrorReport);
    return statsFromFields(actionId, fields, lastErrors);
  }

  async sweepExpired(): Promise<number> {
    try {
      const apps = await this.apps();
      let total = 0;
      for (const app of apps) {
        const base = this.base(app);
        for (;;) {
          const n = Number(await scripts.sweep.run(this.redis, [`${base}exp`], [base, this.now(), SWEEP_BATCH, this.retentionMs]));
          total += n;
          if (n < SWEEP_BATCH) break;
        }
      }
      return total;
    } catch (err) {
      throw toInfraError(err, 'sweepExpired');
    }
  }

  private async apps(): Promise<string[]> {
    return (await this.redis.smembers(`${this.prefix}apps`)).sort();
  }

  /**
   * Per app with records in its outbox: first records other readers read but did not acknowledge
   * within the lease (XAUTOCLAIM: a crashed relay's), then records nobody read yet (XREADGROUP).
   */
  async readLog(max: number): Promise<ActionLogBatch> {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`readLog max must be a positive integer, got ${max}`);
    const batch: ActionLogBatch = { entries: [], acks: [] };
    try {
      const apps = await this.apps();
      const lengths = await this.logLengths(apps);
      for (let i = 0; i < apps.length && batch.entries.length < max; i++) {
        if ((lengths[i] ?? 0) === 0) continue;
        const app = apps[i] as string;
        const key = `${this.base(app)}log`;
        await this.ensureLogGroup(app, key);
        const claimed = (await this.redis.xautoclaim(key, LOG_GROUP, this.logConsumer, this.logLeaseMs, '0-0', 'COUNT', LOG_READ_RECORDS)) as [
          string,
          StreamRecord[],
        ];
        const fresh = (await this.redis.xreadgroup('GROUP', LOG_GROUP, this.logConsumer, 'COUNT', LOG_READ_RECORDS, 'STREAMS', key, '>')) as
          [string, StreamRecord[]][] | null;
        for (const [id, fields] of [...claimed[1], ...(fresh?.[0]?.[1] ?? [])]) {
          // A record deleted while pending comes back without fields: only its ack is left to do.
          if (fields) batch.entries.push(...entriesOfLogRecord(app, fields));
          batch.acks.push(logAck(app, id));
        }
      }
      return batch;
    } catch (err) {
      // The group may have gone with its stream (deleted by hand): created again on the next read.
      this.logGroups.clear();
      throw toInfraError(err, 'readLog');
    }
  }

  /** The readers' group, created at the stream's first record ('0'), so no record is ever skipped. */
  private async ensureLogGroup(app: string, key: string): Promise<void> {
    if (this.logGroups.has(app)) return;
    try {
      await this.redis.xgroup('CREATE', key, LOG_GROUP, '0', 'MKSTREAM');
    } catch (err) {
      if (!(err instanceof ReplyError && String((err as Error).message).startsWith('BUSYGROUP'))) throw err;
    }
    this.logGroups.add(app);
  }

  async ackLog(acks: readonly string[]): Promise<void> {
    const byApp = new Map<string, string[]>();
    for (const ack of acks) {
      const { appId, recordId } = parseLogAck(ack);
      const ids = byApp.get(appId) ?? [];
      byApp.set(appId, ids);
      ids.push(recordId);
    }
    try {
      for (const [app, ids] of byApp) {
        for (let i = 0; i < ids.length; i += ACK_CHUNK) {
          await scripts.ackLog.run(this.redis, [`${this.base(app)}log`], [LOG_GROUP, ...ids.slice(i, i + ACK_CHUNK)]);
        }
      }
    } catch (err) {
      throw toInfraError(err, 'ackLog');
    }
  }

  async logLength(): Promise<number> {
    try {
      return (await this.logLengths(await this.apps())).reduce((a, b) => a + b, 0);
    } catch (err) {
      throw toInfraError(err, 'logLength');
    }
  }

  /** XLEN of every app's outbox in one round trip (acknowledged records are deleted, so this is the backlog). */
  private async logLengths(apps: readonly string[]): Promise<number[]> {
    if (apps.length === 0) return [];
    const pipe = this.redis.pipeline();
    for (const app of apps) pipe.xlen(`${this.base(app)}log`);
    const replies = (await pipe.exec()) ?? [];
    return replies.map(([err, n]) => {
      if (err) throw err;
      return Number(n);
    });
  }

  async countPeople(appId: string, userIds: readonly string[]): Promise<PersonHoldings> {
    try {
      return await this.holdings(appId, userIds);
    } catch (err) {
      throw toInfraError(err, 'countPeople');
    }
  }

  private async holdings(appId: string, userIds: readonly string[]): Promise<PersonHoldings> {
    const base = this.base(appId);
    const total: PersonHoldings = { records: 0, keys: 0 };
    for (const user of new Set(userIds)) {
      const [records, keys] = (await scripts.countPerson.run(this.redis, [`${base}ix:${user}`], [base, user, String(this.now())])) as [number, number];
      total.records += records;
      total.keys += keys;
    }
    total.records += (await this.outboxNaming(appId, userIds, async () => undefined)) ?? 0;
    return total;
  }

  /**
   * The action log entries naming these users in the app's outbox: every record is read, page by
   * page, outside any script (the outbox is the relay's backlog, not the keyspace); `onRecord` gets
   * each record that names one of them. Returns how many entries named them.
   */
  private async outboxNaming(appId: string, userIds: readonly string[], onRecord: (id: string) => Promise<unknown>): Promise<number> {
    const key = `${this.base(appId)}log`;
    const users = new Set(userIds);
    let from = '-';
    let named = 0;
    for (;;) {
      const page = (await this.redis.xrange(key, from, '+', 'COUNT', OUTBOX_PAGE)) as StreamRecord[];
      for (const [id, fields] of page) {
        const n = logRecordWithout(fields ?? [], users).removed;
        if (n === 0) continue;
        named += n;
        await onRecord(id);
      }
      if (page.length < OUTBOX_PAGE) return named;
      from = `(${(page[page.length - 1] as StreamRecord)[0]}`;
    }
  }

  /**
   * Every key of the users through their index, in one script per user (atomic: no step of theirs
   * runs half before it), then their entries out of the outbox, then an AOF rewrite so the deleted
   * data also leaves the append-only file (docs/privacy.md, "Erasure and export").
   */
  async erasePeople(appId: string, userIds: readonly string[]): Promise<PersonErasure> {
    const base = this.base(appId);
    const none = { records: 0, keys: 0 };
    // A request naming patients only: the store knows people by user id, so there is nothing to look at.
    if (userIds.length === 0) return { before: none, after: none, storage: 'no user ids: nothing looked for, no AOF rewrite asked' };
    try {
      const before = await this.holdings(appId, userIds);
      for (const user of new Set(userIds)) await scripts.erasePerson.run(this.redis, [`${base}ix:${user}`], [base, user]);
      await this.outboxNaming(appId, userIds, (id) => scripts.rewriteLog.run(this.redis, [`${base}log`], [id, ...new Set(userIds)]));
      const held = before.records + before.keys > 0;
      const storage = held ? await this.rewriteAof() : 'nothing held: no AOF rewrite asked';
      return { before, after: await this.holdings(appId, userIds), storage };
    } catch (err) {
      throw toInfraError(err, 'erasePeople');
    }
  }

  /**
   * Asks for an AOF rewrite, whose new file holds only the live data. A rewrite already running
   * forked before the delete, so its file still holds the deleted data (Redis then refuses another):
   * waited for, up to AOF_WAIT_MS, and asked again; what happened is said in the answer.
   */
  private async rewriteAof(): Promise<string> {
    const aof = /^aof_enabled:1/m.test(await this.redis.info('persistence')) ? 'AOF on' : 'AOF off (nothing appended; RDB snapshots only)';
    const started = Date.now();
    for (;;) {
      try {
        const waited = Date.now() - started;
        return `BGREWRITEAOF: ${String(await this.redis.bgrewriteaof())}${waited > 0 ? ` (after waiting ${waited} ms for a running rewrite)` : ''}; ${aof}`;
      } catch (err) {
        if (!(err instanceof ReplyError)) throw err;
        const message = (err as Error).message;
        if (!/already in progress/.test(message) || Date.now() - started >= AOF_WAIT_MS) {
          return `BGREWRITEAOF refused: ${message} (a rewrite that started before the delete keeps the deleted data until the next one); ${aof}`;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /**
   * The user's actions through their index ('ix:'), ZSCAN page by page (never the whole index at
   * once), one pipeline of HGETALL + GET per page. ZSCAN returns every member present for the whole
   * scan; a member it returns twice (the set rehashed meanwhile) is handed out once per page only,
   * so the caller sees a repeat only when the index changed during the export.
   */
  async *personActions(appId: string, userId: string): AsyncGenerator<PersonAction> {
    const base = this.base(appId);
    let cursor = '0';
    do {
      let page: string[];
      try {
        [cursor, page] = await this.redis.zscan(`${base}ix:${userId}`, cursor, 'MATCH', 'a:*', 'COUNT', EXPORT_PAGE);
      } catch (err) {
        throw toInfraError(err, 'personActions');
      }
      // ZSCAN answers member, score pairs; the score (its lapse) is not needed: a lapsed key is gone.
      const rids = [...new Set(page.filter((_, i) => i % 2 === 0).map((m) => m.slice(2)))];
      if (rids.length === 0) continue;
      const pipe = this.redis.pipeline();
      for (const rid of rids) pipe.hgetall(`${base}a:${rid}`).get(`${base}j:${rid}`);
      const replies = (await pipe.exec()) ?? [];
      for (let i = 0; i < rids.length; i++) {
        const [hErr, hash] = replies[2 * i] ?? [];
        const [jErr, json] = replies[2 * i + 1] ?? [];
        if (hErr || jErr) throw toInfraError(hErr ?? jErr, 'personActions');
        const h = hash as Record<string, string>;
        if (!h?.u) continue;
        yield personActionOf(h, typeof json === 'string' ? json : null);
      }
    } while (cursor !== '0');
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  /** The Redis connection belongs to the composition root, which closes it. */
  async close(): Promise<void> {}
}

/** A stored action hash (lua.ts: u m t r e st av i c v, 'f:'..response) and its entry JSON, as an export's PersonAction. */
function personActionOf(h: Record<string, string>, json: string | null): PersonAction {
  const kv = JSON.parse(h.av ?? '[]') as string[];
  const attr: Record<string, string> = {};
  for (let j = 0; j + 1 < kv.length; j += 2) attr[kv[j] as string] = kv[j + 1] as string;
  const state = STATES[h.st ?? ''] ?? 'available';
  return {
    user_id: h.u as string,
    inv_id: Number(h.i),
    action_id: Number(h.c),
    state,
    delivery_mode: h.m as string,
    type: h.t as string,
    render_method: h.r as string,
    attr,
    expires_at: h.e ? Number(h.e) : null,
    available_at: h.v ? Number(h.v) : null,
    feedback: Object.keys(h)
      .filter((k) => k.startsWith('f:'))
      .map((k) => k.slice(2))
      .sort(),
    // A cached action no pull returned yet has its entry behind a space (lua.ts): JSON.parse skips it.
    entry: state === 'available' && json !== null ? (JSON.parse(json) as PersonAction['entry']) : null,
  };
}
