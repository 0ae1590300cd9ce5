import { createLogger, InfraError, type Bus, type BusProducer } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { uniqueName, useMigratedChdb, waitFor } from '@evp/testkit';
import { formatDateTime64 } from '@evp/clickhouse';
import { createChangeLog, createMembershipState } from '../segments';
import { insertEvents, MemoryCampaigns, readRequested, userEvent } from '../testing';
import { runInvId, variantActionId } from './ids';
import { TemplateEngine } from './templates';
import { createCampaignWorker, type CampaignWorker, type CampaignWorkerConfig } from './worker';

// The campaign worker on a real Kafka broker and chdb. A first worker stops for good in the middle
// of a batch — after its outcome rows are written but before its actions are produced, or after
// they are produced but before the offsets are committed — and a second one in the same group
// takes the item over: the same (inv_id, action_id, user_id) set is requested, nothing else, and
// the outcome rows are one per user.
const chdb = useMigratedChdb('campaignsit');
const logger = createLogger('campaigns-it', 'silent');
const brokers = () => (process.env.KAFKA_BROKERS as string).split(',');

/**
 * A bus whose producer fails every send to `topic` (`before`: without sending; `after`: the first
 * one once sent, later ones without sending, as a dead process sends nothing more).
 */
function crashingAt(bus: Bus, topic: string, when: 'before' | 'after', crashed: () => void): Bus {
  let sentOnce = false;
  return {
    ...bus,
    subscribe: (o) => bus.subscribe(o),
    producer: async () => {
      const p = await bus.producer();
      const wrapped: BusProducer = {
        async send(t, messages) {
          if (t !== topic) return p.send(t, messages);
          if (when === 'after' && !sentOnce) {
            await p.send(t, messages);
            sentOnce = true;
          }
          crashed();
          // Retriable: the batch is not committed and not dead-lettered; the worker is stopped meanwhile.
          throw new InfraError('kafka', 'the worker crashed here (test)', { retriable: true });
        },
        sendBatch: (e) => p.sendBatch(e),
        close: () => p.close(),
      };
      return wrapped;
    },
  };
}

