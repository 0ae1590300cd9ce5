import {
  agrestiCaffo,
  agrestiCaffoMoments,
  compareValues,
  cuped,
  expectedByPeriod,
  expectedShares,
  harm,
  normalCdf,
  holm,
  sequential,
  srm,
  srmAgainst,
  sumsOf,
  wald,
  type ArmSums,
  type Difference,
  type Proportion,
} from '.';
import { binomial, normal, seeded, type Random } from './random';

// The seeded simulation harness of issue 42: each statistic run many times on data with a known
// truth, and each bound checked within 3 Monte Carlo standard errors, √(q(1 − q)/runs) at the bound q.
// Seeds are fixed: the same numbers on every run, so a failure is a change of the code, not of luck.

const mcBound = (q: number, runs: number) => 3 * Math.sqrt((q * (1 - q)) / runs);
const share = (runs: number, hit: () => boolean) => {
  let k = 0;
  for (let i = 0; i < runs; i++) if (hit()) k++;
  return k / runs;
};
const draw = (random: Random, n: number, p: number): Proportion => ({ converted: binomial(random, n, p), audience: n });
const covers = (d: Difference, truth: number) => d.ci !== null && d.ci[0] <= truth && truth <= d.ci[1];

describe('coverage of the 95% interval for the difference', () => {
  const RUNS = 2000;
  // Control of 100 or 1,000 users; the variant has (1 − holdout)/holdout times as many; the variant's
  // true rate is 1.2 times control's.
  const scenarios = [0.005, 0.02, 0.05].flatMap((base) => [100, 1000].flatMap((control) => [0.1, 0.5].map((holdout) => ({ base, control, holdout }))));

  const coverage = (interval: typeof wald, { base, control, holdout }: (typeof scenarios)[number], seed: number) => {
    const random = seeded(seed);
    const treated = Math.round((control * (1 - holdout)) / holdout);
    const pv = base * 1.2;
    return share(RUNS, () => covers(interval(draw(random, control, base), draw(random, treated, pv)), pv - base));
  };

  // The always-valid interval at one look, as the report computes it (tuned for 5,000 users).
  const alwaysValid = (c: Proportion, v: Proportion): Difference => {
    const m = agrestiCaffoMoments(c, v);
    return { estimate: m.centre, ci: sequential({ ...m, users: c.audience + v.audience, tuning: 5000, alpha: 0.05 }).ci, z: null, p_value: null };
  };

  it.each(scenarios)('Agresti–Caffo and the always-valid interval cover ≥ 95% at base rate $base, control $control, holdout $holdout', (s) => {
    expect(coverage(agrestiCaffo, s, 1)).toBeGreaterThanOrEqual(0.95 - mcBound(0.95, RUNS));
    expect(coverage(alwaysValid, s, 2)).toBeGreaterThanOrEqual(0.95 - mcBound(0.95, RUNS));
  });

  it('negative control: Wald fails at base rate 2%, 100 control against 900 treated', () => {
    // Issue 42 measured 86%; Agresti–Caffo holds on the same draws (same seed).
    const s = { base: 0.02, control: 100, holdout: 0.1 };
    expect(coverage(wald, s, 1)).toBeLessThan(0.95 - mcBound(0.95, RUNS));
    expect(coverage(agrestiCaffo, s, 1)).toBeGreaterThanOrEqual(0.95 - mcBound(0.95, RUNS));
  });
});

describe('peeking: no true effect, 30 daily looks at 1,000 users per group per day, rate 5%', () => {
  const RUNS = 1000;
  const DAYS = 30;
  const ever = (significant: (c: Proportion, v: Proportion) => boolean, seed: number) => {
    const random = seeded(seed);
    return share(RUNS, () => {
      const c = { converted: 0, audience: 0 };
      const v = { converted: 0, audience: 0 };
      let hit = false;
      for (let day = 0; day < DAYS; day++) {
        c.converted += binomial(random, 1000, 0.05);
        c.audience += 1000;
        v.converted += binomial(random, 1000, 0.05);
        v.audience += 1000;
        if (significant(c, v)) hit = true;
      }
      return hit;
    });
  };

  it('the sequential view says "significant" on some look in ≤ 5% of campaigns; the fixed view in > 15%', () => {
    const seq = ever((c, v) => {
      const m = agrestiCaffoMoments(c, v);
      return sequential({ ...m, users: c.audience + v.audience, tuning: 5000, alpha: 0.05 }).p_value < 0.05;
    }, 7);
    const fixed = ever((c, v) => agrestiCaffo(c, v).p_value! < 0.05, 7);
    expect(seq).toBeLessThanOrEqual(0.05 + mcBound(0.05, RUNS));
    expect(fixed).toBeGreaterThan(0.15 + mcBound(0.15, RUNS));
  });
});

