import { formatDateTime64 } from '@evp/clickhouse';
import { DEFAULT_RETENTION, allTopics, createLogger, readDeadLetter, topics, type Bus, type DeadLetter } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { suppressedOn, useMigratedChdb, waitFor } from '@evp/testkit';
import { createChangeLog, createMembershipState } from '../segments';
import { insertEvents, MemoryCampaigns, readRequested, userEvent } from '../testing';
import { runInvId, variantActionId } from './ids';
import { TemplateEngine } from './templates';
import { triggerMessage } from './trigger-items';
import { createCampaignWorker, type CampaignWorker } from './worker';

// The campaign worker on the embedded adapters (in-process bus and registry, chdb), with an
// injected clock: each trigger kind up to the `actions.requested` messages and the outcome rows.
const chdb = useMigratedChdb('campaigns');
const logger = createLogger('campaigns-test', 'silent');
const T = Date.UTC(2026, 0, 10, 12, 0, 0);
let clock = T;
const running: CampaignWorker[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.stop()));
  clock = T;
});

const action = (title: string, body = 'body', extra: Record<string, unknown> = {}) => ({
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: 'one-off',
  content: { title, body },
  expired_at: '2027-01-01T00:00:00Z',
  ...extra,
});

const sum = async (w: CampaignWorker, name: string, labels: Record<string, string> = {}) => {
  const values = (await w.metrics.getSingleMetric(name)?.get())?.values ?? [];
  return values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((n, v) => n + v.value, 0);
};

/** Every dead letter on the bus, through the envelope's one reader. */
async function deadLetters(bus: Bus): Promise<DeadLetter[]> {
  const out: DeadLetter[] = [];
  await bus.scan(topics.deadLetters, 0, (m) => {
    const r = readDeadLetter(m);
    if (!r.ok) throw new Error(r.problem);
    out.push(r.letter);
  });
  return out;
}

async function setup(opts: { suppressed?: { appId: string; kind: 'user'; id: string }[] } = {}) {
  const bus: Bus = createInProcessBus({ retryDelayMs: 5, maxRetryDelayMs: 20 });
  await bus.ensureTopics(allTopics());
  const suppressions = opts.suppressed ? await suppressedOn(bus, 'campaign-suppression-test-key-0123456789', opts.suppressed) : undefined;
  const registry = createInProcessRegistry();
  const templates = new TemplateEngine();
  const campaigns = new MemoryCampaigns(templates);
  const worker = createCampaignWorker({
    analytics: chdb.analytics,
    bus,
    registry,
    logger,
    campaigns,
    templates,
    now: () => clock,
    config: { refreshIntervalMs: 0, scheduleIntervalMs: 0 },
    // Ten years of campaign history for every app: outcome rows carry it (016_retention.sql).
    retention: () => ({ ...DEFAULT_RETENTION, history: 3650 }),
    ...(suppressions ? { suppressions } : {}),
  });
  await worker.start();
  running.push(worker);
  /** Waits until every item produced so far was consumed. */
  const settled = () =>
    waitFor(
      async () =>
        (await sum(worker, 'segmenter_campaign_trigger_items_total')) >= (await sum(worker, 'segmenter_campaign_trigger_items_produced_total')) || undefined,
      { timeoutMs: 30_000, what: 'trigger items consumed' },
    );
  return { bus, registry, campaigns, worker, settled };
}

async function userRecords(app: string, records: Record<string, Record<string, unknown>>) {
  await chdb.analytics.insert(
    'catalog_user',
    Object.entries(records).map(([id, record]) => ({ app_id: app, id, received_at: formatDateTime64(T - 60_000), request_id: 'r', record: { id, ...record } })),
  );
}

const outcomes = (app: string) =>
  chdb.analytics.query<{
    campaign_id: string;
    inv_id: string;
    user_id: string;
    variant: number;
    action_id: string;
    outcome: string;
    reason: string;
    trigger: string;
    at: string;
  }>(
    `SELECT campaign_id, toString(inv_id) AS inv_id, user_id, variant, toString(action_id) AS action_id, outcome, reason, trigger, toString(at) AS at
     FROM campaign_outcomes FINAL WHERE app_id = {app:String} ORDER BY user_id`,
    { app },
  );

