import { normalQuantile } from './normal';
import { studentCdf, studentQuantile } from './student';
import type { Interval } from './proportions';

/**
 * A value goal (revenue per user): each group's mean of Y, the user's capped value (0 for a user who
 * never reached the goal), from the sums the query returns, n, ΣY and ΣY². The difference with
 * Welch's interval (unequal variances, Welch–Satterthwaite degrees of freedom) and the relative
 * uplift m_v / m_c − 1 with the delta method's standard error.
 */

export interface ValueSums {
  n: number;
  /** Σ Y over the group's users. */
  sy: number;
  /** Σ Y². */
  syy: number;
}

export interface ValueComparison {
  control_mean: number;
  variant_mean: number;
  /** m_v − m_c with Welch's interval at `confidence`. */
  difference: { estimate: number; ci: Interval | null; se: number; df: number; p_value: number | null };
  /** m_v / m_c − 1 with the delta method's normal interval; null when control's mean is 0. */
  relative: { estimate: number; ci: Interval; se: number } | null;
}

/** Mean and sample variance (n − 1) of a group from its sums. */
function moments(g: ValueSums): { mean: number; variance: number } {
  const mean = g.sy / g.n;
  // Σ(Y − m)² = ΣY² − n·m², clamped: rounding can make a constant group's slightly negative.
  return { mean, variance: Math.max(0, g.syy - g.n * mean * mean) / (g.n - 1) };
}

/** Null unless both groups have at least two users. */
export function compareValues(control: ValueSums, variant: ValueSums, confidence = 0.95): ValueComparison | null {
  if (control.n < 2 || variant.n < 2) return null;
  const c = moments(control);
  const v = moments(variant);
  const qc = c.variance / control.n;
  const qv = v.variance / variant.n;
  const se = Math.sqrt(qc + qv);
  const estimate = v.mean - c.mean;
  // Welch–Satterthwaite.
  const df = (qc + qv) ** 2 / (qc ** 2 / (control.n - 1) + qv ** 2 / (variant.n - 1));
  const alpha = 1 - confidence;
  let ci: Interval | null = null;
  let p: number | null = null;
  if (se > 0) {
    const half = studentQuantile(1 - alpha / 2, df) * se;
    ci = [estimate - half, estimate + half];
    p = 2 * studentCdf(-Math.abs(estimate) / se, df);
  }
  let relative: ValueComparison['relative'] = null;
  if (c.mean > 0) {
    // Delta method for g(m_v, m_c) = m_v / m_c: ∂g/∂m_v = 1/m_c, ∂g/∂m_c = −m_v/m_c² (independent groups).
    const rse = Math.sqrt(qv / c.mean ** 2 + (v.mean ** 2 * qc) / c.mean ** 4);
    const r = v.mean / c.mean - 1;
    const z = normalQuantile(1 - alpha / 2);
    relative = { estimate: r, ci: [r - z * rse, r + z * rse], se: rse };
  }
  return { control_mean: c.mean, variant_mean: v.mean, difference: { estimate, ci, se, df: Number.isFinite(df) ? df : 0, p_value: p }, relative };
}
