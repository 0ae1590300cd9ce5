import type { ActionLogBatch } from './action-log';
import type {
  ActionFeedback,
  ActionRecord,
  ActionStats,
  CreateOptions,
  CreateResult,
  FeedbackStatus,
  NewAction,
  UnblockStatus,
  PullOptions,
  PullQuery,
  PullResult,
} from './model';

/**
 * ActionStore port. Every operation is scoped to one app; nothing reads or changes another app's
 * actions. Contract (checked by the conformance suite in @evp/testkit against every adapter):
 * - `create` is idempotent on (app, inv_id, action_id, user_id): a repeat returns `duplicate` and
 *   changes nothing, also after a one-off action was delivered (within the retention window).
 *   Results come back in input order.
 * - `pull` returns available actions matching user (`*` = all), type, render_method, delivery_mode
 *   and every given attr pair, oldest first, at most `max`; `more` says whether matches were left.
 *   A one-off action is returned by exactly one pull ever, also under concurrent pulls on several
 *   store instances. A cached one is returned by every matching pull until `expired_at`.
 *   Expired actions are never returned, nor actions before their `available_at` (order stays by
 *   creation, see docs/actions.md "Availability").
 * - `create` checks an action's `caps` in the same atomic step as storing it, after the expired,
 *   duplicate and block checks: a full cap answers `capped` with its `reason`, stores nothing and
 *   logs a `capped` entry; a created action counts in each cap it carried (docs/actions.md
 *   "Frequency caps"), also against concurrent creates on several store instances.
 * - `recordFeedback` counts each (action, user, response) once; `block` stops that action_id for
 *   that user (queued ones are withdrawn, later creates return `blocked`) until `unblock`. A recorded
 *   `error` keeps its details (clampDetails) as that user's latest error in `stats().last_errors`
 *   (most recent first, at most MAX_LAST_ERRORS users).
 * - `unblock` lifts a block for one (user, action_id): later creates are accepted again; actions
 *   withdrawn by the block stay withdrawn.
 * - The action log: in the same atomic step as the change, every created and every capped action, the first delivery
 *   of every action (a one-off action's only one; a cached action's first pull), every withdrawal
 *   by a block and every expiry of an action no pull had returned is appended to the outbox (see
 *   action-log.ts). `readLog` hands out whole records, each to one reader at a time: a record read
 *   and not acknowledged within the lease is handed out again (at-least-once); `ackLog` removes
 *   records for good. Entries are never dropped by the store.
 * - `countPeople` counts what the store holds of some users of one app; `erasePeople` deletes it
 *   (docs/privacy.md, "Erasure and export"): their actions in every state, delivery state and
 *   feedback marks, blocks, cap counters, error reports, and every action log entry naming them
 *   that is still in the outbox. Other users and other apps are left exactly as they were. The
 *   per-action_id counters (`stats`) are sums over everyone and stay.
 * - `personActions` hands out every action the store still remembers of one user of one app, in
 *   any state, one page at a time (an export's lines: never the whole set at once); the same
 *   PersonAction for the same operations on every adapter. What is not an action (blocks, caps,
 *   error reports, outbox entries) is not in it: the outbox reaches ClickHouse's actions_log.
 * - Infrastructure failures throw InfraError (with `retriable`); invalid input is the caller's job
 *   (see validation.ts), the store trusts its arguments.
 */
export interface ActionStore {
  create(appId: string, actions: readonly NewAction[], opts?: CreateOptions): Promise<CreateResult[]>;
  pull(appId: string, query: PullQuery, opts?: PullOptions): Promise<PullResult>;
  recordFeedback(appId: string, feedback: ActionFeedback): Promise<FeedbackStatus>;
  unblock(appId: string, userId: string, actionId: number): Promise<UnblockStatus>;
  /** Counters of one action_id in one app; null when the app never created it. */
  stats(appId: string, actionId: number): Promise<ActionStats | null>;
  /** Removes every expired action of every app from the indices; returns how many. */
  sweepExpired(): Promise<number>;
  /**
   * Outbox records not handed to a reader yet, or whose reader's lease ran out; whole records, until
   * at least `max` entries (the last record may pass it), apps in id order, each app's records oldest first.
   */
  readLog(max: number): Promise<ActionLogBatch>;
  /** Removes the records of these acks from the outbox; unknown or repeated acks are ignored. */
  ackLog(acks: readonly string[]): Promise<void>;
  /** Records in the outbox (read or not) that are not acknowledged yet. */
  logLength(): Promise<number>;
  /** What the store holds of these users of one app (before and after an erasure). */
  countPeople(appId: string, userIds: readonly string[]): Promise<PersonHoldings>;
  /** Deletes everything the store holds of these users of one app; counts before and after. */
  erasePeople(appId: string, userIds: readonly string[]): Promise<PersonErasure>;
  /** The actions the store remembers of one user of one app (any state), page by page, in no stated order. */
  personActions(appId: string, userId: string): AsyncIterable<PersonAction>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** A remembered action's state: pullable, delivered, expired, or withdrawn by a block. */
export type PersonActionState = 'available' | 'delivered' | 'expired' | 'withdrawn';

/**
 * One action the store holds of a person, as an export writes it: what every adapter keeps for the
 * action's whole retention, and the full entry (`entry`) while it is available (the Redis adapter
 * drops the entry when the action leaves circulation, keeping the small record for idempotency and
 * feedback: an export hands out what is stored, no more).
 */
export interface PersonAction {
  user_id: string;
  inv_id: number;
  action_id: number;
  state: PersonActionState;
  delivery_mode: string;
  type: string;
  render_method: string;
  attr: Record<string, string>;
  /** Epoch ms; null = never expires. */
  expires_at: number | null;
  /** Epoch ms before which no pull returns it; null = from its creation. */
  available_at: number | null;
  /** The feedback responses recorded (each counted once), sorted. */
  feedback: string[];
  entry: ActionRecord | null;
}

/**
 * What a store holds of some users. `records` is the same for every adapter given the same
 * operations (the conformance suite checks it): each action still remembered, each blocked
 * action_id, each entry of a cap counter, each latest error report, each action log entry in the
 * outbox. `keys` is the adapter's own storage naming them (Redis: keys, the per-user index
 * included); after an erasure both are 0.
 */
export interface PersonHoldings {
  records: number;
  keys: number;
}

export interface PersonErasure {
  before: PersonHoldings;
  after: PersonHoldings;
  /**
   * What was asked of the storage so the deleted data also leaves its disk files, as said by it
   * (Redis: the answer to BGREWRITEAOF and whether the AOF is on; in memory: nothing on disk).
   */
  storage: string;
}

/**
 * How long a user's block of an action_id lasts after their last block of it (docs/actions.md,
 * "Redis data model"): campaigns re-run their variant action ids, so a block outlives the action
 * it came from, but not the campaign history it refers to (a year, with a month to spare).
 */
export const DEFAULT_BLOCK_TTL_MS = 400 * 24 * 60 * 60 * 1000;

/** How long a delivered, expired or withdrawn action is remembered (idempotency, feedback). */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
