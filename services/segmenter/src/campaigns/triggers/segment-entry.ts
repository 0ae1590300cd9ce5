import type { MembershipChange } from '@evp/schemas';
import type { StoredCampaign } from '../source';
import type { TriggerItem } from '../trigger-items';

/** What an entry trigger reads of a membership change (schemas/src/membership.ts). */
type MembershipRecord = Pick<MembershipChange, 'app_id' | 'segment_id' | 'user_id' | 'change' | 'at'>;

/**
 * The triggers of one membership record: for an `entered` record, one `users` item per active
 * campaign of the app triggered by entering that segment, run key `entry:<segment>:<user>:<at>`
 * (a user who leaves and enters again is a new run; the same record read twice is the same run).
 */
export function entryItems(record: MembershipRecord, campaigns: readonly StoredCampaign[]): TriggerItem[] {
  if (record.change !== 'entered') return [];
  return campaigns
    .filter((c) => c.app_id === record.app_id && 'segment_entry' in c.document.trigger && c.document.trigger.segment_entry === record.segment_id)
    .map((c) => ({
      kind: 'users',
      app_id: c.app_id,
      campaign_id: c.id,
      run_key: `entry:${record.segment_id}:${record.user_id}:${record.at}`,
      trigger: 'segment_entry',
      at: record.at,
      users: [{ user_id: record.user_id }],
    }));
}
