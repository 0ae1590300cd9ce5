import { normalQuantile } from './normal';

/**
 * How many users a campaign needs to find an absolute uplift `effect` over control's rate with the
 * given power, at a two-sided α, when a share `holdout` of users is control: the normal approximation
 * with the pooled variance under "no effect" and each group's own under the effect (R's
 * power.prop.test, extended to unequal groups):
 *
 *   N = (z_{1−α/2}·√(p̄q̄(1/h + 1/(1 − h))) + z_power·√(p_c q_c/h + p_v q_v/(1 − h)))² / effect²,
 *
 * p̄ = h·p_c + (1 − h)·p_v. `variance_factor` multiplies both variances: CUPED's measured 1 − ρ²
 * makes the campaign need that much fewer users.
 */
export interface PowerInput {
  control_rate: number;
  effect: number;
  holdout: number;
  alpha: number;
  power: number;
  variance_factor?: number;
}

export function usersNeeded({ control_rate: pc, effect, holdout: h, alpha, power, variance_factor: f = 1 }: PowerInput): number {
  const pv = Math.min(1, Math.max(0, pc + effect));
  const pbar = h * pc + (1 - h) * pv;
  const za = normalQuantile(1 - alpha / 2);
  const zb = normalQuantile(power);
  const root = za * Math.sqrt(f * pbar * (1 - pbar) * (1 / h + 1 / (1 - h))) + zb * Math.sqrt(f * ((pc * (1 - pc)) / h + (pv * (1 - pv)) / (1 - h)));
  return (root * root) / (effect * effect);
}

/**
 * The inverse: the smallest absolute uplift over `control_rate` that `users` users (both groups) find
 * with the given power; by bisection on `usersNeeded`, which falls as the effect grows. Null when not
 * even an uplift to a rate of 1 is findable.
 */
export function detectableEffect(users: number, input: Omit<PowerInput, 'effect'>): number | null {
  let lo = 0;
  let hi = 1 - input.control_rate;
  if (!(hi > 0) || usersNeeded({ ...input, effect: hi }) > users) return null;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (usersNeeded({ ...input, effect: mid }) > users) lo = mid;
    else hi = mid;
  }
  return hi;
}
