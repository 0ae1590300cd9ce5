import type { Interval } from './proportions';

/**
 * CUPED (Deng et al. 2013) from per-arm sums, so ClickHouse returns six numbers per group however many
 * users: Y the user's outcome (1 converted, 0 not, or a value), X its covariate (the same goal's count
 * in the 14 days before the user's first assignment; 0 for a user with no history, who then simply
 * gets no adjustment beyond the pooled mean). θ = pooled within-arm cov(X, Y) / var(X), one θ for
 * every arm (unbiased for the difference because X is measured before assignment). Each arm's
 * adjusted mean is ȳ − θ(x̄ − x̄_all); its variance that of Y − θX over n.
 */
export interface ArmSums {
  n: number;
  sy: number;
  syy: number;
  sx: number;
  sxx: number;
  sxy: number;
}

export interface CupedReading {
  theta: number;
  /** Adjusted mean difference (variant − control), its SE and interval. */
  estimate: number;
  se: number;
  ci: Interval;
  /** Unadjusted, for beside it. */
  raw: { estimate: number; se: number };
  /** 1 − Var(adjusted difference)/Var(raw difference): the share of variance removed (≈ ρ²). */
  variance_reduction: number;
}

const centred = (n: number, sab: number, sa: number, sb: number) => sab - (sa * sb) / n;

/** Sample variance of Y − θX in one arm. */
function adjustedVariance(a: ArmSums, theta: number): number {
  return (centred(a.n, a.syy, a.sy, a.sy) - 2 * theta * centred(a.n, a.sxy, a.sx, a.sy) + theta * theta * centred(a.n, a.sxx, a.sx, a.sx)) / (a.n - 1);
}

export function cupedTheta(arms: readonly ArmSums[]): number {
  const sxx = arms.reduce((s, a) => s + centred(a.n, a.sxx, a.sx, a.sx), 0);
  const sxy = arms.reduce((s, a) => s + centred(a.n, a.sxy, a.sx, a.sy), 0);
  return sxx > 0 ? sxy / sxx : 0;
}

/** Adjusted means of each arm (same order as `arms`), with one pooled θ. */
export function cupedMeans(arms: readonly ArmSums[], theta = cupedTheta(arms)): number[] {
  const n = arms.reduce((s, a) => s + a.n, 0);
  const xbar = arms.reduce((s, a) => s + a.sx, 0) / n;
  return arms.map((a) => a.sy / a.n - theta * (a.sx / a.n - xbar));
}

export function cuped(control: ArmSums, variant: ArmSums, z: number, theta = cupedTheta([control, variant])): CupedReading {
  const [mc, mv] = cupedMeans([control, variant], theta) as [number, number];
  const se = Math.sqrt(adjustedVariance(control, theta) / control.n + adjustedVariance(variant, theta) / variant.n);
  const rawSe = Math.sqrt(adjustedVariance(control, 0) / control.n + adjustedVariance(variant, 0) / variant.n);
  const estimate = mv - mc;
  return {
    theta,
    estimate,
    se,
    ci: [estimate - z * se, estimate + z * se],
    raw: { estimate: variant.sy / variant.n - control.sy / control.n, se: rawSe },
    variance_reduction: rawSe > 0 ? 1 - (se * se) / (rawSe * rawSe) : 0,
  };
}

/** An arm's sums within one epoch; the variance of a mean over fewer than two users is 0 (none to estimate). */
const meanVariance = (a: ArmSums, theta: number) => (a.n < 2 ? 0 : adjustedVariance(a, theta) / a.n);

/**
 * CUPED of an adaptive campaign, per epoch and combined (stats/stratified.ts): one θ pooled within
 * every (epoch, arm) cell, each epoch's adjusted difference (ȳ_v − ȳ_c) − θ(x̄_v − x̄_c) weighted by
 * wₑ, variance Σ wₑ²(Var(Y − θX)_v/n_v + Var(Y − θX)_c/n_c). One epoch is `cuped`'s reading.
 */
export function stratifiedCuped(s: ReadonlyArray<{ weight: number; control: ArmSums; variant: ArmSums }>, z: number): CupedReading {
  const theta = cupedTheta(s.flatMap((e) => [e.control, e.variant]));
  let estimate = 0;
  let variance = 0;
  let raw = 0;
  let rawVariance = 0;
  for (const e of s) {
    const [mc, mv] = cupedMeans([e.control, e.variant], theta) as [number, number];
    const w2 = e.weight * e.weight;
    estimate += e.weight * (mv - mc);
    variance += w2 * (meanVariance(e.control, theta) + meanVariance(e.variant, theta));
    raw += e.weight * (e.variant.sy / e.variant.n - e.control.sy / e.control.n);
    rawVariance += w2 * (meanVariance(e.control, 0) + meanVariance(e.variant, 0));
  }
  const se = Math.sqrt(variance);
  const rawSe = Math.sqrt(rawVariance);
  return {
    theta,
    estimate,
    se,
    ci: [estimate - z * se, estimate + z * se],
    raw: { estimate: raw, se: rawSe },
    // As `cuped` computes it, so one epoch gives its number to the last digit.
    variance_reduction: rawSe > 0 ? 1 - (se * se) / (rawSe * rawSe) : 0,
  };
}

/** Per-arm sums of (x, y) pairs: what the query's sums are, for tests and simulations. */
export function sumsOf(pairs: ReadonlyArray<readonly [number, number]>): ArmSums {
  const s: ArmSums = { n: 0, sy: 0, syy: 0, sx: 0, sxx: 0, sxy: 0 };
  for (const [x, y] of pairs) {
    s.n++;
    s.sy += y;
    s.syy += y * y;
    s.sx += x;
    s.sxx += x * x;
    s.sxy += x * y;
  }
  return s;
}
