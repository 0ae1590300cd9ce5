import { reportReadings } from './readings';
import { agrestiCaffo, agrestiCaffoMoments, cuped, detectableEffect, holm, newcombe, sequential, usersNeeded, zFor } from './stats';

// The readings the report carries, from counts alone. The statistics themselves are checked against R
// in stats/reference.test.ts; here, which statistic each reading is, at which level, with which
// correction, and the edge cases.

const control = { audience: 1000, converted: 50 };
const v1 = { audience: 1000, converted: 80 };
const v2 = { audience: 1000, converted: 55 };

describe('reportReadings', () => {
  it('two variants: intervals at 1 − 0.05/2, Holm over both, sequential primary', () => {
    const r = reportReadings({ control, variants: [v1, v2] }, { holdout: 1 / 3, weights: [1, 1] });
    expect(r.correction).toMatchObject({ method: 'holm', family: 2 });
    expect(r.correction.explanation).toBe(
      '2 variants compared with control: adjusted p-values by Holm\'s method and 97.5% intervals, so the chance of any false "significant" among them stays at 5.0%.',
    );
    const [a, b] = r.variants;
    expect(a?.primary).toBe('sequential');
    expect(a?.fixed_horizon.ci).toEqual(agrestiCaffo(control, v1, 0.975).ci);
    expect(a?.fixed_horizon.newcombe_ci).toEqual(newcombe(control, v1, 0.975));
    const pf = [agrestiCaffo(control, v1).p_value!, agrestiCaffo(control, v2).p_value!];
    expect([a?.fixed_horizon.p_value, b?.fixed_horizon.p_value]).toEqual(pf);
    expect([a?.fixed_horizon.p_value_adjusted, b?.fixed_horizon.p_value_adjusted]).toEqual(holm(pf));
    // 50 vs 80: AC p = 0.0068, Holm ×2 = 0.0136 < 0.05; 50 vs 55: p ≈ 0.62.
    expect(a?.fixed_horizon.significant).toBe(true);
    expect(b?.fixed_horizon.significant).toBe(false);
    const m = agrestiCaffoMoments(control, v1);
    expect(a?.sequential.ci).toEqual(sequential({ ...m, users: 2000, tuning: 5000, alpha: 0.025 }).ci);
    expect(a?.sequential.p_value).toBe(sequential({ ...m, users: 2000, tuning: 5000, alpha: 0.05 }).p_value);
    expect(a?.sequential.tuning_users).toBe(5000);
    // 2,000 users is early for the always-valid interval: not yet significant (p 0.126 in R, ×2).
    expect(a?.sequential.significant).toBe(false);
    expect(a?.relative).toMatchObject({ estimate: expect.closeTo(0.6, 14), zero_count_guard: false });
    expect(a?.bayes.p_beats_control).toBe(0.9962);
    // No pre-period sums given: no CUPED reading.
    expect(a?.cuped).toBeNull();
    // Power at the family's level (α = 0.025), control's observed 5%, the observed half/half split.
    expect(a?.power).toMatchObject({ users: 2000, power: 0.8 });
    expect(a?.power.detectable_effect).toBeCloseTo(detectableEffect(2000, { control_rate: 0.05, holdout: 0.5, alpha: 0.025, power: 0.8 })!, 15);
    expect(usersNeeded({ control_rate: 0.05, effect: a!.power.detectable_effect!, holdout: 0.5, alpha: 0.025, power: 0.8 })).toBeCloseTo(2000, 6);
  });

  it('CUPED from the pre-period sums, at the family’s level, with one θ for control and the variant', () => {
    const pre = { sx: 12, sxx: 14, sxy: 11 };
    const r = reportReadings({ control: { ...control, pre }, variants: [{ ...v1, pre: { sx: 20, sxx: 20, sxy: 20 } }] }, { holdout: 0.5, weights: [1] });
    const expected = cuped({ n: 1000, sy: 50, syy: 50, ...pre }, { n: 1000, sy: 80, syy: 80, sx: 20, sxx: 20, sxy: 20 }, zFor(0.95));
    expect(r.variants[0]?.cuped).toMatchObject({ ...expected, pre_period_days: 14, name: 'Uplift adjusted for past behaviour' });
  });

  it('a declared sample size makes the fixed-horizon reading primary and tunes the sequential one for it', () => {
    const r = reportReadings({ control, variants: [v1] }, { holdout: 0.5, weights: [1] }, 20_000);
    expect(r.variants[0]?.primary).toBe('fixed_horizon');
    expect(r.variants[0]?.sequential.tuning_users).toBe(20_000);
    expect(r.variants[0]?.fixed_horizon.ci).toEqual(agrestiCaffo(control, v1).ci);
  });

  it('the SRM check: control and each variant of the document against holdout and weights', () => {
    const r = reportReadings(
      {
        control: { audience: 230, converted: null },
        variants: [
          { audience: 1290, converted: null },
          { audience: 2480, converted: null },
        ],
      },
      { holdout: 0.05, weights: [1, 2] },
    );
    expect(r.srm).toMatchObject({ groups: ['control', 'variant 1', 'variant 2'], observed: [230, 1290, 2480], df: 2, mismatch: false, warning: null });
    expect(r.srm?.p_value).toBeCloseTo(0.048493971415613131, 13);
    expect(r.srm?.explanation).toBe(
      'Were users split as the campaign says (control 5.0%, variant 1 31.7%, variant 2 63.3%)? Observed: control 5.8%, variant 1 32.3%, variant 2 62.0%. A chi-square test of the group sizes against those shares; a p-value below 0.001 happens by chance once in a thousand campaigns, so it almost always means users were lost or moved in one group, and then no uplift below can be trusted.',
    );
    // Without a goal there are no other readings.
    expect(r.variants).toEqual([null, null]);
    expect(r.correction.family).toBe(0);
  });

  it('without a holdout only the variants are tested; a variant past the document is left out of it', () => {
    const r = reportReadings(
      {
        control: { audience: 0, converted: 0 },
        variants: [
          { audience: 500, converted: 1 },
          { audience: 700, converted: 2 },
        ],
      },
      { holdout: 0, weights: [1] },
    );
    expect(r.srm).toBeNull(); // one group left: nothing to test
    expect(r.variants).toEqual([null, null]); // no control audience: nothing to compare
    const s = reportReadings(
      {
        control: { audience: 0, converted: 0 },
        variants: [
          { audience: 1100, converted: 0 },
          { audience: 8900, converted: 0 },
        ],
      },
      { holdout: 0, weights: [1, 9] },
    );
    expect(s.srm).toMatchObject({ groups: ['variant 1', 'variant 2'], chi_square: expect.closeTo(11.111111111111111, 12), mismatch: true });
  });

  describe('the SRM check over a document edited mid-run, from holdout 0.5 to 0.1', () => {
    const T1 = Date.UTC(2026, 2, 1);
    const T2 = Date.UTC(2026, 2, 8);
    const history = [
      { from: T1, holdout: 0.5, weights: [1] },
      { from: T2, holdout: 0.1, weights: [1] },
    ];
    // 1,000 users first assigned in each period: 500/500 under 0.5, then 100/900 under 0.1.
    const edited = (secondControl: number) =>
      reportReadings(
        {
          control: { audience: 500 + secondControl, converted: null, assigned: [500, secondControl] },
          variants: [{ audience: 500 + 1000 - secondControl, converted: null, assigned: [500, 1000 - secondControl] }],
        },
        { holdout: 0.1, weights: [1], history },
      ).srm;

    it('expects each period’s users in that period’s shares: no false alarm', () => {
      const r = edited(100);
      expect(r).toMatchObject({
        groups: ['control', 'variant 1'],
        observed: [600, 1400],
        expected: [600, 1400],
        chi_square: 0,
        p_value: 1,
        mismatch: false,
        expected_from: 'document history',
        periods: [
          { from: '2026-03-01T00:00:00.000Z', holdout: 0.5, weights: [1], users: 1000 },
          { from: '2026-03-08T00:00:00.000Z', holdout: 0.1, weights: [1], users: 1000 },
        ],
      });
      expect(r?.explanation).toContain('over the 2 periods between edits of the split');
      // The current document alone (0.1 for everyone) would call it broken: 600 control against 200 expected.
      const current = reportReadings(
        { control: { audience: 600, converted: null }, variants: [{ audience: 1400, converted: null }] },
        { holdout: 0.1, weights: [1] },
      ).srm;
      expect(current).toMatchObject({ expected: [200, 1800], mismatch: true, expected_from: 'current document', periods: null });
    });

    it('a genuinely broken split still flags: 200 control of the second 1,000 where 100 are expected', () => {
      // χ² = 100²/600 + 100²/1400 = 16.6667 + 7.1429 = 23.8095 on 1 df, p = 1.06355e-6.
      const r = edited(200);
      expect(r).toMatchObject({ observed: [700, 1300], expected: [600, 1400], df: 1, mismatch: true });
      expect(r?.chi_square).toBeCloseTo(23.80952380952381, 12);
      expect(r?.p_value).toBeCloseTo(1.0635492679527e-6, 15);
    });

    it('a variant added by an edit expects users only from then; a group no period had is left out', () => {
      const r = reportReadings(
        {
          control: { audience: 0, converted: null, assigned: [0, 0] },
          variants: [
            { audience: 1500, converted: null, assigned: [1000, 500] },
            { audience: 500, converted: null, assigned: [0, 500] },
          ],
        },
        {
          holdout: 0,
          weights: [1, 1],
          history: [
            { from: T1, holdout: 0, weights: [1] },
            { from: T2, holdout: 0, weights: [1, 1] },
          ],
        },
      ).srm;
      expect(r).toMatchObject({ groups: ['variant 1', 'variant 2'], observed: [1500, 500], expected: [1500, 500], mismatch: false });
    });
  });

  it('with the document’s min_effect: the users and days still needed at the pace so far', () => {
    // 5% control over 1,000 + 1,000 users, one point to find: R's power.prop.test(0.05, 0.06, power = 0.8)
    // gives 8157.73 per group, 16,316 in all (the formula at an even split is power.prop.test's).
    const groups = { control: { audience: 1000, converted: 50 }, variants: [{ audience: 1000, converted: 60 }] };
    const r = reportReadings(groups, { holdout: 0.5, weights: [1] }, undefined, 14, undefined, { minEffect: 0.01, days: 10 });
    expect(r.variants[0]?.power.remaining).toEqual({
      min_effect: 0.01,
      users_needed: 16316,
      users_assigned: 2000,
      users_remaining: 14316,
      users_per_day: 200,
      days_so_far: 10,
      days_remaining: 72,
      variance_factor: 1,
    });
    expect(2 * 8157.7314478496364).toBeCloseTo(usersNeeded({ control_rate: 0.05, effect: 0.01, holdout: 0.5, alpha: 0.05, power: 0.8 }), 4);
    expect(r.variants[0]?.power.explanation).toContain(
      "To find 1.00 points (the campaign's smallest uplift worth finding): 16316 users are needed, 14316 more than the 2000 assigned: about 72 more days at the 200 users a day so far, plus the goal window for the last to mature.",
    );
    // Reached: nothing remains. Without min_effect: no remaining.
    const big = reportReadings(groups, { holdout: 0.5, weights: [1] }, undefined, 14, undefined, { minEffect: 0.2, days: 10 });
    expect(big.variants[0]?.power.remaining).toMatchObject({ users_remaining: 0, days_remaining: 0 });
    expect(reportReadings(groups, { holdout: 0.5, weights: [1] }).variants[0]?.power.remaining).toBeNull();
    // CUPED's measured reduction counts: fewer users needed.
    const pre = { sx: 100, sxx: 300, sxy: 40 };
    const withCuped = reportReadings(
      { control: { ...groups.control, pre }, variants: [{ ...groups.variants[0]!, pre: { sx: 100, sxx: 300, sxy: 45 } }] },
      { holdout: 0.5, weights: [1] },
      undefined,
      14,
      undefined,
      { minEffect: 0.01, days: 10 },
    ).variants[0]?.power.remaining;
    expect(withCuped?.variance_factor).toBeLessThan(1);
    expect(withCuped?.users_needed).toBeLessThan(16316);
  });

  it('zero conversions: the relative interval gets the 0.5 guard and says so', () => {
    const r = reportReadings({ control: { audience: 100, converted: 0 }, variants: [{ audience: 900, converted: 4 }] }, { holdout: 0.1, weights: [1] });
    const rel = r.variants[0]?.relative;
    expect(rel?.estimate).toBeNull();
    expect(rel?.zero_count_guard).toBe(true);
    expect(rel?.explanation).toContain('0.5 was added to every count');
    // Agresti–Caffo still gives an interval where Wald has none.
    expect(r.variants[0]?.fixed_horizon.ci).not.toBeNull();
  });
});

