import { Registry } from 'prom-client';
import {
  consumerPart,
  createInMemoryLeaseStore,
  errorMessage,
  leaseTtlMs,
  leasedTurns,
  type Analytics,
  type ConsumerDeps,
  type LeaseStore,
  type MessageBatch,
  type SchemaRegistry,
  type SubscriptionHealth,
} from '@evp/core';
import type { InsertedRow } from '../sink';
import { createChangeLog } from './change-log';
import type { CompiledSegment } from '@evp/segment-language';
import { createSegmentStore, type SegmentStore } from './definitions-store';
import { createEvaluator } from './evaluator';
import { usersBeingErased } from '../privacy';
import { createMembershipState } from './membership-store';
import { createEngineMetrics } from '../metrics';
import { SEGMENT_ENGINE_NAME, SEGMENT_ENGINE_OPTIONS, type SegmentEngineConfig } from './options';
import type { MembershipReader, Segment, SegmentDefinitions, SegmentScheduler } from './model';
import { SegmentCache } from './segment-cache';
import { collectWork, coveredFull, timeDrivenWork, type LastFull, type SegmentWork } from './batch-work';
import { readWorkItem, workForRows, workKey, workMessage, type WorkItem } from './work';
import { expireMembershipsRound, type MembershipExpiryDeps } from './membership-expiry';

/** `now`: the instant of evaluations, requests and definition times. */
export interface SegmentEngineDeps extends ConsumerDeps<SegmentEngineConfig> {
  analytics: Analytics;
  registry: SchemaRegistry;
  /** A saved definition → its query (@evp/segment-language); called once per segment version. */
  compile: (segment: Segment) => CompiledSegment | Promise<CompiledSegment>;
  metrics?: Registry;
  /** Ids of new segments. Default: random UUIDs. */
  newId?: () => string;
  /**
   * The apps and their retention, for the expiry of ended memberships every `expiryIntervalMs`
   * (membership-expiry.ts): the keys ring's, which follow the keys file. Absent: no expiry here.
   */
  expiry?: Pick<MembershipExpiryDeps, 'apps' | 'retention'>;
  /**
   * Where the expiry's lease is held (`segments.expiry`): the replicas' shared one (Redis) makes one
   * replica at a time run a round. Default: this engine's own, in memory.
   */
  lease?: LeaseStore;
}

/** The expiry's lease: one name in every replica. */
const EXPIRY_LEASE = 'segments.expiry';

export interface SegmentEngine {
  /** Where definitions are saved (ClickHouse `segment_definitions`). Saving does not request a recompute: the caller does (scheduler). */
  readonly definitions: SegmentDefinitions;
  /** Current members (ClickHouse `segment_members`). */
  readonly membership: MembershipReader;
  /** Requests a full recompute of one segment (after create, update, delete, or a change of a segment it references). */
  readonly scheduler: SegmentScheduler;
  /** The sink's hook: work items for the segments the stored rows may change. */
  onInserted(rows: InsertedRow[]): Promise<void>;
  /** Requests a full recompute of every time-driven segment now (what the timer does every interval). */
  scheduleTimeDriven(): Promise<void>;
  /** Reloads the list of segments the sink hook matches against (the timer does it every refresh interval). */
  refresh(): Promise<void>;
  /**
   * One round of the expiry of ended memberships (what its timer does every `expiryIntervalMs`), if
   * this replica holds (or takes) the expiry lease: true when the round ran, false when another
   * replica holds the lease or the engine has no `expiry`. A lease store that fails throws, nothing deleted.
   */
  expire(): Promise<boolean>;
  /**
   * Loads the segments and starts the list refresh, so that the hooks (`onInserted`, `scheduler`)
   * produce work; with `consume` (default true) also registers the membership schema, joins the work
   * group and starts the scheduled recompute: a replica without the `segments` part only produces.
   */
  start(options?: { consume?: boolean }): Promise<void>;
  /** Stops the timers, lets the work in hand finish, leaves the group. */
  stop(): Promise<void>;
  health(): SubscriptionHealth;
  readonly metrics: Registry;
}

/** How long emitted marks wait at most for a segment's next write before being written alone. */
const MARKS_HELD_MS = 1_000;

