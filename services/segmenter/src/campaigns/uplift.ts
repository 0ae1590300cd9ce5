import { standardizedRates, stratifiedWald, twoSidedP, type Proportion, type Stratum } from './stats';

/**
 * The statistics of the campaign report (docs/campaigns.md, "Report"): a variant's conversion
 * against control's, by the normal approximation to two independent proportions. Pure arithmetic on
 * the counts ClickHouse returns, so it can be checked against hand-computed numbers alone.
 */

/** An interval [low, high] at the report's confidence level. */
type Interval = [number, number];

export interface Uplift {
  /** p_v − p_c, with its interval; `ci` null when both proportions are 0 or 1 (no variance to estimate). */
  absolute: { estimate: number; ci: Interval | null };
  /** p_v / p_c − 1, with its interval (log ratio, delta method); null when p_c = 0; `ci` null when p_v = 0 too. */
  relative: { estimate: number; ci: Interval | null } | null;
  /** (p_v − p_c) / SE, null when SE = 0. */
  z: number | null;
  /** Two-sided, from `z`; null when `z` is. */
  p_value: number | null;
  /** The interval of the absolute uplift excludes 0 (equivalently p_value < 0.05). */
  significant: boolean;
}

/** The report's confidence level and its two-sided normal quantile Φ⁻¹(0.975). */
export const CONFIDENCE = 0.95;
const Z = 1.959963984540054;

/** P(|N(0,1)| ≥ |z|) (stats/normal.ts). */
export { twoSidedP };

/**
 * Variant against control (both audiences > 0; null otherwise: no proportion to compare):
 * - absolute: d = p_v − p_c, SE = √(p_v(1 − p_v)/n_v + p_c(1 − p_c)/n_c) (unpooled), d ± 1.96·SE;
 * - z = d / SE and the two-sided p-value from it, so `significant` (p < 0.05) is exactly "the
 *   interval excludes 0";
 * - relative: r = p_v/p_c − 1; the interval on log(p_v/p_c) with SE_log = √((1 − p_v)/x_v +
 *   (1 − p_c)/x_c) (delta method; x the converted counts), mapped back: exp(log(p_v/p_c) ± 1.96·SE_log) − 1.
 *   Asymmetric, never below −1.
 */
export function uplift(control: Proportion, variant: Proportion): Uplift | null {
  if (control.audience === 0 || variant.audience === 0) return null;
  const pc = control.converted / control.audience;
  const pv = variant.converted / variant.audience;
  const se = Math.sqrt((pv * (1 - pv)) / variant.audience + (pc * (1 - pc)) / control.audience);
  return around(pv - pc, se, relative(control.converted, pc, variant.converted, pv));
}

/**
 * An adaptive campaign's uplift (docs/campaigns.md, "Adaptive allocation"), over the matured users of
 * the epochs with users in both groups (stats/stratified.ts): d = Σₑ wₑ(p_v,ₑ − p_c,ₑ), wₑ = Nₑ/N,
 * SE = √(Σₑ wₑ²(p_v q_v/n_v + p_c q_c/n_c)), z, p and `significant` as above; relative R_v / R_c − 1
 * of the epoch-weighted rates R = Σₑ wₑ pₑ, its interval on the log of the ratio with
 * SE_log = √(Var R_v / R_v² + Var R_c / R_c²) (with one epoch, `uplift`'s). Null without such an epoch.
 */
export function epochUplift(s: readonly Stratum[]): Uplift | null {
  if (s.length === 0) return null;
  const { centre, variance } = stratifiedWald(s);
  const r = standardizedRates(s);
  let rel: Uplift['relative'] = null;
  if (r.control > 0)
    rel =
      r.variant === 0
        ? { estimate: -1, ci: null }
        : logInterval(r.variant / r.control, Math.sqrt(r.variantVariance / r.variant ** 2 + r.controlVariance / r.control ** 2));
  return around(centre, Math.sqrt(variance), rel);
}

function around(d: number, se: number, relative: Uplift['relative']): Uplift {
  const z = se > 0 ? d / se : null;
  const ci: Interval | null = se > 0 ? [d - Z * se, d + Z * se] : null;
  return {
    absolute: { estimate: d, ci },
    relative,
    z,
    p_value: z === null ? null : twoSidedP(z),
    significant: ci !== null && (ci[0] > 0 || ci[1] < 0),
  };
}

const logInterval = (ratio: number, seLog: number): NonNullable<Uplift['relative']> => {
  const log = Math.log(ratio);
  return { estimate: ratio - 1, ci: [Math.exp(log - Z * seLog) - 1, Math.exp(log + Z * seLog) - 1] };
};

function relative(xc: number, pc: number, xv: number, pv: number): Uplift['relative'] {
  if (xc === 0) return null;
  if (xv === 0) return { estimate: -1, ci: null };
  return logInterval(pv / pc, Math.sqrt((1 - pv) / xv + (1 - pc) / xc));
}
