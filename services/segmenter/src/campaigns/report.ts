import { formatDateTime64 } from '@evp/clickhouse';
import type { Analytics } from '@evp/core';
import { guardrailReadings, type GuardrailReadings } from './guardrails';
import { epochWeightedOf, type EpochWeighted } from './bandit';
import { variantActionId } from './ids';
import { epochCounts, reportReadings, type EpochGroup, type Group, type ReportReadings, type SplitPlan } from './readings';
import { PRE_PERIOD_DAYS, reportQuery, VALUE_CAP_PERCENTILE, type GroupRow, type ReportGoal } from './report-query';
import { CONFIDENCE, epochUplift, uplift, type Uplift } from './uplift';

/**
 * `GET /v1/campaigns/{id}/report` (docs/campaigns.md, "Report"): per group — control and each
 * variant — what the campaign did with its audience and how many converted, and each variant's
 * uplift against control. The counting is one ClickHouse query (report-query.ts); the intervals are
 * arithmetic on its counts (uplift.ts).
 */

export interface ReportOptions {
  appId: string;
  campaignId: string;
  /** The document's goal; without one, the conversion fields are null. */
  goal?: ReportGoal | undefined;
  /** The report's instant: goal events after it are not counted, windows open at it are counted as open. */
  now: Date;
  /** The document's holdout and weights, and their history, for the sample-ratio check. */
  split: SplitPlan;
  /** The document's `sample_size`: users planned in advance (the fixed-horizon reading is then primary). */
  plannedUsers?: number | undefined;
  /** The document asks for adaptive allocation: every comparison of a variant with control is epoch-weighted, and the epochs are shown. */
  adaptive?: boolean | undefined;
  /** The document's `min_effect`: the smallest absolute uplift worth finding (the power reading's users and days remaining). */
  minEffect?: number | undefined;
}

/** What one group's counts are (docs/campaigns.md, "Report", has each one's definition). */
interface GroupReport {
  /** Distinct users with an outcome in the group (every run of the campaign, skipped ones too). */
  audience: number;
  /** (run, user) pairs: a user triggered three times is three runs. The action counts below count these. */
  runs: number;
  requested: number;
  skipped: { total: number; reasons: Record<string, number> };
  created: number;
  delivered: number;
  withdrawn: number;
  expired: number;
  responses: { shown: number; open: number; discard: number; block: number; error: number; expired: number };
  /** Distinct users of the audience who blocked / discarded one of the group's actions (the guardrails' counts). */
  users_blocked: number;
  users_discarded: number;
  /** Users of the audience with a goal event in the attribution window of one of their runs; null without a goal. */
  converted: number | null;
  /** converted / audience; null without a goal or with no audience. */
  conversion_rate: number | null;
  /** Users of the audience whose attribution window (of one of their runs) is still open at `as_of`; null without a goal. */
  attribution_open: number | null;
  /** Users of the audience all of whose windows have closed at `as_of`: their conversion is final. Null without a goal. */
  matured: number | null;
  /** Of them, those converted. Null without a goal. */
  matured_converted: number | null;
}

interface VariantReport extends GroupReport {
  /** 1 … N, in document order. */
  variant: number;
  /** The variant's actions' `action_id` (also in nudge_response refs and /v1/actions/{action_id}/stats). */
  action_id: number;
  /**
   * Against control (unpooled Wald, fixed horizon); null without a goal or when either group has no
   * audience. For an adaptive campaign the epoch-weighted one over matured users (the same as
   * `epoch_weighted`), null when no epoch has matured users in both groups.
   */
  uplift: Uplift | null;
  /**
   * Every reading of the variant against control, each named and explained; null without a goal, or
   * when control or the variant has no matured user (an adaptive campaign: in no common epoch). An
   * adaptive campaign's are all epoch-weighted.
   */
  readings: ReportReadings['variants'][number];
  /**
   * An adaptive campaign's uplift over its matured users: Σₑ (Nₑ/N)·Δₑ over the epochs of the split
   * history, with variance Σₑ (Nₑ/N)²·Var(Δₑ); null for a fixed campaign or without a goal.
   */
  epoch_weighted: EpochWeighted | null;
}

