import { formatDateTime64 } from '@evp/clickhouse';
import type { Analytics } from '@evp/core';
import { APP, QueryParts } from '@evp/segment-language';
import type { Proportion } from '../stats';
import { goalEventsCte, windowEnd, type ReportGoal } from '../report-query';

/**
 * Each variant's goal counts so far, in one query: `audience` the distinct users with an outcome in
 * the variant (every run, skipped ones too, as the report counts them), `converted` those with a
 * goal event in the attribution window of one of their runs, up to `now`. A window still open
 * counts as not converted yet: it does so in every variant alike, so the comparison the bandit
 * makes is not tilted by it.
 */
export async function armCounts(
  analytics: Analytics,
  c: { app_id: string; id: string; goal: ReportGoal; variants: number },
  now: number,
): Promise<Proportion[]> {
  const q = new QueryParts();
  const sql = `WITH
outcomes AS (
    SELECT DISTINCT inv_id, user_id, variant, at FROM campaign_outcomes
    WHERE app_id = ${APP} AND campaign_id = {campaign_id:String} AND variant > 0
),
${goalEventsCte(c.goal, q, { daysBefore: 0 })},
converted AS (
    SELECT DISTINCT o.variant AS variant, o.user_id AS user_id
    FROM outcomes AS o INNER JOIN goal_events AS g ON g.user_id = o.user_id
    WHERE g.time >= o.at AND g.time <= ${windowEnd('o.at', c.goal.within, q)}
)
SELECT variant, uniqExact(user_id) AS audience, uniqExactIf(user_id, (variant, user_id) IN (SELECT variant, user_id FROM converted)) AS converted
FROM outcomes
GROUP BY variant`;
  const rows = await analytics.query<{ variant: number; audience: number; converted: number }>(sql, {
    ...q.params.values,
    app_id: c.app_id,
    campaign_id: c.id,
    now: formatDateTime64(now),
  });
  const byVariant = new Map(rows.map((r) => [Number(r.variant), r]));
  return Array.from({ length: c.variants }, (_, i) => {
    const r = byVariant.get(i + 1);
    return { audience: Number(r?.audience ?? 0), converted: Number(r?.converted ?? 0) };
  });
}