describe('the sample-ratio test at N = 10,000 under a 10/90 split', () => {
  const N = 10_000;
  const shares = expectedShares(0.1, [1]);
  const alarm = (controlShare: number, runs: number, seed: number) => {
    const random = seeded(seed);
    return share(runs, () => {
      const control = binomial(random, N, controlShare);
      return srm([control, N - control], shares)!.mismatch;
    });
  };

  it('false alarms ≈ 0.1% when the split is right', () => {
    const runs = 20_000;
    const rate = alarm(0.1, runs, 3);
    expect(rate).toBeLessThanOrEqual(0.001 + mcBound(0.001, runs));
    expect(rate).toBeGreaterThanOrEqual(0.001 - mcBound(0.001, runs));
  });

  it('an 11% leak into control is flagged more than half the time', () => {
    const runs = 2000;
    expect(alarm(0.11, runs, 4)).toBeGreaterThan(0.5 - mcBound(0.5, runs));
  });
});

describe('ten null variants against one control (1,000 users each, rate 5%)', () => {
  const RUNS = 2000;
  const anySignificant = (adjust: (ps: number[]) => number[], seed: number) => {
    const random = seeded(seed);
    return share(RUNS, () => {
      const c = draw(random, 1000, 0.05);
      const ps = Array.from({ length: 10 }, () => agrestiCaffo(c, draw(random, 1000, 0.05)).p_value!);
      return adjust(ps).some((p) => p < 0.05);
    });
  };

  it('Holm: P(any variant "significant") ≤ 5%; uncorrected it is far above', () => {
    expect(anySignificant(holm, 5)).toBeLessThanOrEqual(0.05 + mcBound(0.05, RUNS));
    expect(anySignificant((ps) => ps, 5)).toBeGreaterThan(0.15 + mcBound(0.15, RUNS));
  });
});

describe('CUPED at ρ = 0.6 (Gaussian outcome and covariate, true uplift 0.1, 500 users per group)', () => {
  const RUNS = 500;
  const N = 500;
  const RHO = 0.6;
  const EFFECT = 0.1;
  const arm = (random: Random, shift: number) => {
    const pairs: Array<readonly [number, number]> = [];
    for (let i = 0; i < N; i++) {
      const x = normal(random);
      pairs.push([x, shift + RHO * x + Math.sqrt(1 - RHO * RHO) * normal(random)] as const);
    }
    return sumsOf(pairs);
  };

  it('removes 1 − ρ̂² of the variance (±0.02), is unbiased, and its interval covers ≥ 95%', () => {
    const random = seeded(11);
    let ratio = 0;
    let bias = 0;
    let biasSq = 0;
    let covered = 0;
    let rho2 = 0;
    for (let run = 0; run < RUNS; run++) {
      const c = arm(random, 0);
      const v = arm(random, EFFECT);
      const r = cuped(c, v, 1.959963984540054);
      ratio += 1 - r.variance_reduction;
      rho2 += sampleRho2(c) / 2 + sampleRho2(v) / 2;
      bias += r.estimate - EFFECT;
      biasSq += (r.estimate - EFFECT) ** 2;
      if (r.ci[0] <= EFFECT && EFFECT <= r.ci[1]) covered++;
    }
    expect(Math.abs(ratio / RUNS - (1 - rho2 / RUNS))).toBeLessThan(0.02);
    const meanBias = bias / RUNS;
    const sdBias = Math.sqrt((biasSq / RUNS - meanBias ** 2) / RUNS);
    expect(Math.abs(meanBias)).toBeLessThan(3 * sdBias);
    expect(covered / RUNS).toBeGreaterThanOrEqual(0.95 - mcBound(0.95, RUNS));
  });
});

/** ρ̂² of one arm's (x, y) from its sums. */
function sampleRho2(a: ArmSums): number {
  const sxy = a.sxy - (a.sx * a.sy) / a.n;
  return (sxy * sxy) / ((a.sxx - (a.sx * a.sx) / a.n) * (a.syy - (a.sy * a.sy) / a.n));
}

