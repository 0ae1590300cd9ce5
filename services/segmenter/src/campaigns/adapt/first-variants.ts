import type { Analytics } from '@evp/core';

/**
 * Sticky assignment's record: each of `users`' variant (1 … N) in their first treated outcome row of
 * the campaign (earliest written, then lowest run), for the users who have one. The outcome row is
 * the durable record the worker writes anyway before any action, so a user already in a variant stays
 * in it whatever the weights become, and the report counts them in that variant and in the epoch of
 * that row. Users absent from the map have not been treated yet.
 */
export async function firstVariants(analytics: Analytics, appId: string, campaignId: string, users: readonly string[]): Promise<Map<string, number>> {
  if (users.length === 0) return new Map();
  const rows = await analytics.query<{ user_id: string; first_variant: number }>(
    `SELECT user_id, argMin(variant, (written_at, inv_id)) AS first_variant FROM campaign_outcomes
    WHERE app_id = {app:String} AND campaign_id = {campaign:String} AND variant > 0 AND user_id IN {users:Array(String)}
    GROUP BY user_id`,
    { app: appId, campaign: campaignId, users: [...new Set(users)] },
  );
  return new Map(rows.map((r) => [r.user_id, Number(r.first_variant)]));
}
