import { chiSquareUpper } from './chisq';

/**
 * The sample-ratio mismatch test: were users split between control and the variants as the document
 * says? Pearson's χ² of the observed group sizes against the expected shares (holdout for control,
 * (1 − holdout)·wᵢ/Σw for variant i), k − 1 degrees of freedom. A split this far off by chance has
 * p < 0.001 once in a thousand campaigns; more often it means something dropped or moved users of one
 * group (a crash, a filter, a late assignment), and then no uplift of the report can be trusted.
 */

export const SRM_THRESHOLD = 0.001;

export interface SrmReading {
  /** Groups tested: control first when the holdout is > 0, then variants 1 … N. */
  observed: number[];
  expected: number[];
  shares: number[];
  chi_square: number;
  df: number;
  p_value: number;
  /** p < 0.001. */
  mismatch: boolean;
}

/** The expected shares of control (only when holdout > 0) and each variant. */
export function expectedShares(holdout: number, weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  const variants = weights.map((w) => ((1 - holdout) * w) / total);
  return holdout > 0 ? [holdout, ...variants] : variants;
}

/** Null when fewer than two groups or no users: nothing to test. */
export function srm(observed: readonly number[], shares: readonly number[]): SrmReading | null {
  const n = observed.reduce((a, b) => a + b, 0);
  return srmAgainst(
    observed,
    shares.map((s) => s * n),
  );
}

/** A split the document had: its holdout and its variant weights (one, 1, without variants). */
export interface SplitShares {
  holdout: number;
  weights: readonly number[];
}

/**
 * The expected size of each group — control, then variants 1 … G — when the split was edited while
 * the campaign ran: each period's users (those first assigned in it, whatever group) times that
 * period's shares, summed over the periods. `assigned[g][p]`: users first assigned to group g in
 * period p. A group a period did not have (a variant added later) expects none of its users.
 */
export function expectedByPeriod(periods: readonly SplitShares[], assigned: readonly (readonly number[])[]): number[] {
  const users = periods.map((_, p) => assigned.reduce((n, g) => n + (g[p] ?? 0), 0));
  return assigned.map((_, g) =>
    periods.reduce((sum, split, p) => {
      const shares = [split.holdout, ...expectedShares(split.holdout, split.weights).slice(split.holdout > 0 ? 1 : 0)];
      return sum + (users[p] as number) * (shares[g] ?? 0);
    }, 0),
  );
}

/** The χ² test of observed group sizes against expected ones (as many, summing to the same total). */
export function srmAgainst(observed: readonly number[], expected: readonly number[]): SrmReading | null {
  const n = observed.reduce((a, b) => a + b, 0);
  if (observed.length < 2 || n === 0) return null;
  const shares = expected.map((e) => e / n);
  const chi = observed.reduce((sum, o, i) => sum + (o - (expected[i] as number)) ** 2 / (expected[i] as number), 0);
  const df = observed.length - 1;
  const p = chiSquareUpper(chi, df);
  return { observed: [...observed], expected: [...expected], shares, chi_square: chi, df, p_value: p, mismatch: p < SRM_THRESHOLD };
}