describe('campaign worker: api trigger', () => {
  it('renders from the user catalog and a catalog record, writes the outcome rows and requests the actions', async () => {
    const { bus, campaigns, worker, settled } = await setup();
    const app = 'app-api';
    await userRecords(app, { u1: { name: 'Ann' }, u2: { name: 'Bob' } });
    await chdb.analytics.insert('catalog_drug', [
      { app_id: app, id: 'D1', received_at: formatDateTime64(T), request_id: 'r', record: { id: 'D1', name: 'Aspirin' } },
    ]);
    const c = campaigns.save(app, 'c-api', {
      name: 'api',
      trigger: { api: true },
      action: action('{{ catalog.drug["D1"].name }} for {{ user.name }}', 'at {{ trigger.time }}', { tags: ['t'] }),
    });
    const r = await worker.triggerApi(app, c, ['u1', 'u2', 'u1']);
    expect(r.users).toBe(2);
    await settled();
    const aid = variantActionId(app, 'c-api', 1);
    const messages = await readRequested(bus, topics.actionsRequested, app);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.source).toBe('campaign:c-api');
    expect(messages[0]?.actions).toEqual(
      ['Ann', 'Bob'].map((name, i) => ({
        user_id: `u${i + 1}`,
        type: 'message',
        render_method: 'push_notification',
        delivery_mode: 'one-off',
        content: { title: `Aspirin for ${name}`, body: `at ${new Date(T).toISOString()}` },
        attr: {},
        tags: ['t'],
        expired_at: '2027-01-01T00:00:00Z',
        inv_id: r.inv_id,
        action_id: aid,
      })),
    );
    expect(await outcomes(app)).toEqual(
      ['u1', 'u2'].map((u) => ({
        campaign_id: 'c-api',
        inv_id: String(r.inv_id),
        user_id: u,
        variant: 1,
        action_id: String(aid),
        outcome: 'requested',
        reason: '',
        trigger: 'api',
        at: '2026-01-10 12:00:00.000',
      })),
    );
    expect(await chdb.analytics.query('SELECT DISTINCT retention_days FROM campaign_outcomes WHERE app_id = {app:String}', { app })).toEqual([
      { retention_days: 3650 },
    ]);
  });

  it('skips a user whose template variable is missing, with the reason, and requests the others', async () => {
    const { bus, campaigns, worker, settled } = await setup();
    const app = 'app-missing';
    await userRecords(app, { u1: { name: 'Ann' } });
    const c = campaigns.save(app, 'c-missing', { name: 'm', trigger: { api: true }, action: action('Hi {{ user.name }}') });
    await worker.triggerApi(app, c, ['u1', 'u2']);
    await settled();
    const actions = (await readRequested(bus, topics.actionsRequested, app)).flatMap((m) => m.actions);
    expect(actions.map((a) => [a.user_id, a.content.title])).toEqual([['u1', 'Hi Ann']]);
    expect((await outcomes(app)).map((o) => [o.user_id, o.outcome, o.reason])).toEqual([
      ['u1', 'requested', ''],
      ['u2', 'skipped', 'template_variable_missing: user.name'],
    ]);
  });

  it('skips a suppressed (erased) user: no outcome row, no action, counted; the others are acted on', async () => {
    const app = 'app-suppressed';
    const { bus, campaigns, worker, settled } = await setup({ suppressed: [{ appId: app, kind: 'user', id: 'u-gone' }] });
    await userRecords(app, { 'u-gone': { name: 'Gone' }, 'u-kept': { name: 'Kept' } });
    const c = campaigns.save(app, 'c-supp', { name: 's', trigger: { api: true }, action: action('Hi {{ user.name }}') });
    await worker.triggerApi(app, c, ['u-gone', 'u-kept']);
    await settled();
    const actions = (await readRequested(bus, topics.actionsRequested, app)).flatMap((m) => m.actions);
    expect(actions.map((a) => [a.user_id, a.content.title])).toEqual([['u-kept', 'Hi Kept']]);
    expect((await outcomes(app)).map((o) => [o.user_id, o.outcome])).toEqual([['u-kept', 'requested']]);
    expect(await sum(worker, 'segmenter_campaign_suppressed_total')).toBe(1);
  });

  it('holds out 10% of 10,000 users (within ±1%), in messages of at most 1,000 actions (one per batch of 1,000 users)', async () => {
    const { bus, campaigns, worker, settled } = await setup();
    const app = 'app-holdout';
    const c = campaigns.save(app, 'c-holdout', { name: 'h', trigger: { api: true }, action: action('Hello'), holdout: 0.1 });
    const users = Array.from({ length: 10_000 }, (_, i) => `user-${i}`);
    await worker.triggerApi(app, c, users);
    await settled();
    const counts = await chdb.analytics.query<{ outcome: string; n: string }>(
      'SELECT outcome, toString(count()) AS n FROM campaign_outcomes FINAL WHERE app_id = {app:String} GROUP BY outcome ORDER BY outcome',
      { app },
    );
    const control = Number(counts.find((x) => x.outcome === 'control')?.n);
    const requested = Number(counts.find((x) => x.outcome === 'requested')?.n);
    // Binomial(10,000, 0.1): sd = 30, so ±100 is ±3.3 sd (a fair hash leaves it with p ≈ 0.001).
    expect(control).toBeGreaterThanOrEqual(900);
    expect(control).toBeLessThanOrEqual(1100);
    expect(control + requested).toBe(10_000);
    const messages = await readRequested(bus, topics.actionsRequested, app);
    expect(messages.every((m) => m.actions.length <= 1000)).toBe(true);
    expect(messages).toHaveLength(10);
    expect(messages.reduce((n, m) => n + m.actions.length, 0)).toBe(requested);
  });

  it('dead-letters a message that is no trigger item, with its provenance, and acts on the items beside it', async () => {
    const { bus, campaigns, worker, settled } = await setup();
    const app = 'app-poison';
    const c = campaigns.save(app, 'c-poison', { name: 'p', trigger: { api: true }, action: action('ok') });
    const producer = await bus.producer();
    // Same key as the campaign's items: the same partition, before the good item.
    await producer.send(topics.campaignsTriggers, [{ key: `${app}:c-poison`, value: Buffer.from('{"kind":"users","app_id":"x"}') }]);
    await producer.close();
    await worker.triggerApi(app, c, ['u1']);
    await settled();
    const dead = await deadLetters(bus);
    expect(dead.map(({ failedAt, value, ...rest }) => ({ ...rest, value: value.toString(), recent: Math.abs(failedAt - Date.now()) < 60_000 }))).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        source: { topic: topics.campaignsTriggers, partition: expect.any(Number), offset: '0', key: `${app}:c-poison` },
        group: 'segmenter-campaigns',
        error: {
          kind: 'invalid',
          message: `not a campaign trigger item (campaign_id: expected a string, got undefined): ${topics.campaignsTriggers}/${dead[0]?.source.partition}/0`,
          retriable: false,
        },
        processor: { name: 'segmenter-campaigns', version: '0.1.0' },
        headers: {},
        replay: null,
        value: '{"kind":"users","app_id":"x"}',
        recent: true,
      },
    ]);
    // Counted (dead_letters_total), and the partition moved on: the good item behind it was acted on.
    expect(bus.deadLetterCounts()).toEqual([{ sourceTopic: topics.campaignsTriggers, group: 'segmenter-campaigns', count: 1 }]);
    expect((await readRequested(bus, topics.actionsRequested, app)).flatMap((m) => m.actions.map((a) => a.user_id))).toEqual(['u1']);
  });

  it('dead-letters a segments.membership record it cannot read (it was cast unchecked), and reads the next one', async () => {
    const { bus, worker } = await setup();
    const producer = await bus.producer();
    await producer.send(topics.segmentsMembership, [{ key: 'app-entry-poison:u1', value: Buffer.from('not avro') }]);
    await producer.close();
    const dead = await waitFor(async () => ((await deadLetters(bus)).length === 1 ? deadLetters(bus) : undefined), {
      timeoutMs: 10_000,
      what: 'the dead letter',
    });
    expect(
      dead.map((d) => [d.source.topic, d.source.key, d.group, d.error.kind, d.error.message.startsWith('not a membership record: '), d.processor.name]),
    ).toEqual([[topics.segmentsMembership, 'app-entry-poison:u1', 'segmenter-campaign-entries', 'unreadable', true, 'segmenter-campaigns']]);
    expect(bus.deadLetterCounts()).toEqual([{ sourceTopic: topics.segmentsMembership, group: 'segmenter-campaign-entries', count: 1 }]);
    expect(worker.health()).toEqual({ state: 'running' });
  });

  it('does nothing for a paused campaign or a trigger before start_at', async () => {
    const { bus, campaigns, worker, settled } = await setup();
    const app = 'app-notlive';
    const paused = campaigns.save(app, 'c-paused', { name: 'p', trigger: { api: true }, action: action('x') }, { state: 'paused' });
    const later = campaigns.save(app, 'c-later', { name: 'l', trigger: { api: true }, action: action('x'), start_at: '2026-02-01T00:00:00Z' });
    await worker.triggerApi(app, paused, ['u1']);
    await worker.triggerApi(app, later, ['u1']);
    await settled();
    expect(await sum(worker, 'segmenter_campaign_trigger_items_total', { outcome: 'rejected' })).toBe(2);
    expect(await readRequested(bus, topics.actionsRequested, app)).toEqual([]);
    expect(await outcomes(app)).toEqual([]);
  });
});

