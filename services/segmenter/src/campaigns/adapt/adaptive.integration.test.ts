import { ManualClock, createLogger } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { uniqueName, useMigratedChdb, waitFor } from '@evp/testkit';
import { checkout, insertEvents } from '../../testing';
import { epochWeighted } from '../bandit';
import { clickhouseReport } from '../compose';
import type { CampaignReport } from '../report';
import { createCampaignStore } from '../store';
import { TemplateEngine } from '../templates';
import { validateCampaign } from '../validate';
import { createCampaignWorker, type CampaignWorkerConfig } from '../worker';

// An adaptive campaign end to end on a real Kafka broker and chdb, the worker on a manual clock: 400
// users reached, variant 2 converting at 50% and variant 1 at 5%; 12 h later the worker's allocation
// timer appends an epoch favouring variant 2; the same users triggered again keep their variants while
// 400 new ones follow the new weights; 12 h later a second epoch; the report reads the uplift
// epoch-weighted from the split history the worker wrote, its headline and readings included.
const chdb = useMigratedChdb('adaptive_it');
const logger = createLogger('adaptive-it', 'silent');
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 2, 1, 0, 0, 0);

const DOCUMENT = {
  name: 'adaptive',
  trigger: { api: true },
  action: {
    type: 'message',
    render_method: 'push_notification',
    delivery_mode: 'one-off',
    content: { title: 'Hi', body: 'b' },
    expired_at: '2027-01-01T00:00:00Z',
  },
  holdout: 0.2,
  variants: [
    { weight: 1, action: { content: { title: 'A' } } },
    { weight: 1, action: { content: { title: 'B' } } },
  ],
  goal: { event: 'checkout', where: [{ prop: 'is_successful', op: 'eq', value: true }], within: 'PT1H' },
  adaptive: {},
};

const users = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `u${from + i}`);

