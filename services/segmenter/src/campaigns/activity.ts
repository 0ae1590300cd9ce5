import type { Analytics } from '@evp/core';

/** GET /v1/campaigns/activity (the console's sparklines, docs/console.md). Hours with nothing are left out. */

const iso = (ms: number) => new Date(ms).toISOString();
const hourStart = (ms: number) => Math.floor(ms / 3_600_000) * 3_600_000;

export interface CampaignActivity {
  campaign_id: string;
  hour: string;
  created: number;
}

/** Actions created for each of the app's campaigns per hour (actions_log `created` of the runs campaign_outcomes requested). */
export async function campaignActivity(analytics: Analytics, appId: string, hours: number, now: number): Promise<CampaignActivity[]> {
  const rows = await analytics.query<{ campaign_id: string; hour_ms: number; created: number }>(
    `SELECT o.campaign_id AS campaign_id, toUnixTimestamp(toStartOfHour(l.at)) * 1000 AS hour_ms, uniqExact(l.entry_id) AS created
     FROM actions_log AS l
     INNER JOIN (
         SELECT DISTINCT campaign_id, inv_id, action_id, user_id FROM campaign_outcomes
         WHERE app_id = {app:String} AND outcome = 'requested'
     ) AS o ON o.inv_id = l.inv_id AND o.action_id = l.action_id AND o.user_id = l.user_id
     WHERE l.app_id = {app:String} AND l.kind = 'created'
       AND l.at >= fromUnixTimestamp64Milli({from:Int64})
     GROUP BY campaign_id, hour_ms
     ORDER BY campaign_id, hour_ms`,
    { app: appId, from: hourStart(now) - (hours - 1) * 3_600_000 },
  );
  return rows.map((r) => ({ campaign_id: r.campaign_id, hour: iso(r.hour_ms), created: r.created }));
}
