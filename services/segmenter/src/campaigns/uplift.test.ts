import { twoSidedP, uplift } from './uplift';

// Every expected number is written out by hand from the formulas of docs/campaigns.md ("Report"),
// with z = Φ⁻¹(0.975) = 1.959963984540054.
const Z = 1.959963984540054;

describe('twoSidedP', () => {
  it('is P(|N(0,1)| ≥ |z|) at the table values', () => {
    expect(twoSidedP(0)).toBe(1);
    expect(twoSidedP(Z)).toBeCloseTo(0.05, 14);
    expect(twoSidedP(-Z)).toBeCloseTo(0.05, 14);
    expect(twoSidedP(1)).toBeCloseTo(0.3173105078629141, 14);
    expect(twoSidedP(2.5758293035489004)).toBeCloseTo(0.01, 14);
    expect(twoSidedP(3.2905267314919255)).toBeCloseTo(0.001, 14);
    // Both branches of erfc meet at |z|/√2 = 2.5 (z ≈ 3.5355).
    expect(twoSidedP(3.5355339059327373) / 4.06952017444959e-4).toBeCloseTo(1, 12);
    expect(twoSidedP(3.5355339059327378) / 4.06952017444959e-4).toBeCloseTo(1, 12);
    // Far tails keep their relative precision: 2·Φ(−6) = 1.973175290075e-9, 2·Φ(−10) = 1.523970604832e-23.
    expect(twoSidedP(6) / 1.9731752900753e-9).toBeCloseTo(1, 10);
    expect(twoSidedP(10) / 1.5239706048321e-23).toBeCloseTo(1, 10);
    expect(twoSidedP(40)).toBe(0);
  });
});