it('moves the weights toward the better variant once per epoch, keeps assigned users, and reads the uplift epoch-weighted', async () => {
  const app = uniqueName('app-ad').replace(/-/g, '_');
  const config: Partial<CampaignWorkerConfig> = {
    groupId: uniqueName('ad-group'),
    entryGroupId: uniqueName('ad-entries'),
    triggersTopic: uniqueName('ad-triggers'),
    membershipTopic: uniqueName('ad-members'),
    actionsTopic: uniqueName('ad-actions'),
    refreshIntervalMs: 0,
    scheduleIntervalMs: 0,
    adaptIntervalMs: HOUR,
  };
  const bus = createKafkaBus({ brokers: (process.env.KAFKA_BROKERS as string).split(','), clientId: uniqueName('ad'), logger, sessionTimeoutMs: 6_000 });
  await bus.ensureTopics([
    { name: config.triggersTopic as string, partitions: 1 },
    { name: config.membershipTopic as string, partitions: 1 },
    { name: config.actionsTopic as string, partitions: 1 },
  ]);
  const clock = new ManualClock(T0);
  const templates = new TemplateEngine();
  const store = createCampaignStore({ analytics: chdb.analytics, now: () => clock.now(), newId: () => 'c-adaptive' });
  const valid = validateCampaign(DOCUMENT, { segmentExists: () => true, templates });
  if (!valid.ok) throw new Error(JSON.stringify(valid.reasons));
  const campaign = await store.change(await store.create(app, valid.value), { state: 'active' });
  const worker = createCampaignWorker({
    analytics: chdb.analytics,
    bus,
    registry: createConfluentRegistry({ url: process.env.SCHEMA_REGISTRY_URL as string }),
    logger,
    campaigns: store,
    templates,
    clock,
    config,
  });
  /** Each user's variant in each of their outcome rows, by run. */
  const rows = async () =>
    chdb.analytics.query<{ user_id: string; inv_id: string; variant: number }>(
      'SELECT user_id, toString(inv_id) AS inv_id, variant FROM campaign_outcomes FINAL WHERE app_id = {app:String} ORDER BY user_id, inv_id',
      { app },
    );
  /** Triggers `ids` now and waits for their outcome rows; the users' groups in that run. */
  const reach = async (ids: string[]) => {
    const { inv_id } = await worker.triggerApi(app, campaign, ids);
    let run: Map<string, number> | undefined;
    await waitFor(
      async () => {
        const mine = (await rows()).filter((r) => r.inv_id === String(inv_id));
        run = new Map(mine.map((r) => [r.user_id, Number(r.variant)]));
        return run.size === ids.length || undefined;
      },
      { timeoutMs: 60_000, what: `outcome rows of ${ids.length} users` },
    );
    return run as Map<string, number>;
  };
  /** Conversions: every 2nd user of variant 2, every 20th of variant 1 and of control, 10 minutes after `at`. */
  const convert = async (groups: Map<string, number>, at: number) => {
    const converting = [...groups].filter(([, v], i) => i % (v === 2 ? 2 : 20) === 0).map(([u]) => u);
    await insertEvents(
      chdb.analytics,
      converting.map((u) => checkout(app, u, at + 600_000)),
    );
    return new Set(converting);
  };
  const splits = async () => (await store.get(app, campaign.id))?.splits ?? [];
  try {
    await worker.start();
    // Epoch 0: the document's weights.
    const first = await reach(users(0, 400));
    const converted0 = await convert(first, T0);
    const count = (m: Map<string, number>, v: number) => [...m.values()].filter((x) => x === v).length;
    expect([0, 1, 2].map((v) => count(first, v))).toEqual([74, 160, 166]);
    // 12 h later the allocation timer moves the weights, once.
    await clock.advance(12 * HOUR);
    await waitFor(async () => (await splits()).length === 2 || undefined, { timeoutMs: 30_000, what: 'the first epoch appended' });
    const [doc, epoch1] = await splits();
    expect(doc).toEqual({ from: T0, holdout: 0.2, weights: [1, 1] });
    // Variant 2 leads every posterior draw: 0.05 + 0.9·0.7 of the treated users, its challenger 0.05 + 0.9·0.3.
    expect({ ...epoch1, weights: epoch1?.weights.map((w) => w.toFixed(9)) }).toEqual({
      from: T0 + 12 * HOUR,
      holdout: 0.2,
      weights: ['0.320000000', '0.680000000'],
      adaptive: true,
    });

    // Epoch 1: the first 400 again (sticky) and 400 new users (the new weights).
    const at1 = clock.now();
    const second = await reach(users(0, 800));
    expect(users(0, 400).filter((u) => second.get(u) !== first.get(u))).toEqual([]);
    const fresh = new Map(users(400, 800).map((u) => [u, second.get(u) as number]));
    expect([0, 1, 2].map((v) => count(fresh, v))).toEqual([89, 94, 217]);
    const converted1 = await convert(fresh, at1);
    await clock.advance(12 * HOUR);
    await waitFor(async () => (await splits()).length === 3 || undefined, { timeoutMs: 30_000, what: 'the second epoch appended' });
    expect((await splits())[2]).toMatchObject({ from: T0 + 24 * HOUR, holdout: 0.2, adaptive: true });

    // The report: the split checked per epoch, the uplift epoch-weighted over the users first reached in each.
    const latest = await store.get(app, campaign.id);
    const report = (await clickhouseReport(chdb.analytics, () => clock.now())(app, latest as NonNullable<typeof latest>)) as CampaignReport;
    expect([
      report.allocation?.estimate,
      report.allocation?.epochs.length,
      report.srm?.expected_from,
      report.srm?.periods?.length,
      report.srm?.mismatch,
    ]).toEqual(['epoch_weighted', 3, 'document history', 3, false]);
    const arm = (groups: Map<string, number>, done: Set<string>, v: number) => {
      const ids = [...groups].filter(([, x]) => x === v).map(([u]) => u);
      return { audience: ids.length, converted: ids.filter((u) => done.has(u)).length };
    };
    const expected = [
      [first, converted0],
      [fresh, converted1],
    ].map(([g, c]) => ({
      control: arm(g as Map<string, number>, c as Set<string>, 0),
      variant: arm(g as Map<string, number>, c as Set<string>, 2),
      users: (g as Map<string, number>).size,
    }));
    expect(report.variants[1]?.epoch_weighted).toEqual(epochWeighted(expected));
    expect(report.variants[1]?.epoch_weighted?.estimate).toBeGreaterThan(0.4);
    // The headline and the readings are that estimate, by the test's own arithmetic: Σ (Nₑ/N)·Δₑ with
    // variance Σ (Nₑ/N)²·(p_v q_v/n_v + p_c q_c/n_c) (every user has matured: the window is an hour).
    const n = expected.reduce((s, e) => s + e.users, 0);
    const rate = (p: { converted: number; audience: number }) => p.converted / p.audience;
    const wald = (p: { converted: number; audience: number }) => (rate(p) * (1 - rate(p))) / p.audience;
    const d = expected.reduce((s, e) => s + (e.users / n) * (rate(e.variant) - rate(e.control)), 0);
    const half = 1.959963984540054 * Math.sqrt(expected.reduce((s, e) => s + (e.users / n) ** 2 * (wald(e.variant) + wald(e.control)), 0));
    const headline = report.variants[1]?.uplift;
    expect(headline?.absolute.estimate).toBeCloseTo(d, 12);
    expect(headline?.absolute.ci?.[0]).toBeCloseTo(d - half, 12);
    expect(headline?.absolute.ci?.[1]).toBeCloseTo(d + half, 12);
    expect(report.variants[1]?.readings?.fixed_horizon.estimate).toBeCloseTo(d, 12);
    expect(report.variants[1]?.readings?.sequential.explanation).toContain('Epoch-weighted');
  } finally {
    await worker.stop();
    await bus.close();
  }
}, 180_000);
