import { BAYES_DRAWS, BAYES_SEED, type BayesReading } from './bayes';
import { agrestiCaffoMoments, differenceAround, wilson, zFor, type Difference, type Interval, type Proportion } from './proportions';
import { beta, seeded } from './random';

/**
 * Epoch-stratified readings of an adaptive campaign (docs/campaigns.md, "Adaptive allocation"): the
 * variant-minus-control difference is taken within each epoch (where the split was fixed, so it is an
 * ordinary randomized comparison) and the epochs' differences are combined with weights wₑ = Nₑ/N,
 * Nₑ the epoch's users of every group: θ̂ = Σₑ wₑ·Δₑ, Var θ̂ = Σₑ wₑ²·Var Δₑ (independent epochs).
 * Pooling the epochs instead is biased when the base rate drifts while the weights move. With one
 * epoch every function here gives the pooled reading's number (weight 1).
 */

/** One epoch of a comparison: its weight (of the epochs kept, summing to 1) and both arms' data. */
export interface Stratum<T = Proportion> {
  weight: number;
  control: T;
  variant: T;
}

/**
 * The epochs a comparison uses: those with users in both arms (`size`), each weighted by its users of
 * every group over the kept epochs' users (a left-out epoch's weight goes to the others). Empty when
 * no epoch has both arms.
 */
export function strata<T>(epochs: ReadonlyArray<{ control: T; variant: T; users: number }>, size: (arm: T) => number): Stratum<T>[] {
  const used = epochs.filter((e) => size(e.control) > 0 && size(e.variant) > 0);
  const n = used.reduce((s, e) => s + e.users, 0);
  return n > 0 ? used.map((e) => ({ weight: e.users / n, control: e.control, variant: e.variant })) : [];
}

/** Σ wₑ·centreₑ and Σ wₑ²·varianceₑ of per-epoch moments. */
export function combine<T>(
  s: readonly Stratum<T>[],
  moments: (control: T, variant: T) => { centre: number; variance: number },
): { centre: number; variance: number } {
  let centre = 0;
  let variance = 0;
  for (const e of s) {
    const m = moments(e.control, e.variant);
    centre += e.weight * m.centre;
    variance += e.weight * e.weight * m.variance;
  }
  return { centre, variance };
}

const rate = (g: Proportion) => g.converted / g.audience;
const binomialVariance = (g: Proportion) => (rate(g) * (1 - rate(g))) / g.audience;

/** The observed difference per epoch and its unpooled Wald variance: the epoch-weighted estimate. */
const waldMoments = (control: Proportion, variant: Proportion) => ({
  centre: rate(variant) - rate(control),
  variance: binomialVariance(control) + binomialVariance(variant),
});

/** The epoch-weighted observed difference Σ wₑ(p_v,ₑ − p_c,ₑ) with its Wald variance. */
export const stratifiedWald = (s: readonly Stratum[]) => combine(s, waldMoments);

/**
 * Agresti–Caffo per epoch, combined: centre Σ wₑ(p̃_v,ₑ − p̃_c,ₑ), variance Σ wₑ²·Var_AC,ₑ, with
 * the observed epoch-weighted difference as `estimate` (as agrestiCaffo keeps the observed one).
 */
export function stratifiedAgrestiCaffo(s: readonly Stratum[], confidence = 0.95): Difference {
  const { centre, variance } = combine(s, agrestiCaffoMoments);
  return differenceAround(centre, variance, stratifiedWald(s).centre, confidence);
}

/**
 * Newcombe's hybrid score interval per epoch, combined by MOVER (Zou & Donner 2008, the recovery
 * of variance estimates from each proportion's Wilson limits, which is what Newcombe's interval is for
 * one epoch): θ̂ − √Σ wₑ²((p_v − l_v)² + (u_c − p_c)²), θ̂ + √Σ wₑ²((u_v − p_v)² + (p_c − l_c)²).
 */
export function stratifiedNewcombe(s: readonly Stratum[], confidence = 0.95): Interval {
  let d = 0;
  let low = 0;
  let high = 0;
  for (const e of s) {
    const pc = rate(e.control);
    const pv = rate(e.variant);
    const [lv, uv] = wilson(e.variant, confidence);
    const [lc, uc] = wilson(e.control, confidence);
    d += e.weight * (pv - pc);
    low += e.weight * e.weight * ((pv - lv) ** 2 + (uc - pc) ** 2);
    high += e.weight * e.weight * ((uv - pv) ** 2 + (pc - lc) ** 2);
  }
  return [d - Math.sqrt(low), d + Math.sqrt(high)];
}

