import { normalQuantile, twoSidedP } from './normal';

/**
 * Intervals for the difference of two independent proportions, p_v − p_c (variant minus control),
 * and for their ratio. Wald is today's report and the simulation's negative control (it undercovers
 * with few conversions); Agresti–Caffo is the report's interval; Newcombe's hybrid score interval is
 * the cross-check (both keep ≥ 95% coverage down to a 0.5% base rate with 100 control users).
 */

/** Users converted out of users assigned: one group's proportion. */
export interface Proportion {
  converted: number;
  audience: number;
}

export type Interval = [number, number];

/** An interval for the difference with the z-test that agrees with it (p < α exactly when the interval excludes 0). */
export interface Difference {
  estimate: number;
  ci: Interval | null;
  z: number | null;
  p_value: number | null;
}

/** z for a two-sided interval at `confidence`. */
export const zFor = (confidence: number): number => normalQuantile(1 - (1 - confidence) / 2);

/** The interval and z-test of a centre with its variance; `estimate` the observed difference beside it. */
export function differenceAround(centre: number, variance: number, raw: number, confidence: number): Difference {
  if (!(variance > 0)) return { estimate: raw, ci: null, z: null, p_value: null };
  const se = Math.sqrt(variance);
  const z = centre / se;
  const half = zFor(confidence) * se;
  return { estimate: raw, ci: [centre - half, centre + half], z, p_value: twoSidedP(z) };
}

const rate = (g: Proportion) => g.converted / g.audience;

/** Unpooled Wald: d ± z·√(p_v q_v/n_v + p_c q_c/n_c). No interval when both proportions are 0 or 1. */
export function wald(control: Proportion, variant: Proportion, confidence = 0.95): Difference {
  const pc = rate(control);
  const pv = rate(variant);
  return differenceAround(pv - pc, (pv * (1 - pv)) / variant.audience + (pc * (1 - pc)) / control.audience, pv - pc, confidence);
}

/**
 * Agresti–Caffo (2000): Wald on counts with one success and one failure added to each group,
 * p̃ = (x + 1)/(n + 2), centred on p̃_v − p̃_c with variance Σ p̃(1 − p̃)/(n + 2). Never degenerate
 * (p̃ is never 0 or 1). `estimate` stays the observed p_v − p_c; z and the p-value are the centre over
 * the interval's SE, so "significant" and "the interval excludes 0" are one statement.
 */
export function agrestiCaffo(control: Proportion, variant: Proportion, confidence = 0.95): Difference {
  const { centre, variance } = agrestiCaffoMoments(control, variant);
  return differenceAround(centre, variance, rate(variant) - rate(control), confidence);
}

/** The Agresti–Caffo centre p̃_v − p̃_c and its variance (the sequential interval uses them too). */
export function agrestiCaffoMoments(control: Proportion, variant: Proportion): { centre: number; variance: number } {
  const tc = (control.converted + 1) / (control.audience + 2);
  const tv = (variant.converted + 1) / (variant.audience + 2);
  return { centre: tv - tc, variance: (tv * (1 - tv)) / (variant.audience + 2) + (tc * (1 - tc)) / (control.audience + 2) };
}

/** Wilson's score interval for one proportion (R's prop.test without continuity correction). */
export function wilson(g: Proportion, confidence = 0.95): Interval {
  const z = zFor(confidence);
  const p = rate(g);
  const n = g.audience;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** Newcombe's hybrid score interval (1998, method 10): each group's Wilson interval combined in quadrature. */
export function newcombe(control: Proportion, variant: Proportion, confidence = 0.95): Interval {
  const pc = rate(control);
  const pv = rate(variant);
  const [lv, uv] = wilson(variant, confidence);
  const [lc, uc] = wilson(control, confidence);
  const d = pv - pc;
  return [d - Math.sqrt((pv - lv) ** 2 + (uc - pc) ** 2), d + Math.sqrt((uv - pv) ** 2 + (pc - lc) ** 2)];
}

/**
 * p_v / p_c − 1 with its interval on the log of the ratio (delta method), SE_log = √(1/x_v − 1/n_v +
 * 1/x_c − 1/n_c). Zero counts (no log): 0.5 is added to every count of both groups (x + 0.5 of
 * n + 0.5, Haldane–Anscombe) for the interval only; `estimate` is null when control converted
 * nobody (no ratio to speak of), −1 when only the variant did not.
 */
export function logRatio(control: Proportion, variant: Proportion, confidence = 0.95): { estimate: number | null; ci: Interval; corrected: boolean } {
  const corrected = control.converted === 0 || variant.converted === 0 || control.converted === control.audience || variant.converted === variant.audience;
  const k = corrected ? 0.5 : 0;
  const xc = control.converted + k;
  const nc = control.audience + k;
  const xv = variant.converted + k;
  const nv = variant.audience + k;
  const log = Math.log(xv / nv / (xc / nc));
  const half = zFor(confidence) * Math.sqrt(1 / xv - 1 / nv + 1 / xc - 1 / nc);
  return {
    estimate: control.converted === 0 ? null : rate(variant) / rate(control) - 1,
    ci: [Math.exp(log - half) - 1, Math.exp(log + half) - 1],
    corrected,
  };
}