describe('campaign worker: local time', () => {
  it('quiet hours 21:00–08:00 at +05:45, −09:30 and across the New York DST change; expiry counts from availability', async () => {
    const { bus, campaigns, worker, settled } = await setup();
    const app = 'app-local';
    await userRecords(app, {
      ktm: { timezone: 'Asia/Kathmandu' },
      mrq: { timezone: 'Pacific/Marquesas' },
      nyc: { timezone: 'America/New_York' },
    });
    const c = campaigns.save(app, 'c-local', {
      name: 'local',
      trigger: { api: true },
      action: { ...action('x'), expired_at: undefined, expires_after: 'P1D' },
      quiet_hours: { start: '21:00', end: '08:00' },
    });
    // 16:00Z: 21:45 in Kathmandu (quiet until 08:00 = 02:15Z), 06:30 in the Marquesas (quiet until 08:00 = 17:30Z).
    clock = Date.UTC(2026, 2, 8, 16, 0);
    await worker.triggerApi(app, c, ['ktm', 'mrq']);
    // 06:30Z on 8 March 2026 is 01:30 EST; the clocks go to EDT at 02:00, so 08:00 local is 12:00Z (not 13:00Z).
    clock = Date.UTC(2026, 2, 8, 6, 30);
    await worker.triggerApi(app, c, ['nyc']);
    await settled();
    const actions = (await readRequested(bus, topics.actionsRequested, app)).flatMap((m) => m.actions);
    const byUser = Object.fromEntries(actions.map((a) => [a.user_id, [a.available_at, a.expired_at]]));
    expect(byUser).toEqual({
      ktm: ['2026-03-09T02:15:00.000Z', '2026-03-10T02:15:00.000Z'],
      mrq: ['2026-03-08T17:30:00.000Z', '2026-03-09T17:30:00.000Z'],
      nyc: ['2026-03-08T12:00:00.000Z', '2026-03-09T12:00:00.000Z'],
    });
  });

  it('attaches the campaign cap and the app cap (unless ignore_app_cap)', async () => {
    const { bus, campaigns, worker, settled } = await setup();
    const app = 'app-caps';
    campaigns.setSettings(app, { max_per_user_per_day: 3 });
    const capped = campaigns.save(app, 'c-capped', { name: 'a', trigger: { api: true }, action: action('x'), caps: { per_user: { max: 2, within: 'P7D' } } });
    const ignoring = campaigns.save(app, 'c-ignoring', { name: 'b', trigger: { api: true }, action: action('x'), caps: { ignore_app_cap: true } });
    await worker.triggerApi(app, capped, ['u1']);
    await worker.triggerApi(app, ignoring, ['u1']);
    await settled();
    const messages = await readRequested(bus, topics.actionsRequested, app);
    const caps = Object.fromEntries(messages.map((m) => [m.source, m.actions[0]?.caps]));
    expect(caps).toEqual({
      'campaign:c-capped': { campaign: { key: 'c-capped', max: 2, within_ms: 7 * 86_400_000 }, app: { max: 3 } },
      'campaign:c-ignoring': undefined,
    });
  });
});

