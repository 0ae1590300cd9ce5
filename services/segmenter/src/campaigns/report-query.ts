import { APP, contractEvent, eventMatch, eventValue, NOW, parseDuration, QueryParts } from '@evp/segment-language';
import type { CampaignDocument } from './document';

/**
 * The campaign report's one query (docs/campaigns.md, "Report"): one row per group (`variant`, 0 =
 * control) with every count the report gives. Parameters: `app_id`, `campaign_id`, `now` and the
 * literals of the goal (named `pN` by the segment compiler's Params); nothing of the goal is SQL
 * text. Every table is read for the one app only.
 *
 * - `outcomes`: the campaign's rows of campaign_outcomes, FINAL (one row per run and user).
 * - `daily_assigned`: per group, the users first assigned each UTC day (the power reading's pace).
 * - `first_assigned`: per group, the users whose first run put them in it, counted per period of the
 *   split history (`split_from`: the instants, epoch ms, at which the split changed after the first).
 * - `actions`: what the action log says of each requested (run, variant action, user): created,
 *   delivered, withdrawn, expired unpulled, or the cap that refused it. Existence per action only,
 *   so a re-sent entry changes nothing and the log is read without FINAL.
 * - `responses`: per (user, ref) the responses the user's nudge_response events (`action_response`
 *   is the same event) gave to that action; existence again, without FINAL.
 * - `conversions`: the (run, user) pairs with a goal event in [at, at + within] (and not after now).
 * - `open_users`: the (group, user) pairs with a window still open at now; every other user is matured.
 * - `goal_events`: the goal's events of the campaign's users, from 14 days before its first run.
 * - `pre_users`: each matured (group, user) with converted y and pre-period goal count x;
 *   `pre_period`: per group, CUPED's sums over them.
 * - With a goal `value`: `value_users` each matured user's value (the sum of the property over the
 *   distinct goal events in their windows), `value_cap` the 99th percentile of the values above 0,
 *   `value_sums` per group Σ min(Y, cap) and Σ min(Y, cap)².
 *   The goal's event and `where` are compiled by the segment compiler (catalog predicates included).
 * - With `byEpoch` (an adaptive campaign): `epoch_sums`, the same sums per group and per epoch.
 */

/** A campaign goal, as the validated document has it. */
export type ReportGoal = NonNullable<CampaignDocument['goal']>;

/** One row of the query; every count is a number (64-bit integers are not quoted: packages/clickhouse). */
export interface GroupRow {
  variant: number;
  audience: number;
  runs: number;
  requested: number;
  skipped_reasons: string[];
  skipped_counts: number[];
  created: number;
  delivered: number;
  withdrawn: number;
  expired: number;
  shown: number;
  open: number;
  discard: number;
  block: number;
  error: number;
  response_expired: number;
  /** Users with a block / discard response to one of the group's actions (the guardrails). */
  block_users: number;
  discard_users: number;
  /** With a goal only. */
  converted?: number;
  attribution_open?: number;
  matured?: number;
  matured_converted?: number;
  /** CUPED's sums over the matured users (with a goal only): Σx, Σx², Σxy, x the pre-period goal count. */
  pre_sx?: number;
  pre_sxx?: number;
  pre_sxy?: number;
  /** With a goal value: Σ capped Y and Σ capped Y² over the matured users, users above the cap, and the cap. */
  value_sy?: number;
  value_syy?: number;
  value_capped?: number;
  value_cap?: number;
  /**
   * With `byEpoch`: per period of the split history (index, unordered), the matured users first
   * assigned in it, those converted, CUPED's Σx, Σx², Σxy over them, and with a goal value their Σ
   * capped Y and Σ capped Y².
   */
  epoch_periods?: number[];
  epoch_matured?: number[];
  epoch_converted?: number[];
  epoch_pre_sx?: number[];
  epoch_pre_sxx?: number[];
  epoch_pre_sxy?: number[];
  epoch_value_sy?: number[];
  epoch_value_syy?: number[];
  /** Users first assigned to this group per UTC day (`YYYY-MM-DD`) and count, unordered: the pace of the power reading. */
  daily_days: string[];
  daily_counts: number[];
  /** Users first assigned to this group, per period of the split history: period index and count, unordered. */
  assigned_periods: number[];
  assigned_counts: number[];
}

/** A goal value is capped at this percentile of the users' values above 0, pooled over the groups. */
export const VALUE_CAP_PERCENTILE = 0.99;

/** The CUPED covariate's period: the goal's events in these days before a user's first run. */
export const PRE_PERIOD_DAYS = 14;

export interface ReportQuery {
  sql: string;
  params: Record<string, unknown>;
}

const RESPONSES = ['shown', 'open', 'discard', 'block', 'error', 'expired'] as const;

