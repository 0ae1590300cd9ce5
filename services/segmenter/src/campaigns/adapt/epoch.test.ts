import { createLogger } from '@evp/core';
import { useMigratedChdb } from '@evp/testkit';
import { checkout, insertEvents, seedArm } from '../../testing';
import type { SplitChange, StoredCampaign } from '../source';
import { EPOCH_MS } from '../bandit';
import { createCampaignStore } from '../store';
import { armCounts } from './arms';
import { adaptCampaign } from './epoch';

// The worker's epoch step on chdb: each variant's goal counts in one query, and the next epoch
// appended only once the current one is 12 h old.
const chdb = useMigratedChdb('campaign_adapt');
const logger = createLogger('adapt-test', 'silent');
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
const seedVariant = (app: string, variant: number, n: number, converted: number) =>
  seedArm(chdb.analytics, { app, id: 'c-adapt', variant, n, converted, at: T0 + HOUR });

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
    const deps = { analytics: chdb.analytics, campaigns: { appendSplit: async (_: StoredCampaign, s: SplitChange) => appended.push(s) > 0 }, logger };
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
    const deps = { analytics: chdb.analytics, campaigns: { appendSplit: async () => true }, logger };
    expect(await adaptCampaign(deps, campaign(app, []), T0 + 3 * EPOCH_MS)).toBeNull();
  });

  it('a replica that read the campaign before another appended the epoch (a paused lease holder) appends nothing, and says so', async () => {
    const app = 'app_adapt_stale';
    await seedVariant(app, 1, 150, 15);
    await seedVariant(app, 2, 150, 60);
    let at = T0;
    const store = createCampaignStore({ analytics: chdb.analytics, now: () => at, newId: () => 'c-adapt' });
    const { document } = campaign(app, []);
    const created = await store.change(await store.create(app, document), { state: 'active' });
    const lines: { msg: string; campaign_id?: string; computed_from?: number }[] = [];
    const capturing = createLogger('adapt-test', 'info', { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
    const deps = { analytics: chdb.analytics, campaigns: store, logger: capturing };
    at = T0 + EPOCH_MS;
    // Both replicas read the campaign at the epoch's end; one appends, the other comes back later with its read.
    const read = (await store.get(app, created.id)) as NonNullable<Awaited<ReturnType<typeof store.get>>>;
    const first = await adaptCampaign(deps, read, at);
    at += 60_000;
    expect(await adaptCampaign(deps, read, at)).toBeNull();
    const splits = (await store.get(app, created.id))?.splits ?? [];
    expect(splits.map((x) => [x.from, x.adaptive ?? false])).toEqual([
      [T0, false],
      [T0 + EPOCH_MS, true],
    ]);
    expect(splits[1]).toEqual(first);
    expect(lines.map((l) => [l.msg, l.campaign_id, l.computed_from])).toEqual([
      [
        'adaptive epoch not appended: the campaign’s split changed since it was read (another replica appended an epoch, or an edit changed the split)',
        'c-adapt',
        T0,
      ],
    ]);
  });
});
