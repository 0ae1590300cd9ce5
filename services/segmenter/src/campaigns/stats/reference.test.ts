import {
  agrestiCaffo,
  bayes,
  compareValues,
  benjaminiHochberg,
  cuped,
  cupedMeans,
  cupedTheta,
  detectableEffect,
  expectedByPeriod,
  expectedShares,
  harm,
  holm,
  newcombe,
  normalCdf,
  normalQuantile,
  sequential,
  agrestiCaffoMoments,
  srm,
  srmAgainst,
  sumsOf,
  usersNeeded,
  wald,
  wilson,
} from '.';
import { chiSquareUpper } from './chisq';
import { studentCdf, studentQuantile } from './student';

// Every literal below is a line of reference-values.out, printed by reference-values.R (R 4.x's qnorm,
// pchisq, chisq.test, prop.test, p.adjust, integrate, power.prop.test and var), run once by hand;
// the label before each number names the line. CI does not run R. power.prop.test solves for n with
// uniroot, so its n is good to about 1e-8 only.

const close = (actual: number, expected: number, digits = 13) => expect(actual).toBeCloseTo(expected, digits);
const closeAll = (actual: readonly number[], expected: readonly number[], digits = 13) => {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((a, i) => close(a, expected[i] as number, digits));
};
const ctl = { converted: 50, audience: 1000 };
const v80 = { converted: 80, audience: 1000 };

describe('normal', () => {
  it('quantiles and tails match R', () => {
    close(normalQuantile(0.975), 1.9599639845400536);
    close(normalQuantile(0.9875), 2.2414027276049464);
    close(normalQuantile(0.995), 2.5758293035488999);
    close(normalQuantile(0.8), 0.84162123357291441);
    close(normalQuantile(1e-10), -6.3613409024040557, 12);
    close(normalQuantile(0.3), -0.52440051270804067);
    close(normalCdf(-1.5), 0.066807201268858071, 15);
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
  });
});

describe('chi-square and the sample-ratio test', () => {
  it('upper tails match pchisq', () => {
    close(chiSquareUpper(3.841458820694124, 1), 0.049999999999999975, 14);
    close(chiSquareUpper(7.5, 3), 0.057558451972636406, 14);
    expect(chiSquareUpper(40, 10) / 1.6944743930067385e-5).toBeCloseTo(1, 12);
    close(chiSquareUpper(0.5, 4), 0.97350097883925613, 14);
    expect(chiSquareUpper(3600, 1)).toBe(0);
  });

  it('1,100 / 8,900 under a 0.1 holdout: χ² 11.11, p 0.000858, a mismatch', () => {
    const r = srm([1100, 8900], expectedShares(0.1, [1]))!;
    expect(r.expected).toEqual([1000, 9000]);
    close(r.chi_square, 11.111111111111111, 12);
    expect(r.df).toBe(1);
    expect(r.p_value / 0.00085812066639367449).toBeCloseTo(1, 10);
    expect(r.mismatch).toBe(true);
  });

  it('the docs’ 1,000 / 1,000 under a 0.1 holdout: χ² 3,555.6', () => {
    const r = srm([1000, 1000], expectedShares(0.1, [1]))!;
    close(r.chi_square, 3555.5555555555557, 9);
    expect(r.p_value).toBe(0);
    expect(r.mismatch).toBe(true);
  });

  it('three groups, holdout 0.05 and weights 1:2: χ² 6.05 on 2 df, p 0.0485, no mismatch', () => {
    const shares = expectedShares(0.05, [1, 2]);
    closeAll(shares, [0.05, 0.95 / 3, (0.95 * 2) / 3], 15);
    const r = srm([230, 1290, 2480], shares)!;
    close(r.chi_square, 6.052631578947361, 12);
    expect(r.df).toBe(2);
    close(r.p_value, 0.048493971415613131, 13);
    expect(r.mismatch).toBe(false);
  });

  it('without a holdout the variants alone are tested; one group or no users is no test', () => {
    expect(expectedShares(0, [1, 3])).toEqual([0.25, 0.75]);
    expect(srm([10], [1])).toBeNull();
    expect(srm([0, 0], [0.5, 0.5])).toBeNull();
  });
});

