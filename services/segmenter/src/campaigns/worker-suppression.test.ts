import { formatDateTime64 } from '@evp/clickhouse';
import { DEFAULT_RETENTION, createLogger, topics } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { suppressedOn, useMigratedChdb, waitFor } from '@evp/testkit';
import { MemoryCampaigns, readRequested } from '../testing';
import { TemplateEngine } from './templates';
import { createCampaignWorker } from './worker';

const chdb = useMigratedChdb('campaigns_suppressed');
const logger = createLogger('campaigns-test', 'silent');
const T = Date.UTC(2026, 0, 10, 12, 0, 0);
const hashKey = 'campaign-suppression-test-key-0123456789';

describe('campaign worker: suppressed users', () => {
  it('skips a suppressed user: no outcome row, no action, counted; the others are acted on', async () => {
    const app = 'app-supp';
    const bus = createInProcessBus({ retryDelayMs: 5 });
    const suppressions = await suppressedOn(bus, hashKey, [{ appId: app, kind: 'user', id: 'u-gone' }]);
    const templates = new TemplateEngine();
    const campaigns = new MemoryCampaigns(templates);
    const worker = createCampaignWorker({
      analytics: chdb.analytics,
      bus,
      registry: createInProcessRegistry(),
      logger,
      campaigns,
      templates,
      now: () => T,
      config: { refreshIntervalMs: 0, scheduleIntervalMs: 0 },
      retention: () => ({ ...DEFAULT_RETENTION, history: 3650 }),
      suppressions,
    });
    await worker.start();
    await chdb.analytics.insert(
      'catalog_user',
      ['u-gone', 'u-kept'].map((id) => ({ app_id: app, id, received_at: formatDateTime64(T - 60_000), request_id: 'r', record: { id } })),
    );
    const c = campaigns.save(app, 'c-supp', {
      name: 'supp',
      trigger: { api: true },
      action: {
        type: 'message',
        render_method: 'push_notification',
        delivery_mode: 'one-off',
        content: { title: 'Hi', body: 'b' },
        expired_at: '2027-01-01T00:00:00Z',
      },
    });
    await worker.triggerApi(app, c, ['u-gone', 'u-kept']);
    const suppressed = async () => (await worker.metrics.getSingleMetric('segmenter_campaign_suppressed_total')?.get())?.values[0]?.value;
    await waitFor(async () => ((await suppressed()) === 1 ? true : undefined), { timeoutMs: 30_000, what: 'the suppressed user skipped' });
    const actions = await waitFor(
      async () => {
        const a = (await readRequested(bus, topics.actionsRequested, app)).flatMap((m) => m.actions);
        return a.length > 0 ? a : undefined;
      },
      { timeoutMs: 30_000, what: 'the kept user’s action' },
    );
    expect(actions.map((a) => a.user_id)).toEqual(['u-kept']);
    const rows = await chdb.analytics.query<{ user_id: string }>('SELECT user_id FROM campaign_outcomes FINAL WHERE app_id = {app:String} ORDER BY user_id', {
      app,
    });
    expect(rows).toEqual([{ user_id: 'u-kept' }]);
    await worker.stop();
    await suppressions.close();
    await bus.close();
  });
});