/** Each arm's epoch-weighted rate Σ wₑ pₑ and its variance Σ wₑ² pₑ(1 − pₑ)/nₑ. */
export function standardizedRates(s: readonly Stratum[]): { control: number; variant: number; controlVariance: number; variantVariance: number } {
  const r = { control: 0, variant: 0, controlVariance: 0, variantVariance: 0 };
  for (const e of s) {
    r.control += e.weight * rate(e.control);
    r.variant += e.weight * rate(e.variant);
    r.controlVariance += e.weight * e.weight * binomialVariance(e.control);
    r.variantVariance += e.weight * e.weight * binomialVariance(e.variant);
  }
  return r;
}

/**
 * The relative uplift of the epoch-weighted rates, R_v / R_c − 1 (R = Σ wₑ pₑ), with its interval on
 * the log of the ratio by the delta method, SE_log = √(Var R_v / R_v² + Var R_c / R_c²) (for one
 * epoch the pooled SE_log). Guard: when an arm converted nobody (or everybody) in one of the epochs,
 * its variance there is 0 and the log may be undefined, so 0.5 is added to every count of every epoch
 * (x + 0.5 of n + 0.5) for the interval. `estimate` null when control's weighted rate is 0.
 */
export function stratifiedLogRatio(s: readonly Stratum[], confidence = 0.95): { estimate: number | null; ci: Interval; corrected: boolean } {
  const corrected = s.some((e) => [e.control, e.variant].some((g) => g.converted === 0 || g.converted === g.audience));
  const k = corrected ? 0.5 : 0;
  const plus = (g: Proportion): Proportion => ({ converted: g.converted + k, audience: g.audience + k });
  const r = standardizedRates(s.map((e) => ({ weight: e.weight, control: plus(e.control), variant: plus(e.variant) })));
  const log = Math.log(r.variant / r.control);
  const half = zFor(confidence) * Math.sqrt(r.variantVariance / r.variant ** 2 + r.controlVariance / r.control ** 2);
  const observed = standardizedRates(s);
  return {
    estimate: observed.control === 0 ? null : observed.variant / observed.control - 1,
    ci: [Math.exp(log - half) - 1, Math.exp(log + half) - 1],
    corrected,
  };
}

/**
 * The Bayesian reading of the epoch-weighted rates: Beta(1, 1)'s one success and one failure are
 * shared among the epochs by weight, so each arm's rate in epoch e has the prior Beta(wₑ, wₑ) and the
 * posterior Beta(wₑ + x, wₑ + n − x). (A whole Beta(1, 1) in every epoch would pull an arm's small
 * epochs toward 50% many times over: at a 5% base rate a variant with few users per epoch would "beat"
 * control most of the time when nothing works.) Each seeded Monte Carlo draw takes every epoch's two
 * rates and compares R_v = Σ wₑ p_v,ₑ with R_c = Σ wₑ p_c,ₑ: P(R_v > R_c), E[max(R_c − R_v, 0)],
 * E[max(R_v − R_c, 0)]. One epoch is stats/bayes.ts's reading, draw for draw. The draws are
 * 200,000 / epochs when that is fewer than 10,000 (at least 1,000), so a reading costs at most what
 * twenty epochs' 10,000 draws do.
 */
export function stratifiedBayes(
  s: readonly Stratum[],
  draws = Math.max(1000, Math.min(BAYES_DRAWS, Math.floor(200_000 / Math.max(1, s.length)))),
  seed = BAYES_SEED,
): BayesReading {
  const random = seeded(seed);
  let beats = 0;
  let loss = 0;
  let lossControl = 0;
  for (let i = 0; i < draws; i++) {
    let rc = 0;
    let rv = 0;
    for (const e of s) {
      const w = e.weight;
      rc += w * beta(random, w + e.control.converted, w + e.control.audience - e.control.converted);
      rv += w * beta(random, w + e.variant.converted, w + e.variant.audience - e.variant.converted);
    }
    if (rv > rc) {
      beats++;
      lossControl += rv - rc;
    } else loss += rc - rv;
  }
  return { p_beats_control: beats / draws, expected_loss: loss / draws, expected_loss_control: lossControl / draws, draws, seed };
}

/**
 * The design effect of the epoch weighting: the epoch-weighted Agresti–Caffo variance over the
 * pooled one of the same users. The power reading multiplies its variances by it (the weighted
 * estimate is that much noisier than a fixed split of the same users would be).
 */
export function designEffect(s: readonly Stratum[]): number {
  const sum = (pick: (e: Stratum) => Proportion) =>
    s.reduce((a, e) => ({ converted: a.converted + pick(e).converted, audience: a.audience + pick(e).audience }), { converted: 0, audience: 0 });
  return (
    combine(s, agrestiCaffoMoments).variance /
    agrestiCaffoMoments(
      sum((e) => e.control),
      sum((e) => e.variant),
    ).variance
  );
}
