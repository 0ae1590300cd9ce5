/**
 * Domain types of the action store (spec 2.5, 3, 4.1). Field names follow the wire format so a
 * stored record is returned by a pull without renaming.
 */
import { ACTION_TYPES, DELIVERY_MODES, RENDER_METHODS, type ActionCaps, type ActionContent, type NewActionFields } from '@evp/schemas';

// The action's fields and their enums are the data contract's (schemas/src/action-request.ts).
export { ACTION_TYPES, DELIVERY_MODES, MAX_ACTIONS_PER_CREATE, MAX_GIVEN_ID, RENDER_METHODS } from '@evp/schemas';
export type { ActionCaps, ActionContent } from '@evp/schemas';
export type ActionType = (typeof ACTION_TYPES)[number];
export type RenderMethod = (typeof RENDER_METHODS)[number];
export type DeliveryMode = (typeof DELIVERY_MODES)[number];

/**
 * The spec leaves the type↔render_method rule open ("not shown"). Ours: a `message` may be rendered
 * any way; a `custom` action is content for the app's own UI (e.g. a recommendation list), which the
 * OS cannot show as a push notification, so it may only be an in-app message or a generic message.
 */
export const RENDER_METHODS_BY_TYPE: Readonly<Record<ActionType, readonly RenderMethod[]>> = {
  message: ['push_notification', 'in_app_message', 'generic_message'],
  custom: ['in_app_message', 'generic_message'],
};

export function isRenderMethodAllowed(type: ActionType, renderMethod: RenderMethod): boolean {
  return RENDER_METHODS_BY_TYPE[type].includes(renderMethod);
}

/** Go's zero time, which the upstream API uses for "never expires". */
export const NEVER_EXPIRES = '0001-01-01T00:00:00Z';

/** Default and hard upper bound of actions returned by one pull (spec 8 leaves it open). */
export const DEFAULT_PULL_MAX = 1000;
/** Ids a caller gives are 32-bit (MAX_GIVEN_ID); ids the store generates start above them so the two never collide. */
export const FIRST_GENERATED_ID = 2_147_483_648;

/** Responses a client reports for an action (`nudge_response.response`, spec 3). */
export const ACTION_RESPONSES = ['shown', 'open', 'discard', 'block', 'expired', 'error'] as const;
export type ActionResponse = (typeof ACTION_RESPONSES)[number];

export interface ActionInternal {
  inv_id: number;
  action_id: number;
  /**
   * ISO 8601 with offset, as given at creation but without fractional seconds (cut, so the client
   * never thinks an action lives longer than it does): the Kenkai client parses it with
   * `ISO8601DateFormatter()`, which fails on a fraction and then never expires the action.
   * `0001-01-01T00:00:00Z` means never.
   */
  expired_at: string;
  /** What the client echoes back as `nudge_response.ref`: `<inv_id>:<action_id>`. */
  ref: string;
  /**
   * The time value of the action (spec 6 nudge_response `time`: "time value given in the request"):
   * its creation time (`queued_at`) and its ref, `<queued_at>#<inv_id>:<action_id>`, so that it is
   * unique per action of a user. The Kenkai client uses it as the action's identity (equality,
   * de-duplication, in-app list ids) and echoes it back in action_response.
   */
  ref_time: string;
}

export interface ActionPayload {
  type: ActionType;
  render_method: RenderMethod;
  delivery_mode: DeliveryMode;
  content: ActionContent;
  attr: Record<string, string>;
  tags: string[];
  internal: ActionInternal;
}

/** Per-entry error of a pull response; spec 7 leaves its shape open. Always null today. */
export interface ActionEntryError {
  code: string;
  message: string;
}

/** One entry of a pull response (spec 2.5). */
export interface ActionRecord {
  user_id: string;
  payload: ActionPayload;
  error: ActionEntryError | null;
  /** UTC, microsecond precision: `2025-01-31T12:00:00.123456Z`. */
  queued_at: string;
}

/**
 * A validated action to create (NEW_ACTION_FIELDS; `available_at`: no pull returns it before that
 * instant, store clock, and pulls still order by creation, docs/actions.md "Availability"). Without
 * both ids creation is not idempotent (ids are generated). `caps` come from `actions.requested` only.
 */
export type NewAction = NewActionFields & { caps?: ActionCaps };

/**
 * Caps (ActionCaps):
 * - campaign: at most `max` created actions with this `key` (the campaign id) per user in the
 *   rolling `within_ms` before now (store clock). One key should always come with one window: the
 *   counter is trimmed to the window of the action being checked.
 * - app: at most `max` created actions per user in the rolling APP_CAP_WINDOW_MS before now,
 *   counting only actions that themselves carried an `app` cap.
 */
