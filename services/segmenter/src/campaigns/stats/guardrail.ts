import { normalCdf } from './normal';
import { agrestiCaffoMoments, type Proportion } from './proportions';

/**
 * A guardrail's test for harm: is the arm's rate of a bad outcome (users who blocked, who discarded)
 * higher than the reference's? One-sided, on the Agresti–Caffo centre and variance (so it works at
 * the small counts blocks come in, and with zero of them): z = (p̃_arm − p̃_ref) / SE,
 * p = P(Z ≥ z) = Φ(−z). Only harm is tested: fewer blocks than the reference is not a finding here.
 */

/** A guardrail breaches at one-sided p < 0.05, outside the goal's correction family (a guardrail is a tripwire: correcting it would hide harm). */
export const GUARDRAIL_ALPHA = 0.05;

export interface Harm {
  /** p_arm − p_ref, as observed. */
  difference: number;
  /** One-sided: the chance of a rate this much higher when the arm is no worse. */
  p_value: number;
  breach: boolean;
}

export function harm(arm: Proportion, reference: Proportion): Harm {
  const { centre, variance } = agrestiCaffoMoments(reference, arm);
  const p = normalCdf(-centre / Math.sqrt(variance));
  return { difference: arm.converted / arm.audience - reference.converted / reference.audience, p_value: p, breach: p < GUARDRAIL_ALPHA };
}
