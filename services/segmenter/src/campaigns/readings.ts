import {
  agrestiCaffo,
  agrestiCaffoMoments,
  bayes,
  compareValues,
  combine,
  cuped,
  designEffect,
  detectableEffect,
  expectedByPeriod,
  expectedShares,
  holm,
  logRatio,
  newcombe,
  sequential,
  SEQUENTIAL_TUNING,
  srm,
  srmAgainst,
  SRM_THRESHOLD,
  standardizedRates,
  strata,
  stratifiedAgrestiCaffo,
  stratifiedBayes,
  stratifiedCuped,
  stratifiedLogRatio,
  stratifiedNewcombe,
  stratifiedValues,
  usersNeeded,
  zFor,
  type ArmSums,
  type Difference,
  type Interval,
  type Proportion,
  type SplitShares,
  type Stratum,
  type ValueSums,
} from './stats';
import type { BayesReading } from './stats/bayes';
import type { CupedReading } from './stats/cuped';
import type { ValueComparison } from './stats/values';

/**
 * The report's readings (docs/campaigns.md, "Report"): what the statistics of ./stats say about the
 * groups' counts, each reading with its `name` and an `explanation` in words a campaign manager
 * reads, so a display can show them as they are. Pure: counts in, JSON out.
 */

export interface SplitPlan {
  /** The document's holdout (0 when it has none). */
  holdout: number;
  /** The document's variant weights in order (one, 1, for a campaign without variants). */
  weights: readonly number[];
  /**
   * Every split the document had, oldest first, each from its instant (epoch ms) to the next one's:
   * with it (and each group's `assigned`), the sample-ratio check expects each period's users in that
   * period's shares. Empty or absent: the current document's shares for everyone.
   */
  history?: ReadonlyArray<SplitShares & { from: number; adaptive?: true }>;
}

interface Reading {
  name: string;
  explanation: string;
}

interface SrmReport extends Reading {
  /** Groups in order: "control" (when the holdout is > 0), then "variant 1" … */
  groups: string[];
  observed: number[];
  expected: number[];
  chi_square: number;
  df: number;
  p_value: number;
  threshold: number;
  mismatch: boolean;
  /** Non-null on a mismatch: the warning to show above everything else. */
  warning: string | null;
  /** Where the expected shares come from: each edit period's split, or the current one for everyone. */
  expected_from: 'document history' | 'current document';
  /** With the history: the periods (from, holdout, weights) and the users first assigned in each. */
  periods: Array<{ from: string; holdout: number; weights: number[]; users: number }> | null;
}

interface UpliftReading extends Reading {
  estimate: number;
  ci: Interval | null;
  p_value: number | null;
  /** Holm-adjusted across the variants of this report (the same as p_value with one variant). */
  p_value_adjusted: number | null;
  significant: boolean;
}

interface VariantReadings {
  /** The reading to act on: always-valid unless the campaign declared its sample size. */
  primary: 'sequential' | 'fixed_horizon';
  sequential: UpliftReading & { tuning_users: number };
  fixed_horizon: UpliftReading & { newcombe_ci: Interval };
  relative: Reading & { estimate: number | null; ci: Interval; zero_count_guard: boolean };
  bayes: Reading & { p_beats_control: number; expected_loss: number; expected_loss_control: number; prior: 'Beta(1,1)'; draws: number; seed: number };
  power: Reading & {
    users: number;
    power: number;
    detectable_effect: number | null;
    /** With the document's `min_effect`: the users and days still needed to find it. */
    remaining: {
      min_effect: number;
      users_needed: number;
      users_assigned: number;
      users_remaining: number;
      users_per_day: number;
      days_so_far: number;
      days_remaining: number | null;
      /** CUPED's measured 1 − variance reduction when it helps, else 1. */
      variance_factor: number;
    } | null;
  };
  /** Null without a goal value (or fewer than two matured users in a group). */
  value:
    | (Reading & {
        property: string;
        cap: number;
        capped_users: number;
        control_mean: number;
        variant_mean: number;
        difference: { estimate: number; ci: Interval | null; se: number; df: number; p_value: number | null };
        relative: { estimate: number; ci: Interval; se: number } | null;
      })
    | null;
  /** Null without the pre-period sums. */
  cuped:
    | (Reading & {
        theta: number;
        estimate: number;
        ci: Interval;
        raw: { estimate: number; se: number };
        se: number;
        variance_reduction: number;
        pre_period_days: number;
      })
    | null;
}

