import type { ActionLogBatch } from './action-log';
import type {
  ActionFeedback,
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
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * How long a user's block of an action_id lasts after their last block of it (docs/actions.md,
 * "Redis data model"): campaigns re-run their variant action ids, so a block outlives the action
 * it came from, but not the campaign history it refers to (a year, with a month to spare).
 */
export const DEFAULT_BLOCK_TTL_MS = 400 * 24 * 60 * 60 * 1000;

/** How long a delivered, expired or withdrawn action is remembered (idempotency, feedback). */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
