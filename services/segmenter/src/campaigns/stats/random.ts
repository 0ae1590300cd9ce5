/**
 * Seeded randomness for the Bayesian reading's Monte Carlo and the simulation tests: the same seed
 * gives the same numbers on every machine, so a report is reproducible and a test is not flaky.
 */

import { seededRandom } from '@evp/core';

export type Random = () => number;

/** mulberry32, the one seeded generator of the repository (@evp/core); plenty for Monte Carlo of this size. */
export const seeded = (seed: number): Random => seededRandom(seed);

/** N(0, 1) by Box–Muller (one of the pair; simple over fast). */
export function normal(random: Random): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** Gamma(shape, 1) by Marsaglia–Tsang (2000); shape < 1 through Gamma(shape + 1)·U^(1/shape). */
function gamma(random: Random, shape: number): number {
  if (shape < 1) return gamma(random, shape + 1) * Math.pow(random(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(random);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = random();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** Beta(a, b) as X/(X + Y) of two gammas. */
export function beta(random: Random, a: number, b: number): number {
  const x = gamma(random, a);
  return x / (x + gamma(random, b));
}

/**
 * Binomial(n, p) by inversion, in chunks of at most 20 expected successes (so (1 − p)^chunk never
 * underflows and each draw costs O(np)): exact, and fast enough for the simulations' sizes.
 */
export function binomial(random: Random, n: number, p: number): number {
  if (p <= 0 || n <= 0) return 0;
  if (p >= 1) return n;
  if (p > 0.5) return n - binomial(random, n, 1 - p);
  const chunk = Math.max(1, Math.floor(20 / p));
  let total = 0;
  for (let left = n; left > 0; left -= chunk) {
    const m = Math.min(chunk, left);
    const odds = p / (1 - p);
    let prob = Math.pow(1 - p, m);
    let cdf = prob;
    let k = 0;
    const u = random();
    while (u > cdf && k < m) {
      prob *= (odds * (m - k)) / (k + 1);
      cdf += prob;
      k++;
    }
    total += k;
  }
  return total;
}
