import { GUARDRAIL_ALPHA, harm, type Proportion } from './stats';

/**
 * The report's guardrails (docs/campaigns.md, "Report", "Guardrails"): per variant, the share of its
 * users who blocked or discarded its action, each tested one-sided for harm against the pooled other
 * variants of the campaign. Control is sent nothing, so its block and discard rates are 0 by
 * construction and no baseline: against it every variant with a single block would "harm". The harm
 * of sending at all is the goal's own reading against control.
 */

const GUARDRAIL_METRICS = ['block', 'discard'] as const;
type Metric = (typeof GUARDRAIL_METRICS)[number];

/** One variant's users (audience) and, of them, those who blocked / discarded one of its actions. */
export interface GuardrailCounts {
  audience: number;
  block: number;
  discard: number;
}

interface MetricReading {
  /** Users of the variant with the response. */
  users: number;
  /** users / audience; null without an audience. */
  rate: number | null;
  /** The other variants' pooled rate; null with no other variant (or no users in them). */
  reference_rate: number | null;
  difference: number | null;
  /** One-sided p-value for "higher than the reference"; null without a reference. */
  p_value: number | null;
  breach: boolean;
}

export interface GuardrailReadings {
  name: string;
  explanation: string;
  alpha: number;
  reference: 'other variants';
  variants: Array<{ variant: number } & Record<Metric, MetricReading>>;
  /** One sentence per breach, to show as a warning. */
  warnings: string[];
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function metric(variants: readonly GuardrailCounts[], i: number, m: Metric): MetricReading {
  const own = variants[i] as GuardrailCounts;
  const others = variants.filter((_, j) => j !== i);
  const reference: Proportion = { converted: others.reduce((n, g) => n + g[m], 0), audience: others.reduce((n, g) => n + g.audience, 0) };
  const rate = own.audience > 0 ? own[m] / own.audience : null;
  if (rate === null || reference.audience === 0) {
    return { users: own[m], rate, reference_rate: null, difference: null, p_value: null, breach: false };
  }
  const h = harm({ converted: own[m], audience: own.audience }, reference);
  return { users: own[m], rate, reference_rate: reference.converted / reference.audience, difference: h.difference, p_value: h.p_value, breach: h.breach };
}

const WORD: Record<Metric, string> = { block: 'blocked', discard: 'discarded' };

export function guardrailReadings(variants: readonly GuardrailCounts[]): GuardrailReadings {
  const readings = variants.map((_, i) => ({
    variant: i + 1,
    block: metric(variants, i, 'block'),
    discard: metric(variants, i, 'discard'),
  }));
  const warnings = readings.flatMap((r) =>
    GUARDRAIL_METRICS.filter((m) => r[m].breach).map(
      (m) =>
        `Variant ${r.variant}: ${pct(r[m].rate ?? 0)} of its users ${WORD[m]} its message, against ${pct(r[m].reference_rate ?? 0)} for the other variants (one-sided p = ${(r[m].p_value ?? 1).toPrecision(2)}): it may be hurting users; look before keeping it.`,
    ),
  );
  return {
    name: 'Guardrails',
    explanation:
      variants.length < 2
        ? 'The share of users who blocked or discarded the message. With one variant there is nothing to compare it with (control is sent nothing, so it never blocks): read the rates as they are, and the harm of sending at all in the goal’s reading against control.'
        : `The share of each variant’s users who blocked or discarded its message, against the other variants together (control is sent nothing, so it never blocks and is no baseline). A variant is flagged when its rate is higher with a one-sided p-value below ${GUARDRAIL_ALPHA}; guardrails are not corrected for several variants, so a flag is a reason to look, not proof.`,
    alpha: GUARDRAIL_ALPHA,
    reference: 'other variants',
    variants: readings,
    warnings,
  };
}