describe('intervals for the difference', () => {
  it('80/1,000 against 50/1,000: Wald, Agresti–Caffo, Newcombe', () => {
    closeAll(wald(ctl, v80).ci!, [0.0084314890827841722, 0.051568510917215829], 15);
    closeAll(agrestiCaffo(ctl, v80).ci!, [0.0082591320561602351, 0.0516211074647978524], 15);
    closeAll(agrestiCaffo(ctl, v80, 1 - 0.05 / 4).ci!, [0.0023106724303779691, 0.0575695670905801149], 14);
    closeAll(newcombe(ctl, v80), [0.0083866839119448033, 0.0519522217849429369], 14);
    expect(agrestiCaffo(ctl, v80).estimate).toBeCloseTo(0.03, 15);
  });

  it('small groups: 20/900 against 1/100, and nobody converted in either', () => {
    closeAll(agrestiCaffo({ converted: 1, audience: 100 }, { converted: 20, audience: 900 }).ci!, [-0.024976242806042496, 0.032323749436189014], 14);
    closeAll(newcombe({ converted: 1, audience: 100 }, { converted: 20, audience: 900 }), [-0.032941121978413979, 0.026653461344637457], 14);
    const none = agrestiCaffo({ converted: 0, audience: 100 }, { converted: 0, audience: 900 });
    closeAll(none.ci!, [-0.027939115631288383, 0.010548567394255212], 14);
    expect(none.estimate).toBe(0);
    // Wald has no interval there at all.
    expect(wald({ converted: 0, audience: 100 }, { converted: 0, audience: 900 }).ci).toBeNull();
  });

  it('Agresti–Caffo’s p-value is below 0.05 exactly when its interval excludes 0', () => {
    const d = agrestiCaffo(ctl, v80);
    expect(d.p_value!).toBeLessThan(0.05);
    const e = agrestiCaffo({ converted: 1, audience: 100 }, { converted: 20, audience: 900 });
    expect(e.p_value!).toBeGreaterThan(0.05);
    expect(e.ci![0]).toBeLessThan(0);
  });

  it('Wilson for one proportion (prop.test without correction)', () => {
    closeAll(wilson({ converted: 2, audience: 100 }), [0.0055019675501623566, 0.0700117907285438684], 15);
    closeAll(wilson({ converted: 0, audience: 50 }), [0, 0.071347599133358683], 15);
  });
});

describe('multiplicity', () => {
  it('Holm and BH match p.adjust, in the input’s order', () => {
    closeAll(holm([0.01, 0.04, 0.03, 0.2]), [0.04, 0.09, 0.09, 0.2], 15);
    closeAll(benjaminiHochberg([0.01, 0.04, 0.03, 0.2]), [0.04, 0.05333333333333333, 0.05333333333333333, 0.2], 15);
    closeAll(holm([0.5, 0.001, 0.02, 0.02, 0.9]), [1, 0.005, 0.08, 0.08, 1], 15);
    closeAll(benjaminiHochberg([0.5, 0.001, 0.02, 0.02, 0.9]), [0.625, 0.005, 0.03333333333333333, 0.03333333333333333, 0.9], 15);
    expect(holm([])).toEqual([]);
  });
});

describe('sequential (normal-mixture confidence sequence)', () => {
  it('80/1,000 against 50/1,000 with n* = 5,000 and 2,000 (GrowthBook’s halfwidth formula in R)', () => {
    const m = agrestiCaffoMoments(ctl, v80);
    close(m.centre, 0.029940119760479042, 15);
    const s = sequential({ ...m, users: 2000, tuning: 5000, alpha: 0.05 });
    closeAll(s.ci, [0.029940119760479042 - 0.034555030914765215, 0.029940119760479042 + 0.034555030914765215], 14);
    close(s.p_value, 0.12607363613613334, 13);
    const t = sequential({ ...m, users: 2000, tuning: 2000, alpha: 0.05 });
    close(t.ci[1] - m.centre, 0.033575274504765079, 14);
    // Wider than the fixed-horizon interval of the same counts: the price of peeking safely.
    const fixed = agrestiCaffo(ctl, v80).ci!;
    expect(s.ci[1] - s.ci[0]).toBeGreaterThan(fixed[1] - fixed[0]);
  });
});