export interface ReportReadings {
  srm: SrmReport | null;
  correction: Reading & { method: 'holm'; family: number };
  variants: Array<VariantReadings | null>;
}

const ALPHA = 0.05;
const POWER = 0.8;

/**
 * One group as the report counts it: `audience` every user (the sample-ratio check's count);
 * `matured` the users whose windows have all closed and `converted` those of them converted (the
 * comparisons' counts; `matured` defaults to the audience); `converted` null without a goal.
 */
export interface Group {
  audience: number;
  matured?: number;
  converted: number | null;
  /** CUPED's covariate sums over the matured users (x the pre-period goal count), when the query has them. */
  pre?: { sx: number; sxx: number; sxy: number };
  /** With a goal value: Σ capped Y, Σ capped Y² over the matured users, and how many were capped. */
  value?: { sy: number; syy: number; capped: number };
  /** Users first assigned to this group in each period of `SplitPlan.history` (by index). */
  assigned?: readonly number[];
  /**
   * An adaptive campaign's groups: per period of `SplitPlan.history` (an epoch, by index), the matured
   * users first assigned in it and their counts and sums. With them every comparison is epoch-weighted.
   */
  epochs?: readonly EpochGroup[];
}

/** One group's matured users first assigned in one epoch: `Group`'s counts and sums, per epoch. */
export interface EpochGroup {
  matured: number;
  converted: number;
  pre?: { sx: number; sxx: number; sxy: number };
  value?: { sy: number; syy: number };
}

const armSums = (g: Group, p: Proportion): ArmSums | null => (g.pre ? { n: p.audience, sy: p.converted, syy: p.converted, ...g.pre } : null);

const proportion = (g: Group): Proportion | null => (g.converted === null ? null : { converted: g.converted, audience: g.matured ?? g.audience });

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/**
 * What the readings compare of one variant against control: every number that depends on how the
 * groups are compared. A fixed campaign's pools the matured users; an adaptive campaign's weights
 * each epoch's own comparison (stats/stratified.ts).
 */
interface Comparison {
  /** The variant's matured users and conversions, over every epoch. */
  v: Proportion;
  /** Agresti–Caffo at the family's confidence, `estimate` the observed difference. */
  fixed: Difference;
  /** The Agresti–Caffo centre and variance the always-valid interval is built on. */
  moments: { centre: number; variance: number };
  newcombe: Interval;
  relative: ReturnType<typeof logRatio>;
  bayes: () => BayesReading;
  /** Control's rate the power reading starts from. */
  controlRate: number;
  /** The power reading's variance multiplier for the comparison itself (1 pooled). */
  designEffect: number;
  cuped: CupedReading | null;
  value: ValueComparison | null;
  /** Epochs compared (null for a fixed campaign). */
  epochs: number | null;
}

const valueSums = (g: { value?: { sy: number; syy: number } }, n: number): ValueSums | null => (g.value ? { n, sy: g.value.sy, syy: g.value.syy } : null);

function pooledComparison(control: Proportion, v: Proportion, c: Group, g: Group, confidence: number): Comparison {
  const ca = armSums(c, control);
  const va = armSums(g, v);
  const cv = valueSums(c, control.audience);
  const vv = valueSums(g, v.audience);
  return {
    v,
    fixed: agrestiCaffo(control, v, confidence),
    moments: agrestiCaffoMoments(control, v),
    newcombe: newcombe(control, v, confidence),
    relative: logRatio(control, v),
    bayes: () => bayes(control, v),
    controlRate: control.converted / control.audience,
    designEffect: 1,
    cuped: ca && va ? cuped(ca, va, zFor(confidence)) : null,
    value: cv && vv ? compareValues(cv, vv, confidence) : null,
    epochs: null,
  };
}

/**
 * The epochs of one comparison (stats/stratified.ts `strata`): each with users in both control and
 * the variant, weighted by its matured users of every group in `all`. The report's `epoch_weighted`
 * reads the same strata.
 */
function epochStrata(control: Group, variant: Group, all: readonly Group[]): Stratum<EpochGroup>[] {
  const none: EpochGroup = { matured: 0, converted: 0 };
  const epochs = (control.epochs ?? []).map((c, e) => ({
    control: c,
    variant: variant.epochs?.[e] ?? none,
    users: all.reduce((n, g) => n + (g.epochs?.[e]?.matured ?? 0), 0),
  }));
  return strata(epochs, (g) => g.matured);
}

