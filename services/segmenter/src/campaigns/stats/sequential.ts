import type { Interval } from './proportions';

/**
 * Always-valid inference for a difference whose estimate is approximately N(θ, v): the normal-mixture
 * confidence sequence (Robbins 1970; Howard et al. 2021, eq. 14; the mixture SPRT of Johari et al.
 * 2017), as GrowthBook's sequential testing has it. With a N(0, τ²) mixture over θ, the likelihood
 * ratio against θ₀ is Λ = √(v/(v + τ²)) · exp(τ²(θ̂ − θ₀)² / (2v(v + τ²))), and by Ville's
 * inequality P(Λ ever ≥ 1/α) ≤ α under θ₀ however often it is looked at. Inverting it:
 *
 *   interval θ̂ ± √( v(v + τ²)/τ² · (2 ln(1/α) + ln((v + τ²)/v)) ),   p = min(1, 1/Λ(0)).
 *
 * Tuning: τ² = s²·ρ² with s² = v·n the per-user variance and ρ² = (−2 ln α + ln(1 − 2 ln α)) / n*:
 * the interval is narrowest when the campaign has n* users (Howard et al.'s choice; GrowthBook's
 * default n* = 5,000). The p-value is the current look's 1/Λ, not the running minimum over looks (the
 * report keeps no history): larger or equal, so still valid.
 */

export interface SequentialInput {
  /** The estimate's centre θ̂ (the Agresti–Caffo centre in the report). */
  centre: number;
  /** Its variance v (> 0). */
  variance: number;
  /** Users behind it (both groups). */
  users: number;
  /** The tuning n*: users at which the interval is narrowest. */
  tuning: number;
  alpha: number;
}

export const SEQUENTIAL_TUNING = 5000;

export function sequential({ centre, variance: v, users, tuning, alpha }: SequentialInput): { ci: Interval; p_value: number } {
  const la = -2 * Math.log(alpha);
  const tau2 = (v * users * (la + Math.log(1 + la))) / tuning;
  const half = Math.sqrt(((v * (v + tau2)) / tau2) * (la + Math.log((v + tau2) / v)));
  const logLambda = 0.5 * Math.log(v / (v + tau2)) + (tau2 * centre * centre) / (2 * v * (v + tau2));
  return { ci: [centre - half, centre + half], p_value: Math.min(1, Math.exp(-logLambda)) };
}