/** Users one scoped evaluation names at most: a larger set is evaluated in parts. */
const USERS_PER_EVALUATION = 10_000;

/**
 * The segment engine (docs/segments.md): definitions and membership in ClickHouse, work on
 * `segments.work` (one consumer group: a partition's owner is the only replica evaluating its
 * segments), incremental work from the sink, scheduled full recomputes of time-driven segments, and
 * every change of membership once on `segments.membership`.
 */
export function createSegmentEngine(deps: SegmentEngineDeps): SegmentEngine {
  const { config, now, life } = consumerPart(SEGMENT_ENGINE_NAME, SEGMENT_ENGINE_OPTIONS, deps);
  const { logger } = life;
  const metricRegistry = deps.metrics ?? new Registry();
  const metrics = createEngineMetrics(metricRegistry);
  const store: SegmentStore = createSegmentStore({ analytics: deps.analytics, now, ...(deps.newId ? { newId: deps.newId } : {}) });
  const state = createMembershipState(deps.analytics);
  const cache = new SegmentCache(store, deps.compile, logger);
  const log = createChangeLog({ bus: deps.bus, registry: deps.registry, topic: config.membershipTopic });
  const evaluator = createEvaluator({
    analytics: deps.analytics,
    state,
    log,
    compile: (s) => cache.compile(s),
    now,
    wallClock: Date.now,
    recoveryMarginMs: config.recoveryMarginMs,
    logger,
    metrics,
    erasing: usersBeingErased(deps.analytics),
  });
  /** This replica's last full evaluation per segment: when it started and which version it evaluated. */
  const lastFull = new Map<string, LastFull>();
  let consuming = false;
  let marksTimer: NodeJS.Timeout | undefined;

  async function produce(items: WorkItem[], source: 'sink' | 'schedule' | 'request'): Promise<void> {
    if (items.length === 0) return;
    await life.producer().send(config.workTopic, items.map(workMessage));
    for (const i of items) metrics.workProduced.inc({ kind: i.kind, source });
  }

  /** Evaluates one segment's work; returns how many items were evaluated and how many a full evaluation made moot. */
  async function handleWork(w: SegmentWork): Promise<{ kind: 'users' | 'full'; outcome: 'evaluated' | 'skipped'; n: number }[]> {
    const key = workKey(w.app_id, w.segment_id);
    const users = [...w.users];
    const first = users.slice(0, USERS_PER_EVALUATION);
    // The sink's work (users only, the common case): the first part's state is read while the
    // definition is, one round trip off the path from an event to its change.
    const read = w.fullRequestedAt === undefined && first.length > 0 ? evaluator.load(w.app_id, w.segment_id, first) : undefined;
    // Awaited below or, when the segment is gone, dropped: never an unhandled rejection.
    read?.rows.catch(() => undefined);
    const segment = await store.latest(w.app_id, w.segment_id);
    if (!segment) {
      logger.warn({ app_id: w.app_id, segment_id: w.segment_id }, 'work for a segment that does not exist: skipped');
      return [
        { kind: 'full', outcome: 'skipped', n: w.fullItems },
        { kind: 'users', outcome: 'skipped', n: w.userItems },
      ];
    }
    if (w.fullRequestedAt !== undefined && !coveredFull(lastFull.get(key), w.fullRequestedAt, segment.version)) {
      const startedAt = now();
      await evaluator.evaluate(segment);
      lastFull.set(key, { startedAt, version: segment.version });
      // Every user was evaluated: the batch's user items are covered too.
      return [
        { kind: 'full', outcome: 'evaluated', n: w.fullItems },
        { kind: 'users', outcome: 'skipped', n: w.userItems },
      ];
    }
    if (first.length > 0) await evaluator.evaluate(segment, first, read);
    for (let i = USERS_PER_EVALUATION; i < users.length; i += USERS_PER_EVALUATION) await evaluator.evaluate(segment, users.slice(i, i + USERS_PER_EVALUATION));
    return [
      { kind: 'full', outcome: 'skipped', n: w.fullItems },
      { kind: 'users', outcome: 'evaluated', n: w.userItems },
    ];
  }

  async function handleBatch(batch: MessageBatch): Promise<void> {
    const work = collectWork(batch.messages.map(readWorkItem));
    // Each evaluation first publishes what a writer (a crashed replica, or this one) left half done
    // for its segment (evaluator.ts).
    const outcomes = [];
    for (const w of work.values()) outcomes.push(...(await handleWork(w)));
    // Counted once the whole batch is done (a failed batch is delivered again and counted then).
    for (const o of outcomes) if (o.n > 0) metrics.workItems.inc({ kind: o.kind, outcome: o.outcome }, o.n);
    armMarksTimer();
  }

  /**
   * The emitted marks held back ride in each segment's next write; those still held a while later
   * are written on their own (evaluator.ts), so a pause leaves nothing pending for long. A failed
   * write keeps them held and tries again after the same while.
   */
  function armMarksTimer() {
    marksTimer ??= setTimeout(() => {
      marksTimer = undefined;
      evaluator.flushMarks().catch((err: unknown) => {
        logger.warn({ err }, `writing emitted marks failed (kept, tried again): ${errorMessage(err)}`);
        if (consuming) armMarksTimer();
      });
    }, MARKS_HELD_MS);
  }

  // Every consuming replica's expiry timer fires on the same instants; the lease's holder alone runs
  // the round and keeps the lease to the next one (leaseTtlMs: twice the period). A round run twice
  // (a holder back from a pause past the TTL) deletes nothing more: the second finds nothing ended.
  const expiryTurns = leasedTurns({
    lease: deps.lease ?? createInMemoryLeaseStore(),
    name: EXPIRY_LEASE,
    ttlMs: leaseTtlMs(config.expiryIntervalMs),
    logger,
  });
  async function expire(): Promise<boolean> {
    const { expiry } = deps;
    if (!expiry) return false;
    // On the part's clock (a test's ManualClock moves it), with the evaluations' `now`.
    return (await expiryTurns.run(() => expireMembershipsRound({ ...expiry, analytics: deps.analytics, logger, now }))).ran;
  }

  /** Requests a full recompute of every time-driven segment (every replica on the same instants: timeDrivenWork). */
  const scheduleTimeDriven = () => produce(timeDrivenWork(cache.all(), now(), config.recomputeIntervalMs), 'schedule');

  return {
    definitions: store,
    membership: state,
    metrics: metricRegistry,
    scheduler: {
      requestRecompute: (appId, segmentId) => produce([{ kind: 'full', app_id: appId, segment_id: segmentId, requested_at: now() }], 'request'),
    },
    onInserted: (rows) =>
      produce(
        workForRows(rows, (app) => cache.forApp(app), config.usersPerItem, now()),
        'sink',
      ),
    scheduleTimeDriven,
    refresh: () => cache.refresh(),
    expire,
    health: () => life.health(),
    async start({ consume = true } = {}) {
      if (!(await life.open())) return;
      await cache.refresh();
      life.every(config.refreshIntervalMs, 'segment list refresh', () => cache.refresh());
      if (!consume) {
        logger.info('segment engine producing work only (no work consumer on this replica)');
        return;
      }
      await log.start();
      consuming = true;
      await life.consume({ groupId: config.groupId, topics: [config.workTopic], fromBeginning: true, concurrency: config.concurrency, handleBatch });
      life.every(config.recomputeIntervalMs, 'scheduled recompute', scheduleTimeDriven);
      const { expiry } = deps;
      if (expiry) life.every(config.expiryIntervalMs, 'expiry of ended memberships', async () => void (await expire()));
      logger.info(
        {
          group: config.groupId,
          topic: config.workTopic,
          recomputeIntervalMs: config.recomputeIntervalMs,
          expiryIntervalMs: expiry ? config.expiryIntervalMs : 0,
        },
        'segment engine running',
      );
    },
    async stop() {
      consuming = false;
      await life.stop({
        flush: () => {
          clearTimeout(marksTimer);
          marksTimer = undefined;
          // What is left is recovered by the next owner if this fails (found on the topic, not sent again).
          return evaluator.flushMarks().catch((err: unknown) => logger.warn({ err }, `writing emitted marks on stop failed: ${errorMessage(err)}`));
        },
        close: () => log.stop(),
      });
      // The round in hand has ended: another replica takes the expiry over at its next turn.
      await expiryTurns.release();
      logger.info('segment engine stopped');
    },
  };
}
