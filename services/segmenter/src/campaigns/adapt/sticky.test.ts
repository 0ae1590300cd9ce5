import { useMigratedChdb } from '@evp/testkit';
import { MemoryCampaigns } from '../../testing';
import { assign } from '../assignment';
import { planDeliveries, type Delivery } from '../deliver';
import { writeOutcomes } from '../outcomes';
import type { StoredCampaign } from '../source';
import { TemplateEngine } from '../templates';

// Sticky assignment on chdb: a user of an adaptive campaign keeps the variant of their first
// treated outcome row whatever the weights become; a new user gets the current epoch's weights.
const chdb = useMigratedChdb('campaign_sticky');
const T0 = Date.UTC(2026, 2, 1);
const EPOCH = 12 * 3_600_000;
const templates = new TemplateEngine();
const action = {
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: 'one-off',
  content: { title: 'Hi', body: 'b' },
  expired_at: '2027-01-01T00:00:00Z',
};

function adaptiveCampaign(app: string): StoredCampaign {
  const c = new MemoryCampaigns(templates).save(app, 'c-sticky', {
    name: 'sticky',
    trigger: { api: true },
    action,
    holdout: 0.2,
    variants: [
      { weight: 1, action: { content: { title: 'A', body: 'a' } } },
      { weight: 1, action: { content: { title: 'B', body: 'b' } } },
    ],
    goal: { event: 'checkout', within: 'P1D' },
    adaptive: {},
  });
  return { ...c, splits: [{ from: T0, holdout: 0.2, weights: [1, 1] }] };
}

const deliveries = (users: string[], at: number): Delivery[] => users.map((user_id) => ({ user_id, run_key: `api:${at}`, at, trigger: 'api' }));
const users = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `u${from + i}`);
const groupOf = (variant: number) => (variant === 0 ? { group: 'control' } : { group: 'variant', variant: variant - 1 });

it('keeps an assigned user in their first variant after the weights move; new users get the new weights', async () => {
  const app = 'app_sticky';
  const first = adaptiveCampaign(app);
  const settings = { max_per_user_per_day: null };
  const before = await planDeliveries({ analytics: chdb.analytics, templates }, first, settings, deliveries(users(0, 200), T0 + 1));
  // The first epoch: exactly the stateless assignment over the document's weights.
  const was = new Map(before.outcomes.map((o) => [o.user_id, o.variant]));
  expect(users(0, 200).map((u) => groupOf(was.get(u) as number))).toEqual(users(0, 200).map((u) => assign(first.id, u, { holdout: 0.2, weights: [1, 1] })));
  await writeOutcomes(chdb.analytics, app, before.outcomes, 0, T0 + 1);
  const moved: StoredCampaign = { ...first, splits: [...first.splits, { from: T0 + EPOCH, holdout: 0.2, weights: [0.05, 0.95], adaptive: true }] };
  const after = await planDeliveries({ analytics: chdb.analytics, templates }, moved, settings, deliveries(users(0, 400), T0 + EPOCH + 1));
  const now = new Map(after.outcomes.map((o) => [o.user_id, o.variant]));
  // Every one of the first 200 keeps their group.
  expect(users(0, 200).filter((u) => now.get(u) !== was.get(u))).toEqual([]);
  // Without the record, the current weights would have moved these many of them to variant 2.
  const stateless = users(0, 200).filter(
    (u) => JSON.stringify(assign(first.id, u, { holdout: 0.2, weights: [0.05, 0.95] })) !== JSON.stringify(groupOf(was.get(u) as number)),
  );
  expect(stateless.length).toBe(85);
  // New users: the current epoch's weights (control 20%, then 5% / 95% of the treated).
  expect(users(200, 400).map((u) => groupOf(now.get(u) as number))).toEqual(
    users(200, 400).map((u) => assign(first.id, u, { holdout: 0.2, weights: [0.05, 0.95] })),
  );
  const newVariants = users(200, 400).map((u) => now.get(u));
  expect([newVariants.filter((v) => v === 0).length, newVariants.filter((v) => v === 1).length, newVariants.filter((v) => v === 2).length]).toEqual([
    44, 8, 148,
  ]);
});
