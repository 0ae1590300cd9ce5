/**
 * The campaign report in plain words and the per-group interval the console draws (docs/console.md).
 * Imports nothing: the console's Campaigns page (packages/console) bundles this very file, through
 * the package's `@evp/segmenter/report-words` export, so the words a unit test checks are the words
 * the browser shows.
 */

/**
 * The 95% Wilson score interval of converted / audience, as fractions: the per-group interval drawn
 * beside each conversion rate (unlike p ± 1.96·SE it stays inside [0, 1] and is not empty at 0 or 1).
 * null without an audience.
 */
export function wilsonInterval(converted: number, audience: number): [number, number] | null {
  if (!(audience > 0)) return null;
  // Φ⁻¹(0.975), the report's 95% level (campaigns/uplift.ts); a literal: this file is bundled for the browser and imports nothing.
  const z = 1.959963984540054;
  const p = converted / audience;
  const z2n = (z * z) / audience;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z * Math.sqrt((p * (1 - p)) / audience + z2n / (4 * audience))) / (1 + z2n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** A difference of proportions in percentage points, one decimal, always signed: +3.0, −0.8, 0.0. */
export function signedPoints(fraction: number): string {
  const text = (Math.abs(fraction) * 100).toFixed(1);
  if (text === '0.0') return '0.0';
  return (fraction < 0 ? '\u2212' : '+') + text;
}

/** A proportion as a percentage, one decimal: 8.0%. */
export function percent(fraction: number): string {
  return (fraction * 100).toFixed(1) + '%';
}

/** A p-value as people quote it: p = 0.006, p < 0.001. */
export function pWords(p: number): string {
  return p < 0.001 ? 'p < 0.001' : 'p = ' + p.toFixed(3);
}

/** An interval of a difference in points: "+0.8 to +5.2". */
const pointsRange = (ci: [number, number]): string => signedPoints(ci[0]) + ' to ' + signedPoints(ci[1]);

/** A confidence level as people quote it: 95%, 97.5%. */
const levelWords = (confidence: number): string => (confidence * 100).toFixed(1).replace(/\.0$/, '') + '%';

/** What a difference's sentence means, appended to it: "…: likely a real improvement." */
const verdict = (sentence: string, significant: boolean, estimate: number): string =>
  sentence + (!significant ? ': not distinguishable from no effect yet.' : estimate > 0 ? ': likely a real improvement.' : ': likely a real decline.');

/** The uplift shape the report gives (campaigns/uplift.ts), as much of it as the words need. */
interface UpliftLike {
  absolute: { estimate: number; ci: [number, number] | null };
  p_value: number | null;
  significant: boolean;
}

/**
 * A variant's uplift against control in one sentence a non-statistician reads right:
 * "+3.0 points, 95% CI +0.8 to +5.2 (p = 0.006): likely a real improvement."
 */
export function upliftWords(u: UpliftLike | null): string {
  if (u === null) return 'No uplift yet: control or this variant has no audience, or the campaign has no goal.';
  const ci = u.absolute.ci;
  const head = signedPoints(u.absolute.estimate) + ' points';
  if (ci === null) return head + ' (no interval: every user of both groups did the same).';
  return verdict(head + ', 95% CI ' + pointsRange(ci) + ' (' + pWords(u.p_value ?? 1) + ')', u.significant, u.absolute.estimate);
}

/** The epoch-weighted estimate of an adaptive campaign (campaigns/bandit/estimate.ts), as much of it as the words need. */
interface EpochWeightedLike {
  estimate: number | null;
  ci: [number, number] | null;
  epochs: number;
}

/** An interval that lies wholly above or below 0 (none: false): a difference likely real at its level. */
export const excludesZero = (ci: [number, number] | null): boolean => ci !== null && (ci[0] > 0 || ci[1] < 0);

/**
 * An adaptive campaign's epoch-weighted uplift in one sentence, said as the uplift is (its 95%
 * interval excluding 0 is what "likely real" means there too): "+10.0 points, 95% CI −2.3 to +22.3
 * over 2 epochs: not distinguishable from no effect yet."
 */
export function epochWeightedWords(e: EpochWeightedLike): string {
  if (e.estimate === null || e.ci === null) return 'no estimate yet: no epoch has matured users in both control and this variant.';
  const sentence = signedPoints(e.estimate) + ' points, 95% CI ' + pointsRange(e.ci) + ' over ' + e.epochs + (e.epochs === 1 ? ' epoch' : ' epochs');
  return verdict(sentence, excludesZero(e.ci), e.estimate);
}

/** A reading of the report's `readings` (campaigns/readings.ts), as much of it as the words need. */
interface ReadingLike {
  estimate: number;
  ci: [number, number] | null;
  p_value_adjusted: number | null;
  significant: boolean;
}

/**
 * The reading to act on (always-valid, or fixed-horizon for a campaign that declared its sample
 * size) in one sentence, with the interval's own level (wider than 95% with several variants) and
 * the Holm-adjusted p-value: "+3.0 points, 95% always-valid interval +0.1 to +5.9 (adjusted p = 0.041):
 * likely a real improvement."
 */
export function readingWords(r: ReadingLike, kind: 'sequential' | 'fixed_horizon', confidence: number): string {
  const head = signedPoints(r.estimate) + ' points';
  if (r.ci === null) return head + ' (no interval yet).';
  const level = levelWords(confidence) + (kind === 'sequential' ? ' always-valid interval' : ' interval');
  const p = r.p_value_adjusted === null ? '' : ' (adjusted ' + pWords(r.p_value_adjusted) + ')';
  return verdict(head + ', ' + level + ' ' + pointsRange(r.ci) + p, r.significant, r.estimate);
}

/** One guardrail of one variant (campaigns/guardrails.ts), as much of it as the words need. */
interface GuardrailLike {
  users: number;
  rate: number | null;
  reference_rate: number | null;
  p_value: number | null;
  breach: boolean;
}

/**
 * A variant's block or discard rate in one sentence: "Variant 2: 1.2% blocked (12 users), against
 * 0.4% for the other variants (one-sided p = 0.003): possible harm." The verb is `blocked` or `discarded`.
 */
export function guardrailWords(variant: number, verb: string, g: GuardrailLike): string {
  const head = 'Variant ' + variant + ': ';
  if (g.rate === null) return head + 'no users yet.';
  const own = percent(g.rate) + ' ' + verb + ' (' + g.users + (g.users === 1 ? ' user)' : ' users)');
  if (g.reference_rate === null || g.p_value === null) return head + own + '; no other variant to compare with.';
  const sentence = head + own + ', against ' + percent(g.reference_rate) + ' for the other variants (one-sided ' + pWords(g.p_value) + ')';
  return sentence + (g.breach ? ': possible harm.' : ': no sign of harm.');
}

/** The value reading (campaigns/readings.ts `value`), as much of it as the words need. */
interface ValueLike {
  property: string;
  control_mean: number;
  variant_mean: number;
  difference: { estimate: number; ci: [number, number] | null; p_value: number | null };
}

const amount = (x: number): string => (x < 0 ? '\u2212' : '') + Math.abs(x).toFixed(2);
const signedAmount = (x: number): string => (x > 0 ? '+' : '') + amount(x);

/**
 * A variant's value per user against control: "cart_price per user 0.80 against 0.50 (+0.30, 97.5%
 * interval +0.05 to +0.55, p = 0.020)".
 */
export function valueWords(v: ValueLike, confidence: number): string {
  const head = v.property + ' per user ' + amount(v.variant_mean) + ' against ' + amount(v.control_mean) + ' (' + signedAmount(v.difference.estimate);
  const ci = v.difference.ci;
  if (ci === null) return head + ', no interval: every user had the same value)';
  const level = levelWords(confidence) + ' interval ';
  return head + ', ' + level + signedAmount(ci[0]) + ' to ' + signedAmount(ci[1]) + ', ' + pWords(v.difference.p_value ?? 1) + ')';
}