const countsOf = (g: EpochGroup): Proportion => ({ converted: g.converted, audience: g.matured });
const arms = <T>(s: readonly Stratum<EpochGroup>[], f: (g: EpochGroup) => T | null): Stratum<T>[] | null => {
  const out: Stratum<T>[] = [];
  for (const e of s) {
    const control = f(e.control);
    const variant = f(e.variant);
    if (control === null || variant === null) return null;
    out.push({ weight: e.weight, control, variant });
  }
  return out;
};

/** The conversion counts of `epochStrata`: the strata of the epoch-weighted uplift. */
export const epochCounts = (control: Group, variant: Group, all: readonly Group[]): Stratum[] =>
  arms(epochStrata(control, variant, all), countsOf) as Stratum[];

function epochComparison(s: readonly Stratum<EpochGroup>[], v: Proportion, confidence: number): Comparison {
  const counts = arms(s, countsOf) as Stratum[];
  const pre = arms(s, (g) => (g.pre ? { n: g.matured, sy: g.converted, syy: g.converted, ...g.pre } : null));
  const values = arms(s, (g) => valueSums(g, g.matured));
  return {
    v,
    fixed: stratifiedAgrestiCaffo(counts, confidence),
    moments: combine(counts, agrestiCaffoMoments),
    newcombe: stratifiedNewcombe(counts, confidence),
    relative: stratifiedLogRatio(counts),
    bayes: () => stratifiedBayes(counts),
    controlRate: standardizedRates(counts).control,
    designEffect: designEffect(counts),
    cuped: pre ? stratifiedCuped(pre, zFor(confidence)) : null,
    value: values ? stratifiedValues(values, confidence) : null,
    epochs: s.length,
  };
}

interface SrmInput {
  groups: string[];
  observed: number[];
  result: ReturnType<typeof srm>;
  periods: SrmReport['periods'];
}

/** The current document's shares for every user (no history, or a group without its per-period counts). */
function currentSplit(control: Group, variants: readonly Group[], plan: SplitPlan): SrmInput {
  // Variants past the document's (an edited document) have no expected share: they are left out.
  const counted = variants.slice(0, plan.weights.length).map((g) => g.audience);
  const observed = plan.holdout > 0 ? [control.audience, ...counted] : counted;
  const groups = [...(plan.holdout > 0 ? ['control'] : []), ...counted.map((_, i) => `variant ${i + 1}`)];
  return { groups, observed, result: srm(observed, expectedShares(plan.holdout, plan.weights)), periods: null };
}

/**
 * Each edit period's shares: a user counts once, in the group and period of their first assignment;
 * a group no period gave a share (control without holdout, a variant never in the document) is left out.
 */
function splitHistory(control: Group, variants: readonly Group[], history: NonNullable<SplitPlan['history']>): SrmInput {
  const all = [control, ...variants];
  const width = Math.max(all.length, ...history.map((h) => h.weights.length + 1));
  const shared = Array.from({ length: width }, (_, g) => history.some((h) => (g === 0 ? h.holdout > 0 : g <= h.weights.length)));
  const kept = shared.flatMap((s, g) => (s ? [g] : []));
  // The users of a left-out group are left out of every period's count too: the kept groups' shares
  // of each period then add up to 1.
  const matrix = shared.map((s, g) => history.map((_, p) => (s ? (all[g]?.assigned?.[p] ?? 0) : 0)));
  const expected = expectedByPeriod(history, matrix);
  const assigned = kept.map((g) => matrix[g] as number[]);
  const observed = assigned.map((a) => a.reduce((x, y) => x + y, 0));
  return {
    groups: kept.map((g) => (g === 0 ? 'control' : `variant ${g}`)),
    observed,
    result: srmAgainst(
      observed,
      kept.map((g) => expected[g] as number),
    ),
    periods: history.map((h, p) => ({
      from: new Date(h.from).toISOString(),
      holdout: h.holdout,
      weights: [...h.weights],
      users: assigned.reduce((n, a) => n + (a[p] ?? 0), 0),
    })),
  };
}