describe('campaign worker on Kafka', () => {
  it.each(['before', 'after'] as const)('killed mid-batch (%s producing the actions) and restarted: the same actions, no extra', async (when) => {
    const app = uniqueName('app-cw').replace(/-/g, '_');
    const config: Partial<CampaignWorkerConfig> = {
      groupId: uniqueName('cw-group'),
      entryGroupId: uniqueName('cw-entries'),
      triggersTopic: uniqueName('cw-triggers'),
      membershipTopic: uniqueName('cw-members'),
      actionsTopic: uniqueName('cw-actions'),
      refreshIntervalMs: 0,
      scheduleIntervalMs: 0,
    };
    const bus = createKafkaBus({ brokers: brokers(), clientId: uniqueName('cw'), logger, sessionTimeoutMs: 6_000 });
    await bus.ensureTopics([
      { name: config.triggersTopic as string, partitions: 2 },
      { name: config.membershipTopic as string, partitions: 1 },
      { name: config.actionsTopic as string, partitions: 1 },
    ]);
    const registry = createConfluentRegistry({ url: process.env.SCHEMA_REGISTRY_URL as string });
    const templates = new TemplateEngine();
    const campaigns = new MemoryCampaigns(templates);
    const c = campaigns.save(app, 'c-kill', {
      name: 'kill',
      trigger: { api: true },
      action: {
        type: 'message',
        render_method: 'push_notification',
        delivery_mode: 'one-off',
        content: { title: 'Hi', body: 'b' },
        expired_at: '2027-01-01T00:00:00Z',
      },
      variants: [
        { weight: 1, action: {} },
        { weight: 1, action: { content: { title: 'Hey' } } },
      ],
      holdout: 0.2,
    });
    const users = Array.from({ length: 300 }, (_, i) => `u${i}`);
    let crashed = false;
    const deps = { analytics: chdb.analytics, registry, logger, campaigns, templates, config };
    const first: CampaignWorker = createCampaignWorker({ ...deps, bus: crashingAt(bus, config.actionsTopic as string, when, () => (crashed = true)) });
    let second: CampaignWorker | undefined;
    try {
      await first.start();
      const { inv_id } = await first.triggerApi(app, c, users);
      await waitFor(() => crashed, { timeoutMs: 60_000, what: 'the first worker to reach its crash point' });
      // Outcome rows are in ClickHouse before any action is produced.
      const rowsAtCrash = await chdb.analytics.query<{ n: string }>('SELECT toString(count()) AS n FROM campaign_outcomes FINAL WHERE app_id = {app:String}', {
        app,
      });
      expect(Number(rowsAtCrash[0]?.n)).toBe(300);
      await first.stop();

      second = createCampaignWorker({ ...deps, bus });
      await second.start();
      const expected = await chdb.analytics.query<{ user_id: string; action_id: string }>(
        `SELECT user_id, toString(action_id) AS action_id FROM campaign_outcomes FINAL WHERE app_id = {app:String} AND outcome = 'requested' ORDER BY user_id`,
        { app },
      );
      const key = (a: { inv_id: number; action_id: number | string; user_id: string }) => `${a.inv_id}:${a.action_id}:${a.user_id}`;
      const want = expected.map((r) => key({ inv_id, action_id: r.action_id, user_id: r.user_id })).sort();
      const handled = async () =>
        (await second?.metrics.getSingleMetric('segmenter_campaign_trigger_items_total')?.get())?.values.reduce((n, v) => n + v.value, 0);
      await waitFor(async () => (await handled()) === 1 || undefined, { timeoutMs: 60_000, what: 'the second worker to act on the item' });
      const actions = (await readRequested(bus, config.actionsTopic as string, app)).flatMap((m) => m.actions);
      expect([...new Set(actions.map(key))].sort()).toEqual(want);
      // 'after': the first worker's message is on the topic too (the action store turns it into duplicates).
      expect(actions.length).toBe(when === 'after' ? 2 * want.length : want.length);
      const ids = new Set(actions.map((a) => a.action_id));
      expect([...ids].sort()).toEqual([variantActionId(app, 'c-kill', 1), variantActionId(app, 'c-kill', 2)].sort());
      const rows = await chdb.analytics.query<{ outcome: string; n: string }>(
        'SELECT outcome, toString(count()) AS n FROM campaign_outcomes FINAL WHERE app_id = {app:String} GROUP BY outcome ORDER BY outcome',
        { app },
      );
      expect(rows.reduce((n, r) => n + Number(r.n), 0)).toBe(300);
      expect(Number(rows.find((r) => r.outcome === 'requested')?.n)).toBe(want.length);
    } finally {
      await second?.stop();
      await bus.close();
    }
  });
});

