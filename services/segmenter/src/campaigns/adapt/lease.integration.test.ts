import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { ManualClock, createLogger } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { createRedisLeaseStore } from '@evp/http';
import { deletePrefix, useMigratedChdb } from '@evp/testkit';
import { seedArm } from '../../testing';
import { EPOCH_MS } from '../bandit';
import { createCampaignStore } from '../store';
import { TemplateEngine } from '../templates';
import { validateCampaign } from '../validate';
import { createCampaignWorker, type CampaignWorker } from '../worker';

// Two replicas of the campaign worker on one ClickHouse (chdb) and one real Redis, each with its own
// connection and store, as two segmenter processes: at the instant an adaptive campaign's epoch is
// over both run the allocation turn at once, and exactly one epoch is appended (one version written).
const chdb = useMigratedChdb('adapt_lease');
const logger = createLogger('adapt-lease-it', 'silent');
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 2, 1, 0, 0, 0);
const prefix = `test:lease:${randomBytes(6).toString('hex')}:`;
const connections = [new Redis(process.env.REDIS_URL as string), new Redis(process.env.REDIS_URL as string)];
afterAll(async () => {
  await deletePrefix(connections[0] as Redis, prefix);
  for (const r of connections) r.disconnect();
});

const DOCUMENT = {
  name: 'adaptive',
  trigger: { api: true },
  action: { type: 'message', render_method: 'push_notification', delivery_mode: 'one-off', content: { title: 'Hi', body: 'b' }, expires_after: 'P1D' },
  holdout: 0.1,
  variants: [
    { weight: 1, action: { content: { title: 'A' } } },
    { weight: 1, action: { content: { title: 'B' } } },
  ],
  goal: { event: 'checkout', within: 'P1D' },
  adaptive: {},
};

it('two workers sharing a Redis lease both run the allocation turn at once: one epoch appended, by one of them; the other takes over once it is released', async () => {
  const app = 'app_adapt_lease';
  const clock = new ManualClock(T0);
  const templates = new TemplateEngine();
  const valid = validateCampaign(DOCUMENT, { segmentExists: () => true, templates });
  if (!valid.ok) throw new Error(JSON.stringify(valid.reasons));
  const first = createCampaignStore({ analytics: chdb.analytics, now: () => clock.now(), newId: () => 'c-lease' });
  const campaign = await first.change(await first.create(app, valid.value), { state: 'active' });
  // Variant 2 converts at 40%, variant 1 at 10%: 150 users each, reached an hour in.
  await seedArm(chdb.analytics, { app, id: campaign.id, variant: 1, n: 150, converted: 15, at: T0 + HOUR });
  await seedArm(chdb.analytics, { app, id: campaign.id, variant: 2, n: 150, converted: 60, at: T0 + HOUR });
  const replica = (redis: Redis): CampaignWorker =>
    createCampaignWorker({
      analytics: chdb.analytics,
      bus: createInProcessBus(),
      registry: createInProcessRegistry(),
      logger,
      campaigns: createCampaignStore({ analytics: chdb.analytics, now: () => clock.now() }),
      templates,
      clock,
      config: { adaptIntervalMs: HOUR, refreshIntervalMs: 0, scheduleIntervalMs: 0 },
      lease: createRedisLeaseStore({ redis, prefix }),
    });
  const workers = connections.map(replica);
  /** Every row written for the campaign (no FINAL): one per version saved. */
  const versions = async () =>
    (
      await chdb.analytics.query<{ version: number }>(
        'SELECT version FROM campaigns WHERE app_id = {app:String} AND campaign_id = {id:String} ORDER BY version',
        {
          app,
          id: campaign.id,
        },
      )
    ).map((r) => Number(r.version));
  const splits = async () => ((await first.get(app, campaign.id))?.splits ?? []).map((s) => [s.from, s.weights.map((w) => w.toFixed(2))]);

  await clock.advance(EPOCH_MS);
  const turns = await Promise.all(workers.map((w) => w.adapt()));
  // Exactly one ran the turn and appended the epoch; one version written.
  expect(turns.map((t) => t.length).sort()).toEqual([0, 1]);
  const winner = turns.findIndex((t) => t.length === 1);
  expect(await versions()).toEqual([1, 2, 3]);
  expect(await splits()).toEqual([
    [T0, ['1.00', '1.00']],
    [T0 + EPOCH_MS, ['0.32', '0.68']],
  ]);
  // The holder keeps the lease between turns: the other's turn 12 h later runs nothing.
  await clock.advance(EPOCH_MS);
  expect(await (workers[1 - winner] as CampaignWorker).adapt()).toEqual([]);
  expect(await versions()).toEqual([1, 2, 3]);
  // Stopped, the holder releases it: the other's next turn runs and appends the next epoch.
  await (workers[winner] as CampaignWorker).stop();
  expect((await (workers[1 - winner] as CampaignWorker).adapt()).map((s) => s.from)).toEqual([T0 + 2 * EPOCH_MS]);
  expect(await versions()).toEqual([1, 2, 3, 4]);
  await (workers[1 - winner] as CampaignWorker).stop();
});
