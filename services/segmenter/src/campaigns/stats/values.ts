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
  // Welch–Satterthwaite.
  const df = (qc + qv) ** 2 / (qc ** 2 / (control.n - 1) + qv ** 2 / (variant.n - 1));
  return compareMeans({ control: c.mean, variant: v.mean, controlVariance: qc, variantVariance: qv, df }, confidence);
}

/**
 * A value goal of an adaptive campaign, per epoch and combined (stats/stratified.ts): each arm's mean
 * is Σ wₑ m_ₑ, its variance Σ wₑ² s_ₑ²/nₑ, the difference's degrees of freedom Satterthwaite's over
 * every (epoch, arm) cell, (Σ aₖ)² / Σ aₖ²/(nₖ − 1) with aₖ = wₑ² sₖ²/nₖ. A cell of one user has no
 * variance to estimate and adds none. Null unless each arm has two users over the epochs. One epoch is
 * `compareValues`.
 */
export function stratifiedValues(s: ReadonlyArray<{ weight: number; control: ValueSums; variant: ValueSums }>, confidence = 0.95): ValueComparison | null {
  const total = (pick: (e: (typeof s)[number]) => ValueSums) => s.reduce((n, e) => n + pick(e).n, 0);
  if (total((e) => e.control) < 2 || total((e) => e.variant) < 2) return null;
  const m = { control: 0, variant: 0, controlVariance: 0, variantVariance: 0, df: 0 };
  let dfTerms = 0;
  for (const e of s) {
    const cell = (g: ValueSums) => {
      const { mean, variance } = g.n < 2 ? { mean: g.sy / g.n, variance: 0 } : moments(g);
      const a = (e.weight * e.weight * variance) / g.n;
      if (g.n > 1) dfTerms += a ** 2 / (g.n - 1);
      return { mean: e.weight * mean, a };
    };
    const c = cell(e.control);
    const v = cell(e.variant);
    m.control += c.mean;
    m.variant += v.mean;
    m.controlVariance += c.a;
    m.variantVariance += v.a;
  }
  m.df = (m.controlVariance + m.variantVariance) ** 2 / dfTerms;
  return compareMeans(m, confidence);
}

/** The Welch interval, p-value and delta-method relative uplift of two means with their variances and df. */
function compareMeans(
  m: { control: number; variant: number; controlVariance: number; variantVariance: number; df: number },
  confidence: number,
): ValueComparison {
  const qc = m.controlVariance;
  const qv = m.variantVariance;
  const se = Math.sqrt(qc + qv);
  const estimate = m.variant - m.control;
  const df = m.df;
  const alpha = 1 - confidence;
  let ci: Interval | null = null;
  let p: number | null = null;
  if (se > 0) {
    const half = studentQuantile(1 - alpha / 2, df) * se;
    ci = [estimate - half, estimate + half];
    p = 2 * studentCdf(-Math.abs(estimate) / se, df);
  }
  let relative: ValueComparison['relative'] = null;
  if (m.control > 0) {
    // Delta method for g(m_v, m_c) = m_v / m_c: ∂g/∂m_v = 1/m_c, ∂g/∂m_c = −m_v/m_c² (independent groups).
    const rse = Math.sqrt(qv / m.control ** 2 + (m.variant ** 2 * qc) / m.control ** 4);
    const r = m.variant / m.control - 1;
    const z = normalQuantile(1 - alpha / 2);
    relative = { estimate: r, ci: [r - z * rse, r + z * rse], se: rse };
  }
  return { control_mean: m.control, variant_mean: m.variant, difference: { estimate, ci, se, df: Number.isFinite(df) ? df : 0, p_value: p }, relative };
}
