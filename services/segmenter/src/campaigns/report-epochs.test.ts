import { useMigratedChdb } from '@evp/testkit';
import { checkout, insertEvents } from '../testing';
import { writeOutcomes, type OutcomeRow } from './outcomes';
import { campaignReport } from './report';

// The report of an adaptive campaign on chdb: the sample-ratio check per epoch with that epoch's
// shares, and each variant's epoch-weighted uplift from the one query's per-epoch per-arm sums. The
// base rate drifts from 10% to 30% between the epochs while the weights move toward variant 2, so
// pooling over-weights variant 2's late (high-base) users; each epoch's own difference does not.
const chdb = useMigratedChdb('campaign_report_epochs');
const APP = 'app_epochs';
const T0 = Date.UTC(2026, 2, 1);
const EPOCH = 12 * 3_600_000;
const GOAL = { event: 'checkout', within: 'P1D' };
const HISTORY = [
  { from: T0, holdout: 0.5, weights: [1, 1] },
  { from: T0 + EPOCH, holdout: 0.5, weights: [0.2, 0.8], adaptive: true as const },
];

/** Per epoch, per group (control, variant 1, variant 2): users first assigned in it, converted. */
const SEED = [
  [
    [100, 10],
    [50, 5],
    [50, 10],
  ],
  [
    [100, 30],
    [20, 6],
    [80, 32],
  ],
];

beforeAll(async () => {
  const events = [];
  for (const [e, groups] of SEED.entries()) {
    const at = T0 + e * EPOCH + 3_600_000;
    for (const [variant, [n, converted]] of groups.entries()) {
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
    }
  }
  await insertEvents(chdb.analytics, events);
});

it('checks the split per epoch and reads each variant’s uplift epoch-weighted', async () => {
  const r = await campaignReport(chdb.analytics, {
    appId: APP,
    campaignId: 'c-ad',
    goal: GOAL,
    now: new Date(T0 + 5 * 24 * 3_600_000),
    split: { holdout: 0.5, weights: [1, 1], history: HISTORY },
    adaptive: true,
  });
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
  // Pooled, the same users say 42/130 − 40/200 = 0.123: variant 2's users are mostly from the high-base epoch.
  expect(r.variants[1]?.uplift?.absolute.estimate).toBeCloseTo(42 / 130 - 0.2, 12);
  // Variant 1: no difference in either epoch; pooled it looks 4.3 points worse.
  expect(r.variants[0]?.epoch_weighted?.estimate).toBeCloseTo(0, 12);
  expect(r.variants[0]?.uplift?.absolute.estimate).toBeCloseTo(11 / 70 - 0.2, 12);
});

it('has no epoch-weighted reading for a campaign with fixed weights', async () => {
  const r = await campaignReport(chdb.analytics, {
    appId: APP,
    campaignId: 'c-ad',
    goal: GOAL,
    now: new Date(T0 + 5 * 24 * 3_600_000),
    split: { holdout: 0.5, weights: [1, 1] },
  });
  expect([r.allocation, r.variants.map((v) => v.epoch_weighted)]).toEqual([null, [null, null]]);
});