/** The app cap's rolling window: one day. */
export const APP_CAP_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Why an action was `capped`: which cap was full (the campaign cap is checked first). */
export const CAP_REASONS = ['campaign_cap', 'app_cap'] as const;
export type CapReason = (typeof CAP_REASONS)[number];

export interface CreateOptions {
  /**
   * Who asked for the actions, kept in the action log's `created` entries: `api` (POST /v1/actions),
   * `actions.requested` or that message's own `source`. Default ''.
   */
  source?: string;
}

/**
 * - created: stored and available;
 * - duplicate: an action with the same (app, inv_id, action_id, user_id) exists (or was delivered);
 *   nothing changed;
 * - expired: `expired_at` had already passed, or comes no later than `available_at`; not stored;
 * - blocked: the user blocked this action_id (a `block` response); not stored;
 * - capped: a frequency cap of `caps` was full (`reason` says which); not stored, logged as `capped`.
 */
export type CreateStatus = 'created' | 'duplicate' | 'expired' | 'blocked' | 'capped';

export interface CreateResult {
  status: CreateStatus;
  user_id: string;
  inv_id: number;
  action_id: number;
  /** `capped` only. */
  reason?: CapReason;
}

export interface PullQuery {
  /** A concrete user id, or `*` for every user of the app. */
  user_id: string;
  type: ActionType;
  render_method: RenderMethod;
  delivery_mode: DeliveryMode;
  /** Every pair must be among the action's attributes. */
  attr?: Record<string, string>;
  /** Continue after the last entry of an earlier pull that said `more` (an extension of spec 4.1). */
  cursor?: string;
}

export interface PullOptions {
  /** At most this many entries; default DEFAULT_PULL_MAX. */
  max?: number;
}

export interface PullResult {
  data: ActionRecord[];
  /** True when matching actions are left that this pull did not return. */
  more: boolean;
  /** Present when `more`: pass it back to continue after this page. */
  cursor?: string;
}

/** A client's reaction to one action (from a `nudge_response` / `action_response` event). */
export interface ActionFeedback {
  user_id: string;
  inv_id: number;
  action_id: number;
  response: ActionResponse;
  /** Only for `error`. */
  details?: string;
}

/**
 * - recorded: counted;
 * - repeated: this user already reported this response for this action (at-least-once delivery of
 *   events means repeats are normal); not counted again;
 * - unknown: no such action for this user (never created, or past retention); not counted.
 */
export type FeedbackStatus = 'recorded' | 'repeated' | 'unknown';

export interface ActionCounters {
  created: number;
  /** One-off actions delivered by a pull. Cached pulls are not counted (see docs/actions.md). */
  delivered: number;
  /** Actions swept because `expired_at` passed while still available (unpulled one-off, or cached). */
  expired: number;
  responses: Record<ActionResponse, number>;
}

/** Most `error` reports one action_id keeps (one per user, the most recent users win). */
export const MAX_LAST_ERRORS = 20;
/** Longest `details` kept, in UTF-8 bytes; longer ones are cut at a character boundary. */
export const MAX_ERROR_DETAILS_BYTES = 1024;

/** The latest `error` response of one user for one action_id (spec 7.5: a nudge failed on the device). */
export interface ActionErrorReport {
  user_id: string;
  /** The invocation the failed action belonged to. */
  inv_id: number;
  /** The event's `details`, cut to MAX_ERROR_DETAILS_BYTES; null when the event carried none. */
  details: string | null;
  /** When the store recorded it (store clock, UTC, microsecond format like `queued_at`). */
  at: string;
}

export interface ActionStats {
  action_id: number;
  totals: ActionCounters;
  /** The same counters per invocation, keyed by inv_id in decimal. */
  by_inv_id: Record<string, ActionCounters>;
  /** Most recent first; at most MAX_LAST_ERRORS, one per user. */
  last_errors: ActionErrorReport[];
}

/**
 * - unblocked: the user had blocked this action_id; later creates are accepted again;
 * - not_blocked: there was no block (nothing changed; unblocking is idempotent);
 * - unknown_action: the app never created this action_id.
 */
export type UnblockStatus = 'unblocked' | 'not_blocked' | 'unknown_action';

export function emptyCounters(): ActionCounters {
  return {
    created: 0,
    delivered: 0,
    expired: 0,
    responses: { shown: 0, open: 0, discard: 0, block: 0, expired: 0, error: 0 },
  };
}