describe('the sample-ratio test over a split edited mid-run (holdout 0.5, then 0.1)', () => {
  // 5,000 users per period; each user's group drawn with the shares of the period they came in.
  const N = 5000;
  const periods = [
    { holdout: 0.5, weights: [1] },
    { holdout: 0.1, weights: [1] },
  ];
  const alarm = (secondShare: number, runs: number, seed: number) => {
    const random = seeded(seed);
    return share(runs, () => {
      const first = binomial(random, N, 0.5);
      const second = binomial(random, N, secondShare);
      const assigned = [
        [first, second],
        [N - first, N - second],
      ];
      return srmAgainst([first + second, 2 * N - first - second], expectedByPeriod(periods, assigned))!.mismatch;
    });
  };

  it('false alarms ≈ 0.1% when each period was split as it said', () => {
    const runs = 20_000;
    const rate = alarm(0.1, runs, 5);
    expect(rate).toBeLessThanOrEqual(0.001 + mcBound(0.001, runs));
  });

  it('a second period leaking 4 points into control (14% instead of 10%) is flagged more than half the time', () => {
    const runs = 2000;
    expect(alarm(0.14, runs, 6)).toBeGreaterThan(0.5 - mcBound(0.5, runs));
  });
});

describe('value goals: coverage of Welch’s interval and the delta method’s, capped revenue per user', () => {
  // Y = converted · min(L, cap), L log-normal (μ = 3, σ = 1: mean 33, a long right tail), converted
  // with probability p; cap 150 (about the 93rd percentile of L). The truth is exact:
  // E[min(L, c)] = e^(μ + σ²/2)·Φ((ln c − μ − σ²)/σ) + c·(1 − Φ((ln c − μ)/σ)).
  const MU = 3;
  const SIGMA = 1;
  const CAP = 150;
  const cappedMean = Math.exp(MU + SIGMA ** 2 / 2) * normalCdf((Math.log(CAP) - MU - SIGMA ** 2) / SIGMA) + CAP * (1 - normalCdf((Math.log(CAP) - MU) / SIGMA));
  const RUNS = 1000;
  const sums = (random: Random, n: number, p: number) => {
    let sy = 0;
    let syy = 0;
    // Only the converted users have a value: draw how many, then their values.
    const converted = binomial(random, n, p);
    for (let i = 0; i < converted; i++) {
      const y = Math.min(Math.exp(MU + SIGMA * normal(random)), CAP);
      sy += y;
      syy += y * y;
    }
    return { n, sy, syy };
  };

  it.each([
    { control: 1000, treated: 1000, base: 0.05 },
    { control: 200, treated: 1800, base: 0.2 },
  ])('cover ≥ 95% with control $control, treated $treated, conversion $base against 1.2 times it', ({ control, treated, base }) => {
    const random = seeded(11);
    const truth = { difference: (1.2 * base - base) * cappedMean, relative: 0.2 };
    let diff = 0;
    let rel = 0;
    for (let i = 0; i < RUNS; i++) {
      const r = compareValues(sums(random, control, base), sums(random, treated, 1.2 * base))!;
      const d = r.difference.ci;
      if (d && d[0] <= truth.difference && truth.difference <= d[1]) diff++;
      if (r.relative && r.relative.ci[0] <= truth.relative && truth.relative <= r.relative.ci[1]) rel++;
    }
    expect(diff / RUNS).toBeGreaterThanOrEqual(0.95 - mcBound(0.95, RUNS));
    expect(rel / RUNS).toBeGreaterThanOrEqual(0.95 - mcBound(0.95, RUNS));
  });
});

describe('the guardrails’ one-sided harm test', () => {
  // A variant of 1,000 users against two others pooled (2,000), all blocking at the same rate.
  const breaches = (rate: number, armRate: number, runs: number, seed: number) => {
    const random = seeded(seed);
    return share(runs, () => harm(draw(random, 1000, armRate), draw(random, 2000, rate)).breach);
  };

  it.each([0.005, 0.02])('flags a variant no worse than the others at most 5%% of the time (block rate %p)', (rate) => {
    const runs = 4000;
    expect(breaches(rate, rate, runs, 21)).toBeLessThanOrEqual(0.05 + mcBound(0.05, runs));
  });

  it('flags a variant blocking at twice the others’ 1% more than half the time', () => {
    const runs = 2000;
    expect(breaches(0.01, 0.02, runs, 22)).toBeGreaterThan(0.5 - mcBound(0.5, runs));
  });
});
