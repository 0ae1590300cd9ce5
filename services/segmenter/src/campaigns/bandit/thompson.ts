import { beta, seeded } from '../stats/random';
import type { Proportion } from '../stats';

/**
 * Top-two Thompson sampling (Russo 2016) over a campaign's variants — never the holdout, which stays
 * fixed so the control comparison keeps its meaning. Each Monte Carlo draw samples every variant's
 * conversion rate from its Beta(1 + converted, 1 + audience − converted) posterior (Beta(1, 1)
 * prior); the draw's best variant takes share β of the draw and its runner-up (the challenger) the
 * rest. Top-two rather than plain Thompson so a clear leader cannot starve the comparison that would
 * confirm it. The generator is seeded: the same counts always give the same weights.
 */

const BANDIT_DRAWS = 10_000;
const BANDIT_SEED = 42;
/**
 * The leader's share of a draw. Russo's 1/2 is tuned to identify the best arm; a campaign also wants
 * its users to get the better action meanwhile, so the leader takes more (the best variant then gets
 * about 0.05 + 0.9·0.7 ≈ 2/3 of the treated traffic once clear) while the challenger keeps learning.
 */
const TOP_TWO_BETA = 0.7;

export function topTwoShares(arms: readonly Proportion[], draws = BANDIT_DRAWS, seed = BANDIT_SEED): number[] {
  const k = arms.length;
  if (k < 2) return arms.map(() => 1);
  const random = seeded(seed);
  const shares = new Array<number>(k).fill(0);
  const theta = new Array<number>(k).fill(0);
  for (let d = 0; d < draws; d++) {
    for (let i = 0; i < k; i++) {
      const arm = arms[i] as Proportion;
      theta[i] = beta(random, 1 + arm.converted, 1 + arm.audience - arm.converted);
    }
    let first = 0;
    let second = 1;
    if ((theta[1] as number) > (theta[0] as number)) [first, second] = [1, 0];
    for (let i = 2; i < k; i++) {
      if ((theta[i] as number) > (theta[first] as number)) [first, second] = [i, first];
      else if ((theta[i] as number) > (theta[second] as number)) second = i;
    }
    shares[first] = (shares[first] as number) + TOP_TWO_BETA;
    shares[second] = (shares[second] as number) + 1 - TOP_TWO_BETA;
  }
  return shares.map((s) => s / draws);
}

/**
 * Shares squeezed above a floor: w = floor + (1 − k·floor)·share, so every variant keeps at least
 * `floor` of the treated traffic (and its estimate keeps narrowing) whatever the posterior says.
 */
export function withFloor(shares: readonly number[], floor: number): number[] {
  const rest = 1 - shares.length * floor;
  return shares.map((s) => floor + rest * s);
}