/** An adaptive campaign's weights over time and the estimate its uplift is read with. */
interface Allocation {
  estimate: 'epoch_weighted';
  /** The split history, oldest first: each epoch's start, holdout and variant weights; `adaptive` when the worker moved them. */
  epochs: { from: string; holdout: number; weights: number[]; adaptive: boolean }[];
}

export interface CampaignReport {
  campaign_id: string;
  as_of: string;
  goal: ReportGoal | null;
  confidence: number;
  /** The sample-ratio check of the group sizes against the document's split; null with fewer than two groups or no users. */
  srm: ReportReadings['srm'];
  /** How the readings of several variants are corrected. */
  correction: ReportReadings['correction'];
  /** Block and discard rates per variant, each tested one-sided for harm against the other variants. */
  guardrails: GuardrailReadings;
  /** Null for a campaign with fixed weights. */
  allocation: Allocation | null;
  control: GroupReport;
  variants: VariantReport[];
}

const EMPTY: GroupRow = {
  variant: 0,
  audience: 0,
  runs: 0,
  requested: 0,
  skipped_reasons: [],
  skipped_counts: [],
  assigned_periods: [],
  assigned_counts: [],
  daily_days: [],
  daily_counts: [],
  created: 0,
  delivered: 0,
  withdrawn: 0,
  expired: 0,
  shown: 0,
  open: 0,
  discard: 0,
  block: 0,
  error: 0,
  response_expired: 0,
  block_users: 0,
  discard_users: 0,
  converted: 0,
  attribution_open: 0,
  matured: 0,
  matured_converted: 0,
};

