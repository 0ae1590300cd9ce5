import { useMigratedChdb } from '@evp/testkit';
import { checkout, insertEvents } from '../testing';
import { writeOutcomes, type OutcomeRow } from './outcomes';
import { campaignReport } from './report';
import { bayes, sequential, SEQUENTIAL_TUNING, stratifiedBayes, stratifiedCuped, stratifiedValues, sumsOf, zFor, type Proportion } from './stats';

// The report of an adaptive campaign on chdb: the sample-ratio check per epoch with that epoch's
// shares, and each variant's uplift and every reading against control epoch-weighted, from the one
// query's per-epoch per-arm sums. The base rate drifts from 10% to 30% between the epochs while the
// weights move toward variant 2, so pooling over-weights variant 2's late (high-base) users; each
// epoch's own difference does not.
const chdb = useMigratedChdb('campaign_report_epochs');
const APP = 'app_epochs';
const T0 = Date.UTC(2026, 2, 1);
const EPOCH = 12 * 3_600_000;
const GOAL = { event: 'checkout', within: 'P1D' };
const HISTORY = [
  { from: T0, holdout: 0.5, weights: [1, 1] },
  { from: T0 + EPOCH, holdout: 0.5, weights: [0.2, 0.8], adaptive: true as const },
];

/**
 * Per epoch, per group (control, variant 1, variant 2): users first assigned in it, converted (the
 * first ones, a checkout a minute after their run), and those with a checkout two days before their
 * run (the first ones too: CUPED's covariate x = 1, correlated with converting).
 */
const SEED = [
  [
    [100, 10, 8],
    [50, 5, 4],
    [50, 10, 6],
  ],
  [
    [100, 30, 20],
    [20, 6, 5],
    [80, 32, 25],
  ],
];
const DAY = 24 * 3_600_000;
const NOW = new Date(T0 + 5 * DAY);
const adaptive = (goal = GOAL) =>
  campaignReport(chdb.analytics, {
    appId: APP,
    campaignId: 'c-ad',
    goal,
    now: NOW,
    split: { holdout: 0.5, weights: [1, 1], history: HISTORY },
    adaptive: true,
  });

/** The test's own epoch-weighted numbers of variant `v` against control: both epochs have 200 users, so each weighs ½. */
const cell = (e: number, g: number) => ({ n: SEED[e]?.[g]?.[0] as number, k: SEED[e]?.[g]?.[1] as number, m: SEED[e]?.[g]?.[2] as number });
const byHand = (v: number) => {
  const w = 0.5;
  const rate = (e: number, g: number) => cell(e, g).k / cell(e, g).n;
  const tilde = (e: number, g: number) => (cell(e, g).k + 1) / (cell(e, g).n + 2);
  const each = (f: (e: number) => number) => w * f(0) + w * f(1);
  const estimate = each((e) => rate(e, v) - rate(e, 0));
  const wald = each((e) => w * ((rate(e, v) * (1 - rate(e, v))) / cell(e, v).n + (rate(e, 0) * (1 - rate(e, 0))) / cell(e, 0).n));
  const centre = each((e) => tilde(e, v) - tilde(e, 0));
  const ac = each((e) => w * ((tilde(e, v) * (1 - tilde(e, v))) / (cell(e, v).n + 2) + (tilde(e, 0) * (1 - tilde(e, 0))) / (cell(e, 0).n + 2)));
  const rc = each((e) => rate(e, 0));
  const rv = each((e) => rate(e, v));
  const varRate = (g: number) => each((e) => (w * rate(e, g) * (1 - rate(e, g))) / cell(e, g).n);
  const strata = <T>(f: (e: number, g: number) => T) => [0, 1].map((e) => ({ weight: w, control: f(e, 0), variant: f(e, v) }));
  const counts = strata((e, g): Proportion => ({ converted: cell(e, g).k, audience: cell(e, g).n }));
  // x = 1 for the first m users, y = 1 for the first k: Σx = Σx² = m, Σxy = min(k, m).
  const pre = strata((e, g) => {
    const { n, k, m } = cell(e, g);
    return sumsOf(Array.from({ length: n }, (_, i) => [i < m ? 1 : 0, i < k ? 1 : 0] as const));
  });
  const values = strata((e, g) => ({ n: cell(e, g).n, sy: 10 * cell(e, g).k, syy: 100 * cell(e, g).k }));
  return { estimate, wald, centre, ac, rc, rv, varRate, counts, pre, values };
};

