import { uplift } from '../../campaigns';
import {
  epochWeightedWords,
  excludesZero,
  guardrailWords,
  valueWords,
  percent,
  pWords,
  readingWords,
  signedPoints,
  upliftWords,
  wilsonInterval,
} from './words';

describe('the report in plain words', () => {
  it('says an uplift with its interval and p-value as a non-statistician reads it', () => {
    // 50/1000 against 80/1000: d = 0.03, CI [0.00843, 0.05157], p = 0.00641 (campaigns/report.test.ts by hand).
    expect(upliftWords(uplift({ converted: 50, audience: 1000 }, { converted: 80, audience: 1000 }))).toBe(
      '+3.0 points, 95% CI +0.8 to +5.2 (p = 0.006): likely a real improvement.',
    );
    expect(upliftWords(uplift({ converted: 80, audience: 1000 }, { converted: 50, audience: 1000 }))).toBe(
      '\u22123.0 points, 95% CI \u22125.2 to \u22120.8 (p = 0.006): likely a real decline.',
    );
    // 5/100 against 6/100: the interval spans 0.
    expect(upliftWords(uplift({ converted: 5, audience: 100 }, { converted: 6, audience: 100 }))).toBe(
      '+1.0 points, 95% CI \u22125.3 to +7.3 (p = 0.756): not distinguishable from no effect yet.',
    );
    expect(upliftWords(uplift({ converted: 100, audience: 10000 }, { converted: 300, audience: 10000 }))).toBe(
      '+2.0 points, 95% CI +1.6 to +2.4 (p < 0.001): likely a real improvement.',
    );
  });

  it('says why there is no interval or no uplift', () => {
    expect(upliftWords(uplift({ converted: 0, audience: 10 }, { converted: 0, audience: 10 }))).toBe(
      '0.0 points (no interval: every user of both groups did the same).',
    );
    expect(upliftWords(null)).toBe('No uplift yet: control or this variant has no audience, or the campaign has no goal.');
  });

  it('rounds to one decimal with a sign, never "−0.0"', () => {
    expect([signedPoints(0.03), signedPoints(-0.0004), signedPoints(0.0004), signedPoints(-0.0125), signedPoints(0)]).toEqual([
      '+3.0',
      '0.0',
      '0.0',
      '\u22121.3',
      '0.0',
    ]);
    expect([percent(0.05), percent(2 / 3), percent(1)]).toEqual(['5.0%', '66.7%', '100.0%']);
    expect([pWords(0.0064), pWords(0.05), pWords(0.0009999), pWords(1)]).toEqual(['p = 0.006', 'p = 0.050', 'p < 0.001', 'p = 1.000']);
  });

  it('gives each group the 95% Wilson interval of its rate', () => {
    // 50/1000, z² = 3.8414588: centre (0.05 + 0.0019207) / 1.0038415 = 0.0517220; half 1.959964·√(0.0000475 + 0.00000096)/1.0038415 = 0.0135918.
    const [low, high] = wilsonInterval(50, 1000) as [number, number];
    expect([low.toFixed(6), high.toFixed(6)]).toEqual(['0.038130', '0.065314']);
    expect(wilsonInterval(0, 20)?.map((x) => x.toFixed(6))).toEqual(['0.000000', '0.161125']);
    expect(wilsonInterval(20, 20)?.map((x) => x.toFixed(6))).toEqual(['0.838875', '1.000000']);
    expect(wilsonInterval(0, 0)).toBeNull();
  });
});

