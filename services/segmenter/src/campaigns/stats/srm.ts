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
  if (observed.length < 2 || n === 0) return null;
  const expected = shares.map((s) => s * n);
  const chi = observed.reduce((sum, o, i) => sum + (o - (expected[i] as number)) ** 2 / (expected[i] as number), 0);
  const df = observed.length - 1;
  const p = chiSquareUpper(chi, df);
  return { observed: [...observed], expected, shares: [...shares], chi_square: chi, df, p_value: p, mismatch: p < SRM_THRESHOLD };
}