describe('uplift', () => {
  it('control 50/1000 against a variant 80/1000', () => {
    // p_c = 0.05, p_v = 0.08, d = 0.03
    // SE = √(0.05·0.95/1000 + 0.08·0.92/1000) = √(0.0000475 + 0.0000736) = √0.0001211 = 0.011004544515789829
    // CI = 0.03 ∓ 1.959963984540054 · 0.011004544515789829 = 0.03 ∓ 0.021568510917215828 = [0.008431489082784172, 0.05156851091721583]
    // z = 0.03 / 0.011004544515789829 = 2.726146453127125; p = 2·(1 − Φ(2.726146…)) = 0.0064078559345558
    // relative: 0.08/0.05 − 1 = 0.6; SE_log = √(0.92/80 + 0.95/50) = √(0.0115 + 0.019) = √0.0305 = 0.17464249196572981
    // CI = exp(ln 1.6 ∓ 1.959963984540054 · 0.17464249196572981) − 1 = [0.13622417141424, 1.25307651817828]
    const u = uplift({ converted: 50, audience: 1000 }, { converted: 80, audience: 1000 });
    expect(u).not.toBeNull();
    const { absolute, relative, z, p_value, significant } = u!;
    expect(absolute.estimate).toBeCloseTo(0.03, 15);
    expect(absolute.ci![0]).toBeCloseTo(0.008431489082784172, 14);
    expect(absolute.ci![1]).toBeCloseTo(0.05156851091721583, 14);
    expect(z).toBeCloseTo(2.726146453127125, 12);
    expect(p_value).toBeCloseTo(0.0064078559345558, 13);
    expect(significant).toBe(true);
    expect(relative!.estimate).toBeCloseTo(0.6, 14);
    expect(relative!.ci![0]).toBeCloseTo(0.13622417141424, 12);
    expect(relative!.ci![1]).toBeCloseTo(1.25307651817828, 12);
  });

  it('unequal groups, not significant: control 10/200 against 15/250', () => {
    // p_c = 0.05, p_v = 0.06, d = 0.01
    // SE = √(0.05·0.95/200 + 0.06·0.94/250) = √(0.0002375 + 0.0002256) = √0.0004631 = 0.021519758362956
    // CI = 0.01 ∓ 1.959963984540054 · 0.021519758362956 = 0.01 ∓ 0.042177951347 = [−0.032177951347, 0.052177951347]
    // z = 0.01 / 0.021519758362956 = 0.464689232627; p = 0.642154020220
    // relative 0.2; SE_log = √(0.94/15 + 0.95/10) = √(0.0626666… + 0.095) = √0.1576666… = 0.397072621402
    // CI = exp(ln 1.2 ∓ 1.959963984540054 · 0.3970725…) − 1 = [−0.448948209391, 1.613184503779]
    const u = uplift({ converted: 10, audience: 200 }, { converted: 15, audience: 250 })!;
    expect(u.absolute.estimate).toBeCloseTo(0.01, 15);
    expect(u.absolute.ci![0]).toBeCloseTo(-0.032177951347, 11);
    expect(u.absolute.ci![1]).toBeCloseTo(0.052177951347, 11);
    expect(u.z).toBeCloseTo(0.464689232627, 11);
    expect(u.p_value).toBeCloseTo(0.64215402022, 10);
    expect(u.significant).toBe(false);
    expect(u.relative!.estimate).toBeCloseTo(0.2, 14);
    expect(u.relative!.ci![0]).toBeCloseTo(-0.448948209391, 11);
    expect(u.relative!.ci![1]).toBeCloseTo(1.613184503779, 11);
  });

  it('a variant below control: negative uplift, significant', () => {
    // p_c = 0.3, p_v = 0.2, d = −0.1; SE = √(0.21/500 + 0.16/500) = √0.00074 = 0.027202941017470
    // CI = −0.1 ∓ 0.053316784668 = [−0.153316784668, −0.046683215332]; z = −3.676073110469; p = 0.000236851671
    const u = uplift({ converted: 150, audience: 500 }, { converted: 100, audience: 500 })!;
    expect(u.absolute.estimate).toBeCloseTo(-0.1, 15);
    expect(u.absolute.ci![0]).toBeCloseTo(-0.153316784668, 11);
    expect(u.absolute.ci![1]).toBeCloseTo(-0.046683215332, 11);
    expect(u.z).toBeCloseTo(-3.676073110469, 11);
    expect(u.p_value).toBeCloseTo(0.000236851671, 12);
    expect(u.significant).toBe(true);
    expect(u.relative!.estimate).toBeCloseTo(-1 / 3, 14);
  });

  it('zero conversions in control: no relative uplift; in the variant: −100 % without an interval', () => {
    // p_c = 0, p_v = 0.02: SE = √(0.02·0.98/100) = 0.014; CI = 0.02 ∓ 0.027439495783561 = [−0.007439495783561, 0.047439495783561]
    const a = uplift({ converted: 0, audience: 100 }, { converted: 2, audience: 100 })!;
    expect(a.absolute.estimate).toBe(0.02);
    expect(a.absolute.ci![0]).toBeCloseTo(-0.007439495783561, 14);
    expect(a.absolute.ci![1]).toBeCloseTo(0.047439495783561, 14);
    expect(a.relative).toBeNull();
    expect(a.significant).toBe(false);
    const b = uplift({ converted: 2, audience: 100 }, { converted: 0, audience: 100 })!;
    expect(b.relative).toEqual({ estimate: -1, ci: null });
  });

  it('no conversions anywhere: no variance, so no interval, z or p-value', () => {
    expect(uplift({ converted: 0, audience: 100 }, { converted: 0, audience: 80 })).toEqual({
      absolute: { estimate: 0, ci: null },
      relative: null,
      z: null,
      p_value: null,
      significant: false,
    });
  });

  it('an empty group has no proportion: nothing to compare', () => {
    expect(uplift({ converted: 0, audience: 0 }, { converted: 3, audience: 10 })).toBeNull();
    expect(uplift({ converted: 3, audience: 10 }, { converted: 0, audience: 0 })).toBeNull();
  });
});
