import { checked, refused, type Checked } from '@evp/core';
import { isObject, jsonType, onlyKeys } from '@evp/segment-language';
import { campaignReasons } from './rules';

/**
 * Campaign settings of an app, across all its campaigns. The app-wide frequency cap lives here, not
 * in a campaign's document: it limits what all campaigns together send a user, so no one campaign
 * may set it (two campaigns could not disagree about it). A campaign opts out with
 * `caps.ignore_app_cap` (e.g. transactional messages), which also keeps its actions out of the count.
 */
export interface CampaignAppSettings {
  /** At most this many campaign actions per user per day across the app's campaigns; null: no app-wide cap. */
  max_per_user_per_day: number | null;
}

export const DEFAULT_APP_SETTINGS: CampaignAppSettings = { max_per_user_per_day: null };

const MAX_PER_USER_PER_DAY = 1_000;

/** Unknown JSON → settings (keys left out keep their defaults), or the reasons with paths and CAMPAIGN_RULES. */
export function validateAppSettings(json: unknown): Checked<CampaignAppSettings> {
  const reasons = campaignReasons();
  if (!isObject(json)) reasons.add('$', 'type', `campaign settings must be a JSON object, got ${jsonType(json)}`);
  else {
    onlyKeys(reasons, '$', json, Object.keys(DEFAULT_APP_SETTINGS), 'campaign settings');
    const max = json.max_per_user_per_day;
    if (max !== undefined && max !== null) {
      if (typeof max !== 'number') reasons.add('$.max_per_user_per_day', 'type', `must be an integer or null (no cap), got ${jsonType(max)}`);
      else if (!Number.isInteger(max) || max < 1 || max > MAX_PER_USER_PER_DAY) {
        reasons.add('$.max_per_user_per_day', 'range', `must be an integer from 1 to ${MAX_PER_USER_PER_DAY}, or null (no cap); got ${max}`);
      }
    }
  }
  if (reasons.list.length > 0) return refused(reasons.list);
  return checked({ ...DEFAULT_APP_SETTINGS, ...(json as Partial<CampaignAppSettings>) });
}
