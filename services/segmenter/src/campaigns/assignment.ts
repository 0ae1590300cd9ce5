import { createHash } from 'node:crypto';

/**
 * Deterministic assignment of a user to a campaign's control group or one of its variants: a pure
 * function of (campaign id, user id) and the campaign's holdout and weights, so every replica, every
 * restart and every redelivery puts a user in the same group, with nothing stored.
 */

const TWO_TO_53 = 2 ** 53;

/**
 * A uniform number in [0, 1) from SHA-256 of the UTF-8 JSON text `[purpose, campaignId, userId]`:
 * its first 53 bits over 2^53 (every such number is exact in a double). JSON keeps the three parts
 * apart whatever characters the ids hold (`"a:b","c"` and `"a","b:c"` hash differently).
 */
export function unitHash(purpose: string, campaignId: string, userId: string): number {
  const digest = createHash('sha256')
    .update(JSON.stringify([purpose, campaignId, userId]), 'utf8')
    .digest();
  return Number(digest.readBigUInt64BE(0) >> 11n) / TWO_TO_53;
}

export type Assignment = { group: 'control' } | { group: 'variant'; variant: number };

export interface AssignmentPlan {
  /** Fraction of users in control, 0 ≤ holdout < 1. */
  holdout: number;
  /** One positive weight per variant (a campaign without variants has one, its action). */
  weights: readonly number[];
}

/**
 * Control when the user's `holdout` hash falls below the fraction; otherwise the variant whose
 * share of the summed weights the user's `variant` hash falls in. The two hashes are independent:
 * changing the holdout moves no treated user between variants, and changing weights moves nobody
 * between control and treatment.
 */
export function assign(campaignId: string, userId: string, plan: AssignmentPlan): Assignment {
  if (plan.holdout > 0 && unitHash('holdout', campaignId, userId) < plan.holdout) return { group: 'control' };
  const total = plan.weights.reduce((a, b) => a + b, 0);
  const point = unitHash('variant', campaignId, userId) * total;
  let upTo = 0;
  for (let i = 0; i < plan.weights.length; i++) {
    upTo += plan.weights[i] as number;
    if (point < upTo) return { group: 'variant', variant: i };
  }
  // Rounding in the sum can leave the last bound a hair below `total`.
  return { group: 'variant', variant: plan.weights.length - 1 };
}