beforeAll(async () => {
  const events = [];
  for (const [e, groups] of SEED.entries()) {
    const at = T0 + e * EPOCH + 3_600_000;
    for (const [variant, [n, converted, pre]] of groups.entries()) {
      const rows: OutcomeRow[] = Array.from({ length: n as number }, (_, i) => ({
        campaign_id: 'c-ad',
        inv_id: e + 1,
        user_id: `e${e}-g${variant}-${i}`,
        variant,
        action_id: variant,
        outcome: variant === 0 ? 'control' : 'requested',
        reason: '',
        trigger: 'api',
        at,
      }));
      await writeOutcomes(chdb.analytics, APP, rows, 0, at);
      for (const r of rows.slice(0, converted)) events.push(checkout(APP, r.user_id, at + 60_000));
      for (const r of rows.slice(0, pre)) events.push(checkout(APP, r.user_id, at - 2 * DAY));
    }
  }
  await insertEvents(chdb.analytics, events);
});

it('checks the split per epoch and reads each variant’s uplift epoch-weighted', async () => {
  const r = await adaptive();
  expect(r.allocation).toEqual({
    estimate: 'epoch_weighted',
    epochs: [
      { from: '2026-03-01T00:00:00.000Z', holdout: 0.5, weights: [1, 1], adaptive: false },
      { from: '2026-03-01T12:00:00.000Z', holdout: 0.5, weights: [0.2, 0.8], adaptive: true },
    ],
  });
  // Each epoch's users are exactly in that epoch's shares (100/50/50, then 100/20/80): no mismatch.
  expect([r.srm?.expected_from, r.srm?.periods?.length, r.srm?.mismatch, r.srm?.p_value]).toEqual(['document history', 2, false, 1]);
  // Variant 2: Δ = 0.1 in both epochs, N₀ = N₁ = 200: 0.1, variance ¼(0.1·0.9/100 + 0.2·0.8/50) + ¼(0.3·0.7/100 + 0.4·0.6/80) = 0.0023.
  const v2 = r.variants[1]?.epoch_weighted;
  const half = 1.959963984540054 * Math.sqrt(0.0023);
  expect(v2?.method).toBe('epoch_weighted');
  expect(v2?.epochs).toBe(2);
  expect(v2?.estimate).toBeCloseTo(0.1, 12);
  expect(v2?.ci?.[0]).toBeCloseTo(0.1 - half, 12);
  expect(v2?.ci?.[1]).toBeCloseTo(0.1 + half, 12);
  // The headline is the same estimate (pooled, the same users would say 42/130 − 40/200 = 0.123:
  // variant 2's users are mostly from the high-base epoch).
  const u2 = r.variants[1]?.uplift;
  expect(u2?.absolute.estimate).toBe(v2?.estimate);
  expect(u2?.absolute.ci?.[0]).toBeCloseTo(0.1 - half, 12);
  expect(u2?.absolute.ci?.[1]).toBeCloseTo(0.1 + half, 12);
  expect(u2?.z).toBeCloseTo(0.1 / Math.sqrt(0.0023), 12);
  expect(u2?.significant).toBe(true);
  // Relative: the epoch-weighted rates ½(0.2 + 0.4) = 0.3 and ½(0.1 + 0.3) = 0.2, so +50%, SE_log = √(Var R_v/0.09 + Var R_c/0.04).
  const h2 = byHand(2);
  const seLog = Math.sqrt(h2.varRate(2) / 0.09 + h2.varRate(0) / 0.04);
  expect(u2?.relative?.estimate).toBeCloseTo(0.5, 12);
  expect(u2?.relative?.ci?.[0]).toBeCloseTo(1.5 * Math.exp(-1.959963984540054 * seLog) - 1, 12);
  expect(u2?.relative?.ci?.[1]).toBeCloseTo(1.5 * Math.exp(1.959963984540054 * seLog) - 1, 12);
  // Variant 1: no difference in either epoch (pooled it would look 11/70 − 0.2 = 4.3 points worse).
  expect(r.variants[0]?.epoch_weighted?.estimate).toBeCloseTo(0, 12);
  expect(r.variants[0]?.uplift?.absolute.estimate).toBeCloseTo(0, 12);
  expect(r.variants[0]?.uplift?.absolute.ci?.[1]).toBeCloseTo(r.variants[0]?.epoch_weighted?.ci?.[1] as number, 12);
});