function srmReport(control: Group, variants: readonly Group[], plan: SplitPlan): SrmReport | null {
  const history = plan.history ?? [];
  const byPeriod = history.length > 0 && [control, ...variants].every((g) => g.assigned !== undefined);
  const { groups, result: r, periods } = byPeriod ? splitHistory(control, variants, history) : currentSplit(control, variants, plan);
  if (!r) return null;
  const total = r.observed.reduce((a, b) => a + b, 0);
  const split = groups.map((g, i) => `${g} ${pct(r.shares[i] as number)}`).join(', ');
  const seen = groups.map((g, i) => `${g} ${pct((r.observed[i] as number) / total)}`).join(', ');
  const edited = periods !== null && periods.length > 1;
  return {
    name: 'Sample ratio check',
    explanation: `Were users split as the campaign says (${split}${edited ? `, over the ${periods.length} periods between edits of the split, each period's users in that period's shares` : ''})? Observed: ${seen}. A chi-square test of the group sizes against those shares; a p-value below ${SRM_THRESHOLD} happens by chance once in a thousand campaigns, so it almost always means users were lost or moved in one group, and then no uplift below can be trusted.`,
    groups,
    observed: r.observed,
    expected: r.expected,
    chi_square: r.chi_square,
    df: r.df,
    p_value: r.p_value,
    threshold: SRM_THRESHOLD,
    mismatch: r.mismatch,
    warning: r.mismatch
      ? `The split of users is not the configured one (p ${r.p_value < 1e-6 ? '< 0.000001' : `= ${r.p_value.toPrecision(2)}`}): find out why before reading any result.`
      : null,
    expected_from: byPeriod ? 'document history' : 'current document',
    periods,
  };
}

type Remaining = NonNullable<VariantReadings['power']['remaining']>;

/**
 * Users and days still needed to find the document's `min_effect` over control's observed rate, at
 * the observed split of control and this variant, at the pace of first assignments so far.
 */
function remainingFor(
  target: { minEffect: number; days: number },
  controlRate: number,
  control: Group,
  variant: Group,
  alpha: number,
  varianceReduction: number | undefined,
  designEffect: number,
): Remaining {
  const assigned = control.audience + variant.audience;
  const factor = (varianceReduction !== undefined && varianceReduction > 0 ? 1 - varianceReduction : 1) * designEffect;
  const needed = Math.ceil(
    usersNeeded({ control_rate: controlRate, effect: target.minEffect, holdout: control.audience / assigned, alpha, power: POWER, variance_factor: factor }),
  );
  const left = Math.max(0, needed - assigned);
  const perDay = target.days > 0 ? assigned / target.days : 0;
  return {
    min_effect: target.minEffect,
    users_needed: needed,
    users_assigned: assigned,
    users_remaining: left,
    users_per_day: perDay,
    days_so_far: target.days,
    days_remaining: left === 0 ? 0 : perDay > 0 ? Math.ceil(left / perDay) : null,
    variance_factor: factor,
  };
}

function remainingWords(r: Remaining): string {
  const effect = `${(100 * r.min_effect).toFixed(2)} points (the campaign's smallest uplift worth finding)`;
  if (r.users_remaining === 0)
    return `To find ${effect}: ${r.users_needed} users are needed and ${r.users_assigned} are assigned; once their goal windows close the reading has the power it needs.`;
  const days =
    r.days_remaining === null
      ? 'at no measurable pace yet'
      : `about ${r.days_remaining} more day${r.days_remaining === 1 ? '' : 's'} at the ${Math.round(r.users_per_day)} users a day so far, plus the goal window for the last to mature`;
  return `To find ${effect}: ${r.users_needed} users are needed${r.variance_factor < 1 ? ' (fewer thanks to the past-behaviour adjustment)' : ''}, ${r.users_remaining} more than the ${r.users_assigned} assigned: ${days}.`;
}

/**
 * Readings of every variant against control. `plannedUsers`: the sample size the campaign declared
 * in advance; with it the fixed-horizon reading is the primary one (valid once, at that size).
 */