describe('bayes (Beta(1,1), seeded Monte Carlo)', () => {
  // R integrates exactly; the draws agree within 3 Monte Carlo standard errors: √(p(1 − p)/draws) for
  // the probability, and for the loss L ≤ L_max, √(L_max·E[L]/draws) bounds the SE.
  const cases = [
    { c: ctl, v: v80, beat: 0.99674642654762347, loss: 1.1007013953736187e-5, lmax: 0.05 },
    { c: { converted: 2, audience: 45 }, v: { converted: 3, audience: 40 }, beat: 0.71527040009924814, loss: 0.0097733669344998546, lmax: 0.2 },
  ];
  it.each(cases)('P(beats control) and expected loss agree with numerical integration (%#)', ({ c, v, beat, loss, lmax }) => {
    const r = bayes(c, v);
    expect(Math.abs(r.p_beats_control - beat)).toBeLessThan(3 * Math.sqrt((beat * (1 - beat)) / r.draws));
    expect(Math.abs(r.expected_loss - loss)).toBeLessThan(3 * Math.sqrt((lmax * loss) / r.draws));
  });

  it('the same counts give the same numbers (the seed is fixed)', () => {
    expect(bayes(ctl, v80)).toEqual(bayes(ctl, v80));
    expect(bayes(ctl, v80)).toEqual({
      p_beats_control: 0.9962,
      expected_loss: 0.000015397534371402022,
      expected_loss_control: 0.029887189556873545,
      draws: 10000,
      seed: 42,
    });
  });
});

describe('power', () => {
  it('equal groups: half of usersNeeded is power.prop.test’s n per group', () => {
    close(usersNeeded({ control_rate: 0.05, effect: 0.01, holdout: 0.5, alpha: 0.05, power: 0.8 }) / 2, 8157.7314478496364, 6);
    close(usersNeeded({ control_rate: 0.02, effect: 0.01, holdout: 0.5, alpha: 0.05, power: 0.8 }) / 2, 3825.149722087408, 6);
  });

  it('detectableEffect inverts it: 2 × 8,157.73 users at 5% find a 1-point uplift; too few users find nothing', () => {
    close(detectableEffect(2 * 8157.7314478496364, { control_rate: 0.05, holdout: 0.5, alpha: 0.05, power: 0.8 })!, 0.01, 9);
    close(detectableEffect(2 * 3825.149722087408, { control_rate: 0.02, holdout: 0.5, alpha: 0.05, power: 0.8 })!, 0.01, 9);
    expect(detectableEffect(2, { control_rate: 0.05, holdout: 0.5, alpha: 0.05, power: 0.8 })).toBeNull();
  });

  it('a 0.1 holdout needs more users than an even split; CUPED’s variance factor scales them down', () => {
    const even = usersNeeded({ control_rate: 0.05, effect: 0.01, holdout: 0.5, alpha: 0.05, power: 0.8 });
    const small = usersNeeded({ control_rate: 0.05, effect: 0.01, holdout: 0.1, alpha: 0.05, power: 0.8 });
    expect(small).toBeGreaterThan(2.5 * even);
    close(usersNeeded({ control_rate: 0.05, effect: 0.01, holdout: 0.5, alpha: 0.05, power: 0.8, variance_factor: 0.64 }), 0.64 * even, 6);
  });
});

describe('CUPED from sums', () => {
  const xc = [0, 1, 2, 0, 3, 1, 0, 0, 2, 1];
  const yc = [0, 1, 1, 0, 1, 1, 0, 0, 1, 0];
  const xv = [1, 0, 2, 0, 0, 4, 1, 0, 1, 2, 0, 3];
  const yv = [1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1];
  const C = sumsOf(xc.map((x, i) => [x, yc[i] as number] as const));
  const V = sumsOf(xv.map((x, i) => [x, yv[i] as number] as const));

  it('θ, the adjusted means and variances match R on the raw rows', () => {
    close(cupedTheta([C, V]), 0.2921348314606742, 15);
    closeAll(cupedMeans([C, V]), [0.52655771195097034, 0.64453524004085794], 14);
    const r = cuped(C, V, 1.959963984540054);
    close(r.estimate, 0.64453524004085794 - 0.52655771195097034, 14);
    close(r.se, Math.sqrt(0.11292766064890795 / 10 + 0.14713477407581688 / 12), 14);
    close(r.raw.se, Math.sqrt(0.27777777777777779 / 10 + 0.24242424242424243 / 12), 14);
    close(r.variance_reduction, 1 - (0.11292766064890795 / 10 + 0.14713477407581688 / 12) / (0.27777777777777779 / 10 + 0.24242424242424243 / 12), 13);
  });

  it('no history at all (X ≡ 0): θ = 0 and the raw reading', () => {
    const r = cuped(
      sumsOf([
        [0, 1],
        [0, 0],
        [0, 0],
      ]),
      sumsOf([
        [0, 1],
        [0, 1],
        [0, 0],
      ]),
      1.96,
    );
    expect(r.theta).toBe(0);
    expect(r.estimate).toBeCloseTo(1 / 3, 15);
    expect(r.variance_reduction).toBe(0);
  });
});