describe('the epoch-weighted uplift of an adaptive campaign, in plain words', () => {
  const ew = (estimate: number | null, ci: [number, number] | null, epochs: number) => ({ estimate, ci, epochs });

  it('says the estimate and its 95% interval as the uplift is, with the epochs it weighs', () => {
    // 2/20 against 8/40, then 2/20 against 12/60, 100 users in each epoch (campaigns/bandit/estimate.ts):
    // Δ = 0.1 in both; Var = ¼·(0.0045 + 0.004) + ¼·(0.0045 + 0.0026667) = 0.0039167; half 1.959964·0.0625833 = 0.1226610.
    expect(epochWeightedWords(ew(0.1, [0.1 - 0.122661, 0.1 + 0.122661], 2))).toBe(
      '+10.0 points, 95% CI \u22122.3 to +22.3 over 2 epochs: not distinguishable from no effect yet.',
    );
    // One epoch of 50/1000 against 80/1000 is the uplift's own Wald interval (as above).
    expect(epochWeightedWords(ew(0.03, [0.008431, 0.051569], 1))).toBe('+3.0 points, 95% CI +0.8 to +5.2 over 1 epoch: likely a real improvement.');
    expect(epochWeightedWords(ew(-0.03, [-0.051569, -0.008431], 1))).toBe(
      '\u22123.0 points, 95% CI \u22125.2 to \u22120.8 over 1 epoch: likely a real decline.',
    );
  });

  it('says why there is no estimate, and calls a difference likely real only when its interval leaves 0 out', () => {
    expect(epochWeightedWords(ew(null, null, 0))).toBe('no estimate yet: no epoch has matured users in both control and this variant.');
    expect([excludesZero([0.001, 0.2]), excludesZero([-0.2, -0.001]), excludesZero([0, 0.2]), excludesZero([-0.1, 0.1]), excludesZero(null)]).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe('the reading to act on, in plain words', () => {
  const reading = (estimate: number, ci: [number, number] | null, p: number | null, significant: boolean) => ({
    estimate,
    ci,
    p_value_adjusted: p,
    significant,
  });

  it('says the always-valid reading with its own level and the adjusted p-value', () => {
    expect(readingWords(reading(0.03, [0.0012, 0.0588], 0.041, true), 'sequential', 0.95)).toBe(
      '+3.0 points, 95% always-valid interval +0.1 to +5.9 (adjusted p = 0.041): likely a real improvement.',
    );
    expect(readingWords(reading(-0.03, [-0.0588, -0.0012], 0.0004, true), 'sequential', 0.95)).toBe(
      '\u22123.0 points, 95% always-valid interval \u22125.9 to \u22120.1 (adjusted p < 0.001): likely a real decline.',
    );
  });

  it('names the wider level of several variants and the fixed-horizon interval as such', () => {
    expect(readingWords(reading(0.01, [-0.02, 0.04], 0.6, false), 'fixed_horizon', 0.975)).toBe(
      '+1.0 points, 97.5% interval \u22122.0 to +4.0 (adjusted p = 0.600): not distinguishable from no effect yet.',
    );
    expect(readingWords(reading(0, null, null, false), 'sequential', 0.95)).toBe('0.0 points (no interval yet).');
  });
});

describe('a guardrail in plain words', () => {
  const g = (users: number, rate: number | null, reference: number | null, p: number | null, breach: boolean) => ({
    users,
    rate,
    reference_rate: reference,
    p_value: p,
    breach,
  });

  it('says the rate against the other variants, and whether it looks like harm', () => {
    expect(guardrailWords(1, 'blocked', g(30, 0.03, 0.015, 0.0133, true))).toBe(
      'Variant 1: 3.0% blocked (30 users), against 1.5% for the other variants (one-sided p = 0.013): possible harm.',
    );
    expect(guardrailWords(2, 'discarded', g(1, 0.001, 0.004, 0.9, false))).toBe(
      'Variant 2: 0.1% discarded (1 user), against 0.4% for the other variants (one-sided p = 0.900): no sign of harm.',
    );
  });

  it('says when there is nothing to compare with, or no users', () => {
    expect(guardrailWords(1, 'blocked', g(5, 0.01, null, null, false))).toBe('Variant 1: 1.0% blocked (5 users); no other variant to compare with.');
    expect(guardrailWords(3, 'blocked', g(0, null, null, null, false))).toBe('Variant 3: no users yet.');
  });
});

describe('the value per user in plain words', () => {
  it('says both means, the difference, its interval at its level and the p-value', () => {
    const v = (ci: [number, number] | null) => ({
      property: 'cart_price',
      control_mean: 0.5,
      variant_mean: 0.8,
      difference: { estimate: 0.3, ci, p_value: 0.02 },
    });
    expect(valueWords(v([0.05, 0.55]), 0.975)).toBe('cart_price per user 0.80 against 0.50 (+0.30, 97.5% interval +0.05 to +0.55, p = 0.020)');
    expect(valueWords(v([-0.1, 0.7]), 0.95)).toBe('cart_price per user 0.80 against 0.50 (+0.30, 95% interval \u22120.10 to +0.70, p = 0.020)');
    expect(valueWords(v(null), 0.95)).toBe('cart_price per user 0.80 against 0.50 (+0.30, no interval: every user had the same value)');
  });
});