/**
 * The `goal_events` CTE: the goal's events of the users in the query's `outcomes` CTE, from
 * `daysBefore` days before its first run to NOW, by corrected time. `columns`: more columns after
 * `user_id, time` (with their leading comma).
 */
export function goalEventsCte(goal: ReportGoal, q: QueryParts, opts: { daysBefore: number; columns?: string }): string {
  return `goal_events AS (
    SELECT user_id, corrected_time AS time${opts.columns ?? ''}
    FROM events
    PREWHERE app_id = ${APP} AND corrected_time >= (SELECT min(at) FROM outcomes) - INTERVAL ${opts.daysBefore} DAY AND corrected_time <= ${NOW}
    WHERE user_id IN (SELECT user_id FROM outcomes) AND ${eventMatch(goal.event, goal.where, undefined, q)}
)`;
}

/** `at` + the goal's `within`, as SQL: calendar months first, then the fixed part (as the segment language adds durations). */
export function windowEnd(at: string, within: string, q: QueryParts): string {
  const d = parseDuration(within);
  if (typeof d === 'string') throw new Error(`goal.within was not validated: ${d}`);
  let sql = at;
  if (d.months > 0) sql = `addMonths(${sql}, ${q.params.add(d.months, 'UInt32')})`;
  if (d.millis > 0) sql = `addMilliseconds(${sql}, ${q.params.add(d.millis, 'UInt64')})`;
  return sql;
}

function canonical(name: string): string {
  const e = contractEvent(name);
  if (!e) throw new Error(`event was not validated: ${name}`);
  return e.name;
}

/** A user's value `y` capped at the pooled percentile (value_cap). */
const cappedValue = (y: string) => `least(${y}, (SELECT cap FROM value_cap))`;

/** A value goal's CTEs, join and columns (see the header). Each goal event counts once per user, however many of their windows hold it. */
function valueSums(goal: ReportGoal, q: QueryParts, ctes: string[], joins: string[], columns: string[]): void {
  ctes.push(`value_users AS (
    SELECT variant, user_id, sum(value) AS y
    FROM (
        SELECT DISTINCT o.variant AS variant, o.user_id AS user_id, g.event_id AS event_id, g.value AS value
        FROM outcomes AS o
        INNER JOIN goal_events AS g ON g.user_id = o.user_id
        WHERE g.time >= o.at AND g.time <= ${windowEnd('o.at', goal.within, q)} AND (o.variant, o.user_id) NOT IN (SELECT variant, user_id FROM open_users)
    )
    GROUP BY variant, user_id
)`);
  ctes.push(`value_cap AS (
    SELECT if(count() = 0, 0, quantileExact(${VALUE_CAP_PERCENTILE})(y)) AS cap FROM value_users WHERE y > 0
)`);
  const capped = cappedValue('y');
  ctes.push(`value_sums AS (
    SELECT variant, sum(${capped}) AS sy, sum(${capped} * ${capped}) AS syy, countIf(y > (SELECT cap FROM value_cap)) AS capped
    FROM value_users
    GROUP BY variant
)`);
  joins.push('LEFT JOIN value_sums AS vs ON vs.variant = r.variant');
  columns.push('any(vs.sy) AS value_sy', 'any(vs.syy) AS value_syy', 'any(vs.capped) AS value_capped', '(SELECT cap FROM value_cap) AS value_cap');
}

/** An adaptive campaign's per-epoch sums (see `reportQuery`); after `pre_users` and, with a value, `value_users`. */
function epochSums(value: boolean, ctes: string[], joins: string[], columns: string[]): void {
  const v = cappedValue('v.y');
  ctes.push(`epoch_sums AS (
    SELECT variant, groupArray(period) AS periods, groupArray(n) AS users, groupArray(k) AS converted,
        groupArray(sx) AS sx, groupArray(sxx) AS sxx, groupArray(sxy) AS sxy${value ? ', groupArray(vy) AS vy, groupArray(vyy) AS vyy' : ''}
    FROM (
        SELECT p.variant AS variant, arrayCount(b -> b <= toUnixTimestamp64Milli(f.first_at), {split_from:Array(Int64)}) AS period,
            count() AS n, sum(p.y) AS k, sum(p.x) AS sx, sum(p.x * p.x) AS sxx, sum(p.x * p.y) AS sxy${value ? `, sum(${v}) AS vy, sum(${v} * ${v}) AS vyy` : ''}
        FROM pre_users AS p
        INNER JOIN firsts AS f ON f.user_id = p.user_id${value ? '\n        LEFT JOIN value_users AS v ON v.variant = p.variant AND v.user_id = p.user_id' : ''}
        GROUP BY variant, period
    )
    GROUP BY variant
)`);
  joins.push('LEFT JOIN epoch_sums AS e ON e.variant = r.variant');
  columns.push(
    'any(e.periods) AS epoch_periods',
    'any(e.users) AS epoch_matured',
    'any(e.converted) AS epoch_converted',
    'any(e.sx) AS epoch_pre_sx',
    'any(e.sxx) AS epoch_pre_sxx',
    'any(e.sxy) AS epoch_pre_sxy',
    ...(value ? ['any(e.vy) AS epoch_value_sy', 'any(e.vyy) AS epoch_value_syy'] : []),
  );
}