describe('campaign triggers on Kafka', () => {
  it('segment entry (Avro through the registry), event and schedule triggers, each up to its actions and outcome rows', async () => {
    const app = uniqueName('app-ct').replace(/-/g, '_');
    const config: Partial<CampaignWorkerConfig> = {
      groupId: uniqueName('ct-group'),
      entryGroupId: uniqueName('ct-entries'),
      // A topic of its own: from its beginning is what the default (its end at the join) means here,
      // without racing the join.
      entryFromBeginning: true,
      triggersTopic: uniqueName('ct-triggers'),
      membershipTopic: uniqueName('ct-members'),
      actionsTopic: uniqueName('ct-actions'),
      refreshIntervalMs: 0,
      scheduleIntervalMs: 0,
    };
    const bus = createKafkaBus({ brokers: brokers(), clientId: uniqueName('ct'), logger, sessionTimeoutMs: 6_000 });
    await bus.ensureTopics([
      { name: config.triggersTopic as string, partitions: 3 },
      { name: config.membershipTopic as string, partitions: 1 },
      { name: config.actionsTopic as string, partitions: 1 },
    ]);
    const registry = createConfluentRegistry({ url: process.env.SCHEMA_REGISTRY_URL as string });
    const templates = new TemplateEngine();
    const campaigns = new MemoryCampaigns(templates);
    const act = (title: string) => ({
      type: 'message',
      render_method: 'push_notification',
      delivery_mode: 'one-off',
      content: { title, body: 'b' },
      expired_at: '2099-01-01T00:00:00Z',
    });
    campaigns.save(app, 'c-entry', { name: 'e', trigger: { segment_entry: 'seg-e' }, action: act('Welcome {{ user.name }}') });
    campaigns.save(app, 'c-event', {
      name: 'v',
      trigger: { event: { event: 'page', where: [{ prop: 'path', op: 'eq', value: '/cart' }] } },
      action: act('{{ event.title }}'),
    });
    const now = Date.now();
    const runAt = now - 60_000;
    campaigns.save(app, 'c-sched', { name: 's', trigger: { schedule: { at: new Date(runAt).toISOString() }, segment: 'seg-s' }, action: act('Weekly') });
    await chdb.analytics.insert('catalog_user', [
      { app_id: app, id: 'u-entry', received_at: formatDateTime64(now - 1_000), request_id: 'r', record: { id: 'u-entry', name: 'Eve' } },
    ]);
    const state = createMembershipState(chdb.analytics);
    const member = (user_id: string) => ({
      user_id,
      is_member: true,
      entered_at: now - 3_600_000,
      exited_at: null,
      version: 1,
      seq: 1,
      emitted: true,
      written_at: now,
    });
    await state.write(app, 'seg-s', [member('s1'), member('s2'), member('s3')]);

    const worker = createCampaignWorker({ analytics: chdb.analytics, bus, registry, logger, campaigns, templates, config });
    const log = createChangeLog({ bus, registry, topic: config.membershipTopic as string });
    try {
      await worker.start();
      await log.start();
      const at = now - 2_000;
      await log.publish([
        { app_id: app, segment_id: 'seg-e', user_id: 'u-entry', change: 'entered', at, version: 1, seq: 1 },
        { app_id: app, segment_id: 'seg-e', user_id: 'u-gone', change: 'exited', at, version: 1, seq: 2 },
      ]);
      const cart = { ...userEvent(app, 'u-ev', 'page', now - 5_000), props: { path: '/cart', title: 'Your cart' } };
      const home = { ...userEvent(app, 'u-ev', 'page', now - 4_000), props: { path: '/home', title: 'Home' } };
      await insertEvents(chdb.analytics, [cart, home]);
      await worker.onInserted([cart, home].map((e) => ({ app_id: app, user_id: e.user_id, name: e.name, event_id: e.event_id })));
      await worker.scheduleDue();

      const expected = [
        ['s1', 'Weekly', runInvId(app, 'c-sched', `schedule:${runAt}`)],
        ['s2', 'Weekly', runInvId(app, 'c-sched', `schedule:${runAt}`)],
        ['s3', 'Weekly', runInvId(app, 'c-sched', `schedule:${runAt}`)],
        ['u-entry', 'Welcome Eve', runInvId(app, 'c-entry', `entry:seg-e:u-entry:${at}`)],
        ['u-ev', 'Your cart', runInvId(app, 'c-event', `event:${cart.event_id}`)],
      ];
      const requested = async () =>
        (await readRequested(bus, config.actionsTopic as string, app))
          .flatMap((m) => m.actions.map((a) => [a.user_id, a.content.title, a.inv_id]))
          .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
      await waitFor(async () => ((await requested()).length >= expected.length ? true : undefined), { timeoutMs: 60_000, what: 'five actions requested' });
      expect(await requested()).toEqual(expected);
      const rows = await chdb.analytics.query<{ user_id: string; trigger: string; outcome: string }>(
        'SELECT user_id, trigger, outcome FROM campaign_outcomes FINAL WHERE app_id = {app:String} ORDER BY user_id',
        { app },
      );
      expect(rows.map((r) => [r.user_id, r.trigger, r.outcome])).toEqual([
        ['s1', 'schedule', 'requested'],
        ['s2', 'schedule', 'requested'],
        ['s3', 'schedule', 'requested'],
        ['u-entry', 'segment_entry', 'requested'],
        ['u-ev', 'event', 'requested'],
      ]);
    } finally {
      await log.stop();
      await worker.stop();
      await bus.close();
    }
  });
});
