import type { DeliveryMode, RenderMethod, ActionType } from '@evp/actions';
import type { EventCondition, Predicate } from '@evp/segment-language';

/**
 * The campaign document (docs/campaigns.md), as JSON. These types are what a document is once
 * validated (campaigns/validate.ts turns unknown JSON into one, or into reasons with paths).
 */

/** An event condition of the segment language as a trigger: each matching event triggers (no count, no window). */
type TriggerEventCondition = Pick<EventCondition, 'event' | 'where'>;

type ScheduleSpec = { at: string } | { every: string };

type Trigger =
  /** The user entered this segment (a record on `segments.membership`). */
  | { segment_entry: string }
  /** The user performed a matching event. */
  | { event: TriggerEventCondition }
  /** Once at an RFC 3339 instant, or every ISO 8601 duration, over the segment's members at that time. */
  | { schedule: ScheduleSpec; segment: string }
  /** `POST /v1/campaigns/{id}/trigger` with user ids. */
  | { api: true };

export const TRIGGER_KINDS = ['segment_entry', 'event', 'schedule', 'api'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];

/**
 * The fields of `POST /v1/actions` less `user_id` (each user of the audience), `inv_id` (one per
 * campaign run) and `action_id` (one per variant), which the campaign sets. `content.title` and
 * `content.body` are Liquid templates (campaigns/templates.ts); the other fields are literal. The
 * expiry is `expired_at` (an instant; `0001-01-01T00:00:00Z` = never) or `expires_after` (an ISO 8601
 * duration from the action's creation), exactly one of them.
 */
export interface ActionTemplate {
  type: ActionType;
  render_method: RenderMethod;
  delivery_mode: DeliveryMode;
  content: { title: string; body: string };
  attr?: Record<string, string>;
  tags?: string[];
  expired_at?: string;
  expires_after?: string;
}

/**
 * A variant's action is merged over the campaign's `action`: each field it gives replaces the
 * campaign's, except `content`, merged field by field (a variant may change only the title); giving
 * either expiry replaces both.
 */
type VariantAction = Partial<Omit<ActionTemplate, 'content'>> & { content?: Partial<ActionTemplate['content']> };

interface Variant {
  /** Relative: a variant's share of the treated audience is its weight over the sum of weights. */
  weight: number;
  action: VariantAction;
}

interface Caps {
  /** At most `max` actions of this campaign per user within `within` (an ISO 8601 duration); after that the user is eligible again. */
  per_user?: { max: number; within: string };
  /** True: the app's cap across campaigns (app-settings.ts) neither limits nor counts this campaign's actions. Default false. */
  ignore_app_cap?: boolean;
}

/** Local wall-clock times `HH:MM` (24-hour) in each user's time zone. */
interface QuietHours {
  start: string;
  end: string;
}

/**
 * An event condition whose `within` (a duration, required) is the attribution window, counted from
 * the trigger (the outcome's `at`) for treated and control users alike (campaigns/report-query.ts).
 */
interface Goal {
  event: string;
  where?: Predicate[];
  within: string;
  /**
   * A numeric property of the event (`cart_price`, `items[].price`): the report then also reads the
   * value per user (the sum over the user's goal events in their windows), capped and averaged.
   */
  value?: string;
}

export interface CampaignDocument {
  name: string;
  trigger: Trigger;
  action: ActionTemplate;
  variants?: Variant[];
  /** Fraction of the audience assigned to control (receives nothing), 0 ≤ holdout < 1. */
  holdout?: number;
  caps?: Caps;
  quiet_hours?: QuietHours;
  /** `HH:MM`: deliver at the next such local time at or after the trigger. */
  send_at_local?: string;
  goal?: Goal;
  /** RFC 3339; no trigger is acted on before it. */
  start_at?: string;
  /** RFC 3339; the campaign ends then. */
  end_at?: string;
  /** Most actions per second the campaign creates. */
  rate_per_second?: number;
  /**
   * Users (control and variants) the campaign plans to compare, declared in advance: the report's
   * fixed-horizon reading is then the primary one and the sequential one is tuned for this size.
   */
  sample_size?: number;
  /**
   * The smallest absolute uplift of the goal's conversion rate worth finding (0.01 = one point):
   * the report then says how many users and days the campaign still needs to find it.
   */
  min_effect?: number;
  /**
   * Opt-in adaptive allocation (campaigns/bandit): top-two Thompson sampling moves the variants'
   * weights at most every 12 h; the holdout never moves. `floor`: least share of the treated traffic
   * per variant, 0.05 by default.
   */
  adaptive?: { floor?: number };
}

/** Bounds on a document. */
export const CAMPAIGN_LIMITS = {
  nameLength: 200,
  variants: 10,
  /** The shortest `schedule.every`: each run reads the segment's members. */
  minEveryMs: 3_600_000,
  maxRatePerSecond: 100_000,
  maxPerUser: 1_000,
  /** The largest `sample_size`: far above any campaign's audience, it only refuses nonsense. */
  maxSampleSize: 1_000_000_000,
} as const;
