import { ManualClock, allTopics, createLogger, type Bus } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { useMigratedChdb, waitFor } from '@evp/testkit';
import { MemoryCampaigns } from '../testing';
import { TemplateEngine } from './templates';
import { createCampaignWorker, type CampaignWorker } from './worker';

// The worker's timers run on the clock it is given: a manual one decides when the campaign list is
// reloaded and when the schedule timer looks for due occurrences (on the multiples of its interval).
const chdb = useMigratedChdb('campaign_timers');
const logger = createLogger('campaign-timers-test', 'silent');
const T = Date.UTC(2026, 0, 10, 12, 0, 0);
const action = {
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: 'one-off',
  content: { title: 'Scheduled', body: 'body' },
  expired_at: '2027-01-01T00:00:00Z',
};

let worker: CampaignWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
});

const produced = async (w: CampaignWorker) =>
  ((await w.metrics.getSingleMetric('segmenter_campaign_trigger_items_produced_total')?.get())?.values ?? [])
    .filter((v) => v.labels.source === 'schedule')
    .reduce((n, v) => n + v.value, 0);

it('reloads the campaigns and looks for due occurrences on the multiples of their intervals of the injected clock', async () => {
  const bus: Bus = createInProcessBus({ retryDelayMs: 5, maxRetryDelayMs: 20 });
  await bus.ensureTopics(allTopics());
  const templates = new TemplateEngine();
  const campaigns = new MemoryCampaigns(templates);
  const clock = new ManualClock(T + 10_000);
  const app = 'app-timers';
  campaigns.save(app, 'c-1', { name: 'one', trigger: { schedule: { at: '2026-01-10T12:00:30Z' }, segment: 'seg' }, action });
  const w = createCampaignWorker({
    analytics: chdb.analytics,
    bus,
    registry: createInProcessRegistry(),
    logger,
    campaigns,
    templates,
    clock,
    config: { refreshIntervalMs: 5_000, scheduleIntervalMs: 60_000 },
  });
  worker = w;
  await w.start();
  // Due since T + 30 s, but the schedule timer first looks at T + 60 s.
  await clock.advance(49_999);
  expect(await produced(w)).toBe(0);
  await clock.advance(1);
  await waitFor(async () => (await produced(w)) === 1 || undefined, { timeoutMs: 5_000, what: 'the occurrence produced at T + 60 s' });
  // A campaign saved now is in the list from the next reload (T + 65 s) and run at the next look (T + 120 s).
  campaigns.save(app, 'c-2', { name: 'two', trigger: { schedule: { at: '2026-01-10T12:01:01Z' }, segment: 'seg' }, action });
  await clock.advance(59_999);
  expect(await produced(w)).toBe(1);
  await clock.advance(1);
  await waitFor(async () => (await produced(w)) === 2 || undefined, { timeoutMs: 5_000, what: 'the second campaign’s occurrence at T + 120 s' });
  // Each occurrence once: the next looks find nothing new.
  await clock.advance(120_000);
  expect(await produced(w)).toBe(2);
});