/**
 * `byEpoch` (an adaptive campaign, with a goal): also `epoch_sums`, per group and per period of the
 * split history (each epoch), the sums of `pre_period` and `value_sums` over the matured users first
 * assigned in it: the per-epoch per-arm sums every epoch-weighted reading is computed from
 * (stats/stratified.ts).
 */
export function reportQuery(goal: ReportGoal | undefined, byEpoch = false): ReportQuery {
  const q = new QueryParts();
  const requested = "SELECT inv_id, action_id, user_id FROM outcomes WHERE outcome = 'requested'";
  const refOf = (t: string) => `concat(toString(${t}.inv_id), ':', toString(${t}.action_id))`;
  const ctes = [
    `outcomes AS (
    SELECT inv_id, action_id, user_id, variant, outcome, reason, at, written_at
    FROM campaign_outcomes FINAL
    WHERE app_id = ${APP} AND campaign_id = {campaign_id:String}
)`,
    // The worker assigns a user when it writes the run's outcome (written_at), with the document it
    // has then; a user counts once, in the group and period of their first run.
    `firsts AS (
    SELECT user_id, argMin(variant, (written_at, inv_id)) AS variant, min(written_at) AS first_at FROM outcomes GROUP BY user_id
)`,
    `first_assigned AS (
    SELECT variant, groupArray(period) AS periods, groupArray(n) AS counts
    FROM (
        SELECT variant, arrayCount(b -> b <= toUnixTimestamp64Milli(first_at), {split_from:Array(Int64)}) AS period, count() AS n
        FROM firsts
        GROUP BY variant, period
    )
    GROUP BY variant
)`,
    `daily_assigned AS (
    SELECT variant, groupArray(toString(day)) AS days, groupArray(n) AS counts
    FROM (SELECT variant, toDate(first_at) AS day, count() AS n FROM firsts GROUP BY variant, day)
    GROUP BY variant
)`,
    `actions AS (
    SELECT inv_id, action_id, user_id,
        max(kind = 'created') AS created,
        max(kind = 'delivered') AS delivered,
        max(kind = 'withdrawn') AS withdrawn,
        max(kind = 'expired') AS expired,
        anyIf(reason, kind = 'capped') AS capped
    FROM actions_log
    PREWHERE app_id = ${APP}
    WHERE (inv_id, action_id, user_id) IN (${requested})
    GROUP BY inv_id, action_id, user_id
)`,
    `responses AS (
    SELECT user_id, props.ref::String AS ref,
${RESPONSES.map((r) => `        max(props.response::String = '${r}') AS ${r}`).join(',\n')}
    FROM events
    PREWHERE app_id = ${APP} AND name = ${q.params.add(canonical('nudge_response'), 'String')}
    WHERE (user_id, ref) IN (SELECT user_id, concat(toString(inv_id), ':', toString(action_id)) FROM outcomes WHERE outcome = 'requested')
    GROUP BY user_id, ref
)`,
  ];
  const joins = [
    'LEFT JOIN actions AS a ON a.inv_id = r.inv_id AND a.action_id = r.action_id AND a.user_id = r.user_id',
    `LEFT JOIN responses AS s ON s.user_id = r.user_id AND s.ref = ${refOf('r')}`,
    'LEFT JOIN first_assigned AS f ON f.variant = r.variant',
    'LEFT JOIN daily_assigned AS d ON d.variant = r.variant',
  ];
  const columns = [
    'r.variant AS variant',
    'uniqExact(r.user_id) AS audience',
    'count() AS runs',
    "countIf(r.outcome = 'requested') AS requested",
    'any(k.reasons) AS skipped_reasons',
    'any(k.counts) AS skipped_counts',
    'any(f.periods) AS assigned_periods',
    'any(f.counts) AS assigned_counts',
    'any(d.days) AS daily_days',
    'any(d.counts) AS daily_counts',
    'sum(a.created) AS created',
    'sum(a.delivered) AS delivered',
    'sum(a.withdrawn) AS withdrawn',
    'sum(a.expired) AS expired',
    ...RESPONSES.map((r) => `sum(s.${r}) AS ${r === 'expired' ? 'response_expired' : r}`),
    // Per user, for the guardrails: a user who blocked two runs' actions is one user who blocked.
    'uniqExactIf(r.user_id, s.block = 1) AS block_users',
    'uniqExactIf(r.user_id, s.discard = 1) AS discard_users',
  ];
  if (goal) {
    const end = windowEnd('o.at', goal.within, q);
    // The goal's events of the campaign's users from 14 days before its first run (the CUPED
    // covariate's period) to NOW. The corrected time, not the device's: the run's instant and NOW are
    // the server's clock, and a device clock behind by minutes would put a goal reached right after
    // the message before it (docs/analytics.md, "Which time").
    const value = goal.value === undefined ? '' : `, event_id, ${eventValue(goal.event, goal.value)} AS value`;
    ctes.push(goalEventsCte(goal, q, { daysBefore: PRE_PERIOD_DAYS, columns: value }));
    ctes.push(`conversions AS (
    SELECT o.inv_id AS inv_id, o.user_id AS user_id, 1 AS converted
    FROM outcomes AS o
    INNER JOIN goal_events AS g ON g.user_id = o.user_id
    WHERE g.time >= o.at AND g.time <= ${end}
    GROUP BY o.inv_id, o.user_id
)`);
    // Users of a group with a window still open at NOW; the others are matured: every window of theirs
    // has closed, so their conversion is final (the readings use only them).
    ctes.push(`open_users AS (
    SELECT DISTINCT variant, user_id FROM outcomes WHERE ${windowEnd('at', goal.within, q)} > ${NOW}
)`);
    const matured = '(r.variant, r.user_id) NOT IN (SELECT variant, user_id FROM open_users)';
    joins.push('LEFT JOIN conversions AS c ON c.inv_id = r.inv_id AND c.user_id = r.user_id');
    columns.push(
      'uniqExactIf(r.user_id, c.converted = 1) AS converted',
      `uniqExactIf(r.user_id, ${windowEnd('r.at', goal.within, q)} > ${NOW}) AS attribution_open`,
      `uniqExactIf(r.user_id, ${matured}) AS matured`,
      `uniqExactIf(r.user_id, c.converted = 1 AND ${matured}) AS matured_converted`,
      'any(u.sx) AS pre_sx',
      'any(u.sxx) AS pre_sxx',
      'any(u.sxy) AS pre_sxy',
    );
    // CUPED's sums over the matured users of each group: x the user's goal events in the 14 days
    // before their first run of the campaign (0 without history), y converted (0/1), so Σy² = Σy.
    // `pre_users` has one row per matured (group, user); `epoch_sums` sums it per epoch too.
    ctes.push(`pre_users AS (
    SELECT m.variant AS variant, m.user_id AS user_id, any(m.y) AS y,
        countIf(g.time >= m.first_at - INTERVAL ${PRE_PERIOD_DAYS} DAY AND g.time < m.first_at) AS x
    FROM (
        SELECT variant, user_id, min(at) AS first_at, max((inv_id, user_id) IN (SELECT inv_id, user_id FROM conversions)) AS y
        FROM outcomes
        WHERE (variant, user_id) NOT IN (SELECT variant, user_id FROM open_users)
        GROUP BY variant, user_id
    ) AS m
    LEFT JOIN goal_events AS g ON g.user_id = m.user_id
    GROUP BY m.variant, m.user_id
)`);
    ctes.push(`pre_period AS (
    SELECT variant, sum(x) AS sx, sum(x * x) AS sxx, sum(x * y) AS sxy FROM pre_users GROUP BY variant
)`);
    joins.push('LEFT JOIN pre_period AS u ON u.variant = r.variant');
    if (goal.value !== undefined) valueSums(goal, q, ctes, joins, columns);
    if (byEpoch) epochSums(goal.value !== undefined, ctes, joins, columns);
  }
  // Skip reasons per group: the outcome's own (template, …) and the cap that refused the action (a
  // capped action that a later request of the same run did create was not skipped). Unordered.
  ctes.push(`skips AS (
    SELECT variant, groupArray(reason) AS reasons, groupArray(n) AS counts
    FROM (
        SELECT r.variant AS variant, if(r.outcome = 'skipped', r.reason, a.capped) AS reason, count() AS n
        FROM outcomes AS r
        LEFT JOIN actions AS a ON a.inv_id = r.inv_id AND a.action_id = r.action_id AND a.user_id = r.user_id
        WHERE r.outcome = 'skipped' OR (a.capped != '' AND NOT a.created)
        GROUP BY variant, reason
    )
    GROUP BY variant
)`);
  joins.push('LEFT JOIN skips AS k ON k.variant = r.variant');
  const sql = [
    `WITH\n${ctes.join(',\n')}`,
    `SELECT\n${columns.map((c) => `    ${c}`).join(',\n')}`,
    'FROM outcomes AS r',
    ...joins,
    'GROUP BY r.variant',
    'ORDER BY variant',
    // A run without an action log entry, response or conversion gets 0 (and '' for no cap).
    'SETTINGS join_use_nulls = 0',
  ].join('\n');
  return { sql, params: q.params.values };
}