export function reportReadings(
  groups: { control: Group; variants: readonly Group[] },
  plan: SplitPlan,
  plannedUsers?: number,
  prePeriodDays = 14,
  goalValue?: { property: string; cap: number; percentile: number },
  target?: { minEffect: number; days: number },
): ReportReadings {
  const control = proportion(groups.control);
  const all = [groups.control, ...groups.variants];
  const adaptive = groups.control.epochs !== undefined;
  const comparable = groups.variants.map((g) => {
    const v = proportion(g);
    if (!control || !v || control.audience === 0 || v.audience === 0) return null;
    // An adaptive campaign compares within epochs: it needs one epoch with users in both groups.
    const s = adaptive ? epochStrata(groups.control, g, all) : null;
    return s === null || s.length > 0 ? { v, strata: s } : null;
  });
  const family = comparable.filter((v) => v !== null).length;
  // Bonferroni-widened intervals (1 − α/k): they cover all k differences at once, the intervals that
  // go with Holm's adjusted p-values (which are never larger than Bonferroni's).
  const confidence = 1 - ALPHA / Math.max(1, family);
  const raw = comparable.map((pair, i) => {
    if (!pair || !control) return null;
    const { v } = pair;
    const g = groups.variants[i] as Group;
    const compared = pair.strata ? epochComparison(pair.strata, v, confidence) : pooledComparison(control, v, groups.control, g, confidence);
    const users = control.audience + v.audience;
    const tuning = plannedUsers ?? SEQUENTIAL_TUNING;
    // The interval at α/k like the fixed one; the p-value from the mixture tuned for α itself.
    const seq = sequential({ ...compared.moments, users, tuning, alpha: ALPHA / Math.max(1, family) });
    const seqP = sequential({ ...compared.moments, users, tuning, alpha: ALPHA }).p_value;
    return {
      ...compared,
      seq,
      seqP,
      index: i,
      fixedP: compared.fixed.p_value,
      capped: (groups.control.value?.capped ?? 0) + (g.value?.capped ?? 0),
    };
  });
  const present = raw.filter((r) => r !== null);
  const adjSeq = holm(present.map((r) => r.seqP));
  const adjFixed = holm(present.map((r) => r.fixedP ?? 1));
  let k = 0;
  const readings = raw.map((r): VariantReadings | null => {
    if (!r || !control) return null;
    const i = k++;
    const ps = adjSeq[i] as number;
    const pf = adjFixed[i] as number;
    const rel = r.relative;
    const b = r.bayes();
    const users = control.audience + r.v.audience;
    const pc = r.controlRate;
    const mde = detectableEffect(users, {
      control_rate: pc,
      holdout: control.audience / users,
      alpha: 1 - confidence,
      power: POWER,
      variance_factor: r.designEffect,
    });
    const level = pct(confidence);
    const remaining = target
      ? remainingFor(target, pc, groups.control, groups.variants[r.index] as Group, 1 - confidence, r.cuped?.variance_reduction, r.designEffect)
      : null;
    // An adaptive campaign's readings each say how the epochs were combined.
    const epochs = (how: string) =>
      r.epochs === null
        ? ''
        : ` Epoch-weighted: this campaign moves its weights, so the difference is taken within each epoch (${r.epochs} compared) and the epochs' differences are weighted by their share of the users (Σ Nₑ/N·Δₑ); pooling the epochs would be biased. ${how}`;
    return {
      primary: plannedUsers === undefined ? 'sequential' : 'fixed_horizon',
      sequential: {
        name: 'Uplift, safe to check any time',
        explanation: `Conversion-rate difference (variant minus control) with a ${level} always-valid interval: it stays valid however often the report is looked at while the campaign runs, at the price of being wider than the fixed-horizon one. Tuned to be narrowest at ${plannedUsers ?? SEQUENTIAL_TUNING} users. "Significant" when the adjusted p-value is below ${ALPHA}.${epochs("Each epoch's Agresti–Caffo centre and variance are combined with those weights.")}`,
        estimate: r.fixed.estimate,
        ci: r.seq.ci,
        p_value: r.seqP,
        p_value_adjusted: ps,
        significant: ps < ALPHA,
        tuning_users: plannedUsers ?? SEQUENTIAL_TUNING,
      },
      fixed_horizon: {
        name: 'Uplift, read once at the planned size',
        explanation: `The same difference with a ${level} Agresti–Caffo interval. Valid only when read once, at a sample size fixed in advance: checked every day it calls "significant" far more often than ${pct(ALPHA)} of the time when nothing works.${epochs("Each epoch's Agresti–Caffo centre and variance are combined with those weights, and the Newcombe interval's limits likewise (MOVER).")}`,
        estimate: r.fixed.estimate,
        ci: r.fixed.ci,
        p_value: r.fixedP,
        p_value_adjusted: pf,
        significant: pf < ALPHA,
        newcombe_ci: r.newcombe,
      },
      relative: {
        name: 'Relative uplift',
        explanation: `How many more (or fewer) conversions than control, as a share of control's: variant rate / control rate − 1, with a 95% interval on the log of the ratio.${rel.corrected ? ` A group converted nobody (or everybody)${r.epochs === null ? '' : ' in an epoch'}, so 0.5 was added to every count for the interval.` : ''}${epochs('The rates are the epoch-weighted ones; the interval is by the delta method on their log ratio.')}`,
        estimate: rel.estimate,
        ci: rel.ci,
        zero_count_guard: rel.corrected,
      },
      bayes: {
        name: 'Chance the variant is better',
        explanation: `The probability that the variant converts better than control, and the expected loss: how much conversion rate choosing the variant gives up on average, counting the cases where it is in fact worse (${b.expected_loss.toPrecision(2)} here). Uniform prior, ${b.draws} simulated draws with a fixed seed.${epochs("Each group's rate in each epoch has its own uniform prior; each draw compares the epoch-weighted rates.")}`,
        p_beats_control: b.p_beats_control,
        expected_loss: b.expected_loss,
        expected_loss_control: b.expected_loss_control,
        prior: 'Beta(1,1)',
        draws: b.draws,
        seed: b.seed,
      },
      power: {
        name: 'What this campaign can detect',
        explanation:
          (mde === null
            ? `With ${users} users compared so far, no uplift over control's ${pct(pc)} can be found reliably yet.`
            : `With ${users} users compared so far, an uplift of ${(100 * mde).toFixed(2)} points over control's ${pct(pc)} (to ${pct(pc + mde)}) would be found ${pct(POWER)} of the time by the fixed-horizon reading; a smaller true uplift would usually be missed, so "not significant" does not mean "no effect". The always-valid reading needs more users for the same.`) +
          (remaining ? ` ${remainingWords(remaining)}` : '') +
          epochs(
            `Weighting the epochs makes the estimate ${r.designEffect.toFixed(2)} times as variable as a fixed split of the same users; the users needed count that.`,
          ),
        users,
        power: POWER,
        detectable_effect: mde,
        remaining,
      },
      value:
        r.value && goalValue
          ? {
              name: 'Value per user',
              explanation: `Mean ${goalValue.property} per user (0 for a user who did not reach the goal), variant minus control, with a ${level} Welch interval; each user's total is capped at ${goalValue.cap.toPrecision(4)}, the ${Math.round(100 * goalValue.percentile)}th percentile of the users with a value (${r.capped} capped here), so one huge order cannot decide the result. The relative uplift is variant / control − 1 with a 95% delta-method interval. Valid when read once, like the fixed-horizon reading.${epochs("Each epoch's means are compared; the interval's degrees of freedom are Satterthwaite's over the epochs.")}`,
              property: goalValue.property,
              cap: goalValue.cap,
              capped_users: r.capped,
              ...r.value,
            }
          : null,
      cuped: r.cuped && {
        name: 'Uplift adjusted for past behaviour',
        explanation: `The same difference with each user's goal count in the ${prePeriodDays} days before the campaign first reached them taken out (CUPED, one θ = ${r.cuped.theta.toPrecision(3)} for all groups; users with no history count as 0). Users who converted before convert again more often; removing what that predicts leaves the same uplift with less noise: here ${pct(Math.max(0, r.cuped.variance_reduction))} less variance, a ${level} interval. Read it beside the unadjusted one; they should agree.${epochs('θ is pooled within each epoch and group; each epoch’s adjusted difference is weighted.')}`,
        theta: r.cuped.theta,
        estimate: r.cuped.estimate,
        ci: r.cuped.ci,
        se: r.cuped.se,
        raw: r.cuped.raw,
        variance_reduction: r.cuped.variance_reduction,
        pre_period_days: prePeriodDays,
      },
    };
  });
  return {
    srm: srmReport(groups.control, groups.variants, plan),
    correction: {
      name: 'Several variants',
      explanation:
        family === 0
          ? 'No variant has matured users beside matured control users yet: nothing is compared, so nothing is corrected.'
          : `${family} variant${family === 1 ? '' : 's'} compared with control: adjusted p-values by Holm's method and ${pct(confidence)} intervals, so the chance of any false "significant" among them stays at ${pct(ALPHA)}.`,
      method: 'holm',
      family,
    },
    variants: readings,
  };
}
