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
}

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
}
