import { useMigratedChdb } from '@evp/testkit';
import { checkout, insertEvents } from '../../testing';
import { writeOutcomes, type OutcomeRow } from '../outcomes';
import type { SplitChange, StoredCampaign } from '../source';
import { EPOCH_MS } from '../bandit';
import { armCounts } from './arms';
import { adaptCampaign } from './epoch';

// The worker's epoch step on chdb: each variant's goal counts in one query, and the next epoch
// appended only once the current one is 12 h old.
const chdb = useMigratedChdb('campaign_adapt');
const T0 = Date.UTC(2026, 2, 1, 0, 0, 0);
const HOUR = 3_600_000;
const GOAL = { event: 'checkout', within: 'P1D' };

function campaign(app: string, splits: SplitChange[]): StoredCampaign {
  return {
    app_id: app,
    id: 'c-adapt',
    version: 1,
    state: 'active',
    document: {
      name: 'adaptive',
      trigger: { api: true },
      action: {} as StoredCampaign['document']['action'],
      holdout: 0.1,
      variants: [{ weight: 1 }, { weight: 1 }] as StoredCampaign['document']['variants'],
      goal: GOAL,
      adaptive: {},
    },
    action_ids: [1, 2],
    created_at: T0,
    splits,
  };
}

/** `n` users of `variant` reached at T0 + 1 h, the first `converted` of them with a goal event an hour later. */
async function seedVariant(app: string, variant: number, n: number, converted: number): Promise<void> {
  const rows: OutcomeRow[] = Array.from({ length: n }, (_, i) => ({
    campaign_id: 'c-adapt',
    inv_id: 1,
    user_id: `v${variant}-${i}`,
    variant,
    action_id: variant,
    outcome: variant === 0 ? 'control' : 'requested',
    reason: '',
    trigger: 'api',
    at: T0 + HOUR,
  }));
  await writeOutcomes(chdb.analytics, app, rows, 0, T0 + HOUR);
  await insertEvents(
    chdb.analytics,
    rows.slice(0, converted).map((r) => checkout(app, r.user_id, T0 + 2 * HOUR)),
  );
}

describe('adaptive epoch step', () => {
  it('reads each variant’s users and conversions, and appends the next epoch once the current one is 12 h old', async () => {
    const app = 'app_adapt';
    await seedVariant(app, 0, 40, 40); // control: never counted by the bandit
    await seedVariant(app, 1, 150, 15);
    await seedVariant(app, 2, 150, 60);
    // A variant-1 user whose goal event came before the run: not a conversion.
    await insertEvents(chdb.analytics, [checkout(app, 'v1-100', T0)]);
    const c = campaign(app, [{ from: T0, holdout: 0.1, weights: [1, 1] }]);
    expect(await armCounts(chdb.analytics, { app_id: app, id: c.id, goal: GOAL, variants: 2 }, T0 + EPOCH_MS)).toEqual([
      { audience: 150, converted: 15 },
      { audience: 150, converted: 60 },
    ]);
    const appended: SplitChange[] = [];
    const deps = { analytics: chdb.analytics, campaigns: { appendSplit: async (_: StoredCampaign, s: SplitChange) => void appended.push(s) } };
    // Not yet 12 h: nothing read, nothing appended.
    expect(await adaptCampaign(deps, c, T0 + EPOCH_MS - 1)).toBeNull();
    const split = await adaptCampaign(deps, c, T0 + EPOCH_MS);
    // Variant 2 (40% against 10%) leads every draw: 0.05 + 0.9·0.7 for it, 0.05 + 0.9·0.3 for the challenger. The holdout stays.
    expect(split && { ...split, weights: split.weights.map((w) => w.toFixed(9)) }).toEqual({
      from: T0 + EPOCH_MS,
      holdout: 0.1,
      weights: ['0.320000000', '0.680000000'],
      adaptive: true,
    });
    expect(appended).toEqual([split]);
    // From the new epoch: the next move is 12 h later.
    const moved = campaign(app, [...c.splits, split as SplitChange]);
    expect(await adaptCampaign(deps, moved, T0 + 2 * EPOCH_MS - 1)).toBeNull();
    expect(appended).toHaveLength(1);
  });

  it('does not move before every variant has 100 users', async () => {
    const app = 'app_adapt_few';
    await seedVariant(app, 1, 150, 15);
    await seedVariant(app, 2, 99, 60);
    const deps = { analytics: chdb.analytics, campaigns: { appendSplit: async () => undefined } };
    expect(await adaptCampaign(deps, campaign(app, []), T0 + 3 * EPOCH_MS)).toBeNull();
  });
});