describe('an adaptive campaign’s readings (groups with epochs)', () => {
  const pre = { sx: 60, sxx: 90, sxy: 20 };
  const epoch = (g: { audience: number; converted: number }) => ({ matured: g.audience, converted: g.converted, pre });
  const plan = { holdout: 1 / 3, weights: [1, 1] };
  /** The same users with their one epoch given: every reading epoch-weighted. */
  const oneEpoch = reportReadings(
    { control: { ...control, pre, epochs: [epoch(control)] }, variants: [v1, v2].map((v) => ({ ...v, pre, epochs: [epoch(v)] })) },
    plan,
    undefined,
    14,
    undefined,
    { minEffect: 0.02, days: 4 },
  );
  const pooled = reportReadings({ control: { ...control, pre }, variants: [v1, v2].map((v) => ({ ...v, pre })) }, plan, undefined, 14, undefined, {
    minEffect: 0.02,
    days: 4,
  });

  it('with one epoch are the pooled readings, each explained as epoch-weighted', () => {
    expect(oneEpoch.correction).toEqual(pooled.correction);
    for (const i of [0, 1]) {
      const [e, p] = [oneEpoch.variants[i], pooled.variants[i]];
      expect(e?.fixed_horizon).toEqual({ ...p?.fixed_horizon, explanation: expect.stringContaining('Epoch-weighted: this campaign moves its weights') });
      expect(e?.sequential).toEqual({ ...p?.sequential, explanation: expect.stringContaining('Epoch-weighted') });
      expect(e?.bayes).toEqual({ ...p?.bayes, explanation: expect.stringContaining('Epoch-weighted') });
      expect(e?.power).toEqual({ ...p?.power, explanation: expect.stringContaining('1.00 times as variable') });
      expect(e?.relative.ci[0]).toBeCloseTo(p?.relative.ci[0] as number, 12);
      expect(e?.cuped?.estimate).toBe(p?.cuped?.estimate);
      expect(e?.cuped?.ci).toEqual(p?.cuped?.ci);
    }
  });

  it('an epoch without users in both groups is left out, and no common epoch means no readings', () => {
    const none = { matured: 0, converted: 0 };
    const r = reportReadings(
      {
        control: { audience: 300, converted: 30, epochs: [{ matured: 100, converted: 10 }, { matured: 200, converted: 20 }, none] },
        variants: [
          // Variant 1 only in epoch 1 (and in epoch 2, where control has nobody): compared in epoch 1 alone.
          { audience: 150, converted: 30, epochs: [none, { matured: 100, converted: 20 }, { matured: 50, converted: 10 }] },
          // Variant 2 only in epoch 2: nothing to compare with.
          { audience: 40, converted: 4, epochs: [none, none, { matured: 40, converted: 4 }] },
        ],
      },
      { holdout: 0.5, weights: [1, 1] },
    );
    expect(r.correction.family).toBe(1);
    expect(r.variants[1]).toBeNull();
    expect(r.variants[0]?.fixed_horizon.estimate).toBeCloseTo(0.2 - 0.1, 12);
    expect(r.variants[0]?.fixed_horizon.ci).toEqual(agrestiCaffo({ converted: 20, audience: 200 }, { converted: 20, audience: 100 }).ci);
  });
});