it('reads every comparison of an adaptive campaign epoch-weighted: intervals, Holm, Bayes, power, CUPED', async () => {
  const r = await adaptive();
  expect(r.correction.family).toBe(2);
  const z = zFor(1 - 0.05 / 2);
  for (const v of [1, 2]) {
    const h = byHand(v);
    const reading = r.variants[v - 1]?.readings;
    // Fixed horizon: Agresti–Caffo per epoch, combined with the weights, at 97.5% (two variants).
    expect(reading?.fixed_horizon.estimate).toBeCloseTo(h.estimate, 12);
    expect(reading?.fixed_horizon.ci?.[0]).toBeCloseTo(h.centre - z * Math.sqrt(h.ac), 12);
    expect(reading?.fixed_horizon.ci?.[1]).toBeCloseTo(h.centre + z * Math.sqrt(h.ac), 12);
    // Sequential: the mixture on the same centre and variance, over the 400 (v2: 530) compared users.
    const users = 200 + h.counts.reduce((n, e) => n + e.variant.audience, 0);
    const seq = sequential({ centre: h.centre, variance: h.ac, users, tuning: SEQUENTIAL_TUNING, alpha: 0.025 });
    expect(reading?.sequential.ci?.[0]).toBeCloseTo(seq.ci[0], 12);
    expect(reading?.sequential.ci?.[1]).toBeCloseTo(seq.ci[1], 12);
    expect(reading?.sequential.p_value).toBeCloseTo(
      sequential({ centre: h.centre, variance: h.ac, users, tuning: SEQUENTIAL_TUNING, alpha: 0.05 }).p_value,
      12,
    );
    // Bayes: Beta(1,1) per epoch and group, the weighted rates compared, the report's seed.
    expect(reading?.bayes).toMatchObject(stratifiedBayes(h.counts));
    // CUPED: one θ within every epoch and group.
    expect(reading?.cuped).toMatchObject(stratifiedCuped(h.pre, z));
    for (const text of Object.values(reading ?? {}).flatMap((x) => (x && typeof x === 'object' && 'explanation' in x ? [x.explanation] : [])))
      expect(text).toContain('Epoch-weighted');
  }
  // Holm over the two sequential p-values (variant 1's is 1: no difference at all).
  const [p1, p2] = [r.variants[0]?.readings?.sequential.p_value as number, r.variants[1]?.readings?.sequential.p_value as number];
  expect(p1).toBe(1);
  expect(r.variants[1]?.readings?.sequential.p_value_adjusted).toBeCloseTo(Math.min(1, 2 * Math.min(p1, p2)), 12);
  // Variant 1 does exactly as well as control in each epoch: about even odds (the prior, Beta(½, ½)
  // per epoch here, pulls its smaller groups' rates up a little), where pooling its mix of mostly
  // early, low-base users would say it loses.
  expect(r.variants[0]?.readings?.bayes.p_beats_control).toBe(0.5323);
  expect(bayes({ converted: 40, audience: 200 }, { converted: 11, audience: 70 }).p_beats_control).toBeLessThan(0.25);
  // Power: control's weighted rate, 0.2.
  expect(r.variants[1]?.readings?.power.explanation).toContain("control's 20.0%");
});

it('reads a value goal per epoch: Welch per epoch, Satterthwaite over the epochs', async () => {
  // Every checkout is 10 and each converted user has one in their window: Y = 10, and the cap (the
  // 99th percentile of the users with a value) is 10, so nobody is capped.
  const r = await adaptive({ ...GOAL, value: 'cart_price' } as typeof GOAL);
  const v = r.variants[1]?.readings?.value;
  expect(v).toMatchObject({ cap: 10, capped_users: 0, ...stratifiedValues(byHand(2).values, 1 - 0.05 / 2) });
  expect([v?.control_mean, v?.variant_mean]).toEqual([2, 3]);
});

it('has no epoch-weighted reading for a campaign with fixed weights', async () => {
  const r = await campaignReport(chdb.analytics, {
    appId: APP,
    campaignId: 'c-ad',
    goal: GOAL,
    now: NOW,
    split: { holdout: 0.5, weights: [1, 1] },
  });
  expect([r.allocation, r.variants.map((v) => v.epoch_weighted)]).toEqual([null, [null, null]]);
  // Its readings pool the epochs: variant 2's headline is 42/130 − 40/200.
  expect(r.variants[1]?.uplift?.absolute.estimate).toBeCloseTo(42 / 130 - 0.2, 12);
});

it('reads an adaptive campaign without a split history as one epoch', async () => {
  const r = await campaignReport(chdb.analytics, {
    appId: APP,
    campaignId: 'c-ad',
    goal: GOAL,
    now: NOW,
    split: { holdout: 0.5, weights: [1, 1] },
    adaptive: true,
  });
  expect(r.variants[1]?.epoch_weighted?.epochs).toBe(1);
  expect(r.variants[1]?.uplift?.absolute.estimate).toBeCloseTo(42 / 130 - 0.2, 12);
  expect(r.variants[1]?.readings?.fixed_horizon.explanation).toContain('within each epoch (1 compared)');
});