describe('campaign worker: segment entry, event and schedule triggers', () => {
  it('an entered record triggers each active campaign on that segment; an exit triggers nothing', async () => {
    const { bus, registry, campaigns, worker, settled } = await setup();
    const app = 'app-entry';
    campaigns.save(app, 'c-entry', { name: 'e', trigger: { segment_entry: 'seg-1' }, action: action('Welcome') });
    campaigns.save(app, 'c-other', { name: 'o', trigger: { segment_entry: 'seg-2' }, action: action('Other') });
    await worker.refresh();
    const log = createChangeLog({ bus, registry, topic: topics.segmentsMembership });
    await log.start();
    const at = T - 1_000;
    await log.publish([
      { app_id: app, segment_id: 'seg-1', user_id: 'u1', change: 'entered', at, version: 1, seq: 1 },
      { app_id: app, segment_id: 'seg-1', user_id: 'u2', change: 'exited', at, version: 1, seq: 2 },
    ]);
    await log.stop();
    await waitFor(async () => (await sum(worker, 'segmenter_campaign_trigger_items_produced_total', { source: 'segment_entry' })) === 1 || undefined);
    await settled();
    const actions = (await readRequested(bus, topics.actionsRequested, app)).flatMap((m) => m.actions);
    expect(actions.map((a) => [a.user_id, a.content.title, a.inv_id])).toEqual([['u1', 'Welcome', runInvId(app, 'c-entry', `entry:seg-1:u1:${at}`)]]);
    expect((await outcomes(app)).map((o) => [o.user_id, o.trigger, o.at])).toEqual([['u1', 'segment_entry', '2026-01-10 11:59:59.000']]);
  });

  it('entries of one campaign consumed in one batch are acted on together: one actions message per campaign, each user with its own run', async () => {
    const { bus, campaigns, worker, settled } = await setup();
    const app = 'app-entries';
    campaigns.save(app, 'c-a', { name: 'a', trigger: { segment_entry: 'seg-a' }, action: action('A') });
    campaigns.save(app, 'c-b', { name: 'b', trigger: { segment_entry: 'seg-b' }, action: action('B') });
    campaigns.save(app, 'c-off', { name: 'off', trigger: { segment_entry: 'seg-off' }, action: action('Off') }, { state: 'paused' });
    // 300 entry items, the two live campaigns interleaved and a paused one among them, in one send:
    // one batch of the trigger consumer.
    const items = Array.from({ length: 300 }, (_, i) => {
      const [campaign, segment] = i % 3 === 0 ? ['c-off', 'seg-off'] : i % 3 === 1 ? ['c-a', 'seg-a'] : ['c-b', 'seg-b'];
      const at = T - 10_000 + i;
      return triggerMessage({
        kind: 'users',
        app_id: app,
        campaign_id: campaign,
        run_key: `entry:${segment}:u${i}:${at}`,
        trigger: 'segment_entry',
        at,
        users: [{ user_id: `u${i}` }],
      });
    });
    const producer = await bus.producer();
    await producer.send(topics.campaignsTriggers, items);
    await producer.close();
    await waitFor(async () => (await sum(worker, 'segmenter_campaign_trigger_items_total')) === 300 || undefined, { timeoutMs: 30_000 });
    await settled();
    const messages = await readRequested(bus, topics.actionsRequested, app);
    expect(messages.map((m) => [m.actions.length, m.actions[0]?.content.title])).toEqual([
      [100, 'A'],
      [100, 'B'],
    ]);
    const expected = Array.from({ length: 300 }, (_, i) => i)
      .filter((i) => i % 3 !== 0)
      .map((i) => {
        const [campaign, segment] = i % 3 === 1 ? ['c-a', 'seg-a'] : ['c-b', 'seg-b'];
        return [`u${i}`, runInvId(app, campaign, `entry:${segment}:u${i}:${T - 10_000 + i}`)];
      });
    const sortByUser = (xs: (string | number)[][]) => [...xs].sort((x, y) => String(x[0]).localeCompare(String(y[0])));
    expect(sortByUser(messages.flatMap((m) => m.actions.map((a) => [a.user_id, a.inv_id])))).toEqual(sortByUser(expected));
    const rows = await outcomes(app);
    expect(rows).toHaveLength(200);
    expect(rows.every((o) => o.outcome === 'requested' && o.trigger === 'segment_entry')).toBe(true);
    expect(await sum(worker, 'segmenter_campaign_trigger_items_total', { outcome: 'rejected' })).toBe(100);
    expect(await sum(worker, 'segmenter_campaign_users_total', { outcome: 'requested' })).toBe(200);
  });

  it("an inserted event matching the trigger's where triggers one run per event, with the event's properties", async () => {
    const { bus, campaigns, worker, settled } = await setup();
    const app = 'app-event';
    campaigns.save(app, 'c-event', {
      name: 'ev',
      trigger: { event: { event: 'page', where: [{ prop: 'path', op: 'eq', value: '/cart' }] } },
      action: action('Back to {{ event.title }}'),
    });
    await worker.refresh();
    const cart = { ...userEvent(app, 'u1', 'page', T - 5_000), props: { path: '/cart', title: 'Cart' } };
    const home = { ...userEvent(app, 'u2', 'page', T - 4_000), props: { path: '/home', title: 'Home' } };
    const other = { ...userEvent(app, 'u3', 'identify', T - 3_000), props: { action: 'login' } };
    await insertEvents(chdb.analytics, [cart, home, other]);
    await worker.onInserted([cart, home, other].map((e) => ({ app_id: app, user_id: e.user_id, name: e.name, event_id: e.event_id })));
    await settled();
    const actions = (await readRequested(bus, topics.actionsRequested, app)).flatMap((m) => m.actions);
    expect(actions.map((a) => [a.user_id, a.content.title, a.inv_id])).toEqual([['u1', 'Back to Cart', runInvId(app, 'c-event', `event:${cart.event_id}`)]]);
    expect((await outcomes(app)).map((o) => [o.user_id, o.trigger, o.at])).toEqual([['u1', 'event', '2026-01-10 11:59:55.000']]);
  });

  it("a due schedule runs over the segment's current members once per occurrence", async () => {
    const { bus, campaigns, worker, settled } = await setup();
    const app = 'app-schedule';
    const state = createMembershipState(chdb.analytics);
    const row = (user_id: string, is_member: boolean, seq: number) => ({
      user_id,
      is_member,
      entered_at: T - 3_600_000,
      exited_at: is_member ? null : T - 1_800_000,
      version: 1,
      seq,
      emitted: true,
      written_at: T,
    });
    await state.write(app, 'seg-s', [row('u1', true, 1), row('u2', true, 1), row('u3', false, 2)]);
    campaigns.save(app, 'c-sched', { name: 's', trigger: { schedule: { at: '2026-01-10T11:30:00Z' }, segment: 'seg-s' }, action: action('Scheduled') });
    campaigns.save(app, 'c-future', { name: 'f', trigger: { schedule: { at: '2026-01-11T00:00:00Z' }, segment: 'seg-s' }, action: action('Later') });
    await worker.refresh();
    await worker.scheduleDue();
    await worker.scheduleDue();
    await settled();
    expect(await sum(worker, 'segmenter_campaign_trigger_items_produced_total', { source: 'schedule' })).toBe(1);
    const runAt = Date.UTC(2026, 0, 10, 11, 30);
    const actions = (await readRequested(bus, topics.actionsRequested, app)).flatMap((m) => m.actions);
    expect(actions.map((a) => [a.user_id, a.content.title, a.inv_id])).toEqual(
      ['u1', 'u2'].map((u) => [u, 'Scheduled', runInvId(app, 'c-sched', `schedule:${runAt}`)]),
    );
    expect((await outcomes(app)).map((o) => [o.user_id, o.trigger, o.at])).toEqual([
      ['u1', 'schedule', '2026-01-10 11:30:00.000'],
      ['u2', 'schedule', '2026-01-10 11:30:00.000'],
    ]);
  });
});