function group(row: GroupRow, hasGoal: boolean): GroupReport {
  const pairs = row.skipped_reasons.map((reason, i) => [reason, row.skipped_counts[i] ?? 0] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const converted = hasGoal ? (row.converted ?? 0) : null;
  return {
    audience: row.audience,
    runs: row.runs,
    requested: row.requested,
    skipped: { total: pairs.reduce((n, [, c]) => n + c, 0), reasons: Object.fromEntries(pairs) },
    created: row.created,
    delivered: row.delivered,
    withdrawn: row.withdrawn,
    expired: row.expired,
    responses: { shown: row.shown, open: row.open, discard: row.discard, block: row.block, error: row.error, expired: row.response_expired },
    users_blocked: row.block_users,
    users_discarded: row.discard_users,
    converted,
    conversion_rate: converted === null || row.audience === 0 ? null : converted / row.audience,
    attribution_open: hasGoal ? (row.attribution_open ?? 0) : null,
    matured: hasGoal ? (row.matured ?? 0) : null,
    matured_converted: hasGoal ? (row.matured_converted ?? 0) : null,
  };
}

/**
 * The report of one campaign of one app. Variants are 1 … (the document's count, `split.weights`), and any higher variant that
 * still has outcomes (a document edited to fewer variants); a group without outcomes has zeros.
 */
export async function campaignReport(analytics: Analytics, opts: ReportOptions): Promise<CampaignReport> {
  const byEpoch = opts.adaptive === true && opts.goal !== undefined;
  const { sql, params } = reportQuery(opts.goal, byEpoch);
  const history = opts.split.history ?? [];
  const rows = await analytics.query<GroupRow>(sql, {
    ...params,
    app_id: opts.appId,
    campaign_id: opts.campaignId,
    now: formatDateTime64(opts.now.getTime()),
    split_from: history.slice(1).map((h) => h.from),
  });
  const byVariant = new Map(rows.map((r) => [r.variant, r]));
  const hasGoal = opts.goal !== undefined;
  const control = group(byVariant.get(0) ?? EMPTY, hasGoal);
  const last = Math.max(opts.split.weights.length, ...rows.map((r) => r.variant));
  const groups: GroupReport[] = [];
  for (let v = 1; v <= last; v++) groups.push(group(byVariant.get(v) ?? EMPTY, hasGoal));
  // The readings count matured users only: an open window counts as "not converted" yet and would
  // bias a live reading toward 0. The audiences (for the sample-ratio check) are everyone's.
  const assigned = (row: GroupRow | undefined) => history.map((_, p) => row?.assigned_counts[row.assigned_periods.indexOf(p)] ?? 0);
  // An adaptive campaign's groups per epoch (the query's `epoch_sums`, by period index).
  const epochOf = (row: GroupRow | undefined, p: number): EpochGroup => {
    const i = row?.epoch_periods?.indexOf(p) ?? -1;
    const at = (xs: number[] | undefined) => (i < 0 ? 0 : (xs?.[i] ?? 0));
    return {
      matured: at(row?.epoch_matured),
      converted: at(row?.epoch_converted),
      pre: { sx: at(row?.epoch_pre_sx), sxx: at(row?.epoch_pre_sxx), sxy: at(row?.epoch_pre_sxy) },
      ...(opts.goal?.value !== undefined ? { value: { sy: at(row?.epoch_value_sy), syy: at(row?.epoch_value_syy) } } : {}),
    };
  };
  const maturedOf = (g: GroupReport, row: GroupRow | undefined) => ({
    audience: g.audience,
    assigned: assigned(row),
    matured: g.matured ?? g.audience,
    converted: g.matured_converted,
    ...(hasGoal ? { pre: { sx: row?.pre_sx ?? 0, sxx: row?.pre_sxx ?? 0, sxy: row?.pre_sxy ?? 0 } } : {}),
    ...(opts.goal?.value !== undefined ? { value: { sy: row?.value_sy ?? 0, syy: row?.value_syy ?? 0, capped: row?.value_capped ?? 0 } } : {}),
    // Without a history (a campaign saved before migration 018) every user is in one epoch.
    ...(byEpoch ? { epochs: Array.from({ length: Math.max(1, history.length) }, (_, p) => epochOf(row, p)) } : {}),
  });
  const cap = rows[0]?.value_cap ?? 0;
  // Days with first assignments, from the first one to the report's day: the power reading's pace.
  const days = rows.flatMap((r) => r.daily_days);
  const firstDay = days.length === 0 ? undefined : days.reduce((a, b) => (a < b ? a : b));
  // At least one day: a first assignment after the report's instant (a report of the past) is today's pace.
  const daysSoFar =
    firstDay === undefined ? 0 : Math.max(1, 1 + Math.floor((Date.parse(opts.now.toISOString().slice(0, 10)) - Date.parse(firstDay)) / 86_400_000));
  const compared = { control: maturedOf(control, byVariant.get(0)), variants: groups.map((g, i) => maturedOf(g, byVariant.get(i + 1))) };
  const readings = reportReadings(
    compared,
    opts.split,
    opts.plannedUsers,
    PRE_PERIOD_DAYS,
    opts.goal?.value === undefined ? undefined : { property: opts.goal.value, cap, percentile: VALUE_CAP_PERCENTILE },
    opts.minEffect === undefined ? undefined : { minEffect: opts.minEffect, days: daysSoFar },
  );
  // An adaptive campaign's epochs of each variant against control, as its readings weight them: read
  // once per variant for both its uplift and its `epoch_weighted`.
  const all = [compared.control, ...compared.variants];
  const variants = groups.map((g, i): VariantReport => {
    const epochs = byEpoch ? epochCounts(compared.control, compared.variants[i] as Group, all) : null;
    return {
      variant: i + 1,
      action_id: variantActionId(opts.appId, opts.campaignId, i + 1),
      ...g,
      uplift:
        g.converted === null || control.converted === null
          ? null
          : epochs
            ? epochUplift(epochs)
            : uplift({ converted: control.converted, audience: control.audience }, { converted: g.converted, audience: g.audience }),
      readings: readings.variants[i] ?? null,
      epoch_weighted: epochs ? epochWeightedOf(epochs, CONFIDENCE) : null,
    };
  });
  return {
    campaign_id: opts.campaignId,
    as_of: opts.now.toISOString(),
    goal: opts.goal ?? null,
    confidence: CONFIDENCE,
    srm: readings.srm,
    correction: readings.correction,
    guardrails: guardrailReadings(groups.map((g) => ({ audience: g.audience, block: g.users_blocked, discard: g.users_discarded }))),
    allocation: opts.adaptive
      ? {
          estimate: 'epoch_weighted',
          epochs: history.map((h) => ({ from: new Date(h.from).toISOString(), holdout: h.holdout, weights: [...h.weights], adaptive: h.adaptive === true })),
        }
      : null,
    control,
    variants,
  };
}