describe('the sample-ratio test per edit period', () => {
  it('1,000 users under holdout 0.5, then 1,000 under 0.1, 200 control of the second: 700 / 1,300 against 600 / 1,400', () => {
    const periods = [
      { holdout: 0.5, weights: [1] },
      { holdout: 0.1, weights: [1] },
    ];
    const expected = expectedByPeriod(periods, [
      [500, 200],
      [500, 800],
    ]);
    closeAll(expected, [600, 1400], 12);
    const r = srmAgainst([700, 1300], expected);
    close(r!.chi_square, 23.80952380952381, 12);
    close(r!.p_value, 1.0635492679527352e-6, 18);
    expect(r!.mismatch).toBe(true);
  });
});

describe('the guardrails’ one-sided harm test', () => {
  it('matches R on the Agresti–Caffo moments', () => {
    const a = harm({ converted: 30, audience: 1000 }, { converted: 15, audience: 1000 });
    close(a.p_value, 0.013318188535973838, 14);
    expect(a).toMatchObject({ difference: expect.closeTo(0.015, 15), breach: true });
    // Fewer blocks than the reference is no harm, however many fewer.
    const b = harm({ converted: 2, audience: 500 }, { converted: 9, audience: 1000 });
    close(b.p_value, 0.80500630580374988, 14);
    expect(b.breach).toBe(false);
    // Nobody blocked in either: defined, and no breach.
    close(harm({ converted: 0, audience: 100 }, { converted: 0, audience: 200 }).p_value, 0.32856881890609657, 14);
  });
});

describe('value goals: the t distribution, Welch and the delta method', () => {
  it('t tails and quantiles at fractional degrees of freedom match pt and qt', () => {
    close(studentCdf(-2.1, 7.3), 0.036123356712426676, 13);
    close(studentCdf(1.5, 30), 0.92796703543567693, 13);
    close(studentQuantile(0.975, 12.7), 2.1655677313687249, 12);
    close(studentQuantile(0.975, 1000), 1.9623390808264076, 12);
  });

  it('the difference of mean value per user (Welch’s t.test) and the relative uplift (delta method) from the sums', () => {
    // vc: 12 users, ΣY = 158.75, ΣY² = 11609.8125; vv: 14 users, ΣY = 232.5, ΣY² = 12945.25 (reference-values.R).
    const r = compareValues({ n: 12, sy: 158.75, syy: 11609.8125 }, { n: 14, sy: 232.5, syy: 12945.25 })!;
    close(r.difference.estimate, 3.3779761904761916, 12);
    closeAll(r.difference.ci!, [-19.499848248556017, 26.2558006295084], 10);
    close(r.difference.df, 22.417177309846466, 10);
    close(r.difference.p_value!, 0.7625161399781849, 12);
    close(r.relative!.estimate, 0.25534308211473578, 13);
    close(r.relative!.se, 0.96638972743870255, 12);
    closeAll(r.relative!.ci, [-1.6387459786946001, 2.1494321429240717], 12);
  });

  it('no spread or no control value: no interval, no relative uplift', () => {
    const flat = compareValues({ n: 3, sy: 0, syy: 0 }, { n: 3, sy: 0, syy: 0 })!;
    expect([flat.difference.ci, flat.difference.p_value, flat.relative]).toEqual([null, null, null]);
    expect(compareValues({ n: 1, sy: 5, syy: 25 }, { n: 4, sy: 1, syy: 1 })).toBeNull();
  });
});
