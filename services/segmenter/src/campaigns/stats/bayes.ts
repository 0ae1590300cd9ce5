import type { Proportion } from './proportions';
import { beta, seeded } from './random';

/**
 * The Bayesian reading of a variant against control: each group's conversion rate gets a Beta(1, 1)
 * (uniform) prior, so its posterior is Beta(1 + x, 1 + n − x); from seeded Monte Carlo draws of both,
 * - `p_beats_control` = P(p_v > p_c): how sure one can be the variant converts better;
 * - `expected_loss` = E[max(p_c − p_v, 0)]: what choosing the variant costs, in conversion rate, in
 *   the worlds where it is worse (averaged over all worlds) — small means "safe to choose even if wrong";
 * - `expected_loss_control` the same for keeping control.
 * The seed is fixed, so one report's numbers are the same on every read of the same counts.
 */

export interface BayesReading {
  p_beats_control: number;
  expected_loss: number;
  expected_loss_control: number;
  draws: number;
  seed: number;
}

export const BAYES_DRAWS = 10_000;
export const BAYES_SEED = 42;

export function bayes(control: Proportion, variant: Proportion, draws = BAYES_DRAWS, seed = BAYES_SEED): BayesReading {
  const random = seeded(seed);
  let beats = 0;
  let loss = 0;
  let lossControl = 0;
  for (let i = 0; i < draws; i++) {
    const pc = beta(random, 1 + control.converted, 1 + control.audience - control.converted);
    const pv = beta(random, 1 + variant.converted, 1 + variant.audience - variant.converted);
    if (pv > pc) {
      beats++;
      lossControl += pv - pc;
    } else loss += pc - pv;
  }
  return { p_beats_control: beats / draws, expected_loss: loss / draws, expected_loss_control: lossControl / draws, draws, seed };
}
