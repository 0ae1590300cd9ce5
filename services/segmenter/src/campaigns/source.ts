import type { CampaignDocument } from './document';
import type { CampaignState } from './states';

/** A saved campaign as the worker and the trigger producers see it. */
export interface StoredCampaign {
  app_id: string;
  id: string;
  version: number;
  state: CampaignState;
  /** Validated (campaigns/validate.ts) when it was saved. */
  document: CampaignDocument;
  /** The action id of each variant, in document order (ids.ts variantActionId; one when the document has no variants). */
  action_ids: number[];
  /** Epoch ms the campaign was created: where a `schedule.every` without `start_at` counts from. */
  created_at: number;
  /**
   * Every split (holdout, weights) the campaign has had, oldest first, each from an instant (epoch ms):
   * the document's edits and, for an adaptive campaign, the epochs the worker appended. Empty for a
   * campaign saved before the history existed (migration 018): its document's split since created_at.
   */
  splits: SplitChange[];
}

export interface SplitChange {
  from: number;
  holdout: number;
  weights: number[];
  /** An epoch of adaptive allocation (the worker's), not an edit of the document. */
  adaptive?: true;
}

/** The document's split: its holdout (0 without one) and its variants' weights (one, 1, without variants). */
export const documentSplit = (d: CampaignDocument): { holdout: number; weights: number[] } => ({
  holdout: d.holdout ?? 0,
  weights: d.variants?.map((v) => v.weight) ?? [1],
});

/** The campaign's split history; a campaign saved before it existed has had its document's split since it was created. */
export function splitHistory(c: Pick<StoredCampaign, 'splits' | 'document' | 'created_at'>): SplitChange[] {
  return c.splits.length > 0 ? c.splits : [{ from: c.created_at, ...documentSplit(c.document) }];
}

/** Whether two splits are the same change (same instant, holdout, weights, and both epochs or both edits). */
export const sameSplit = (a: SplitChange | undefined, b: SplitChange | undefined): boolean =>
  a !== undefined &&
  b !== undefined &&
  a.from === b.from &&
  a.holdout === b.holdout &&
  a.adaptive === b.adaptive &&
  a.weights.length === b.weights.length &&
  a.weights.every((w, i) => w === b.weights[i]);

/** The app-wide campaign settings the worker applies (app-settings.ts). */
export interface CampaignSettings {
  max_per_user_per_day: number | null;
}

/**
 * Where the campaign worker reads campaigns (storage and its API are another part's; this is the
 * port it implements). `active` is read often (trigger producers refresh their lists from it), so
 * an implementation may cache it for a few seconds.
 */
export interface CampaignSource {
  /** Campaigns in state `active`, of one app or of every app. */
  active(appId?: string): Promise<StoredCampaign[]>;
  /** The latest version of one campaign, whatever its state; undefined when there is none. */
  get(appId: string, id: string): Promise<StoredCampaign | undefined>;
  settings(appId: string): Promise<CampaignSettings>;
  /**
   * Appends an epoch of adaptive allocation to the latest version's split history, only if that
   * history still ends with the split `campaign` (the version the epoch was computed from) ends with;
   * false, with nothing written, when it does not (another replica appended an epoch since, or an
   * edit changed the split) or the campaign is gone.
   */
  appendSplit(campaign: StoredCampaign, split: SplitChange): Promise<boolean>;
}
