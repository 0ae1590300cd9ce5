import { topics, type AppRetention } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { suppressedOn, useMigratedChdb, waitFor } from '@evp/testkit';
import { pageEvent, startSinkHarness } from '../testing';

const chdb = useMigratedChdb('sink_suppressed');
const FOREVER: AppRetention = { events: 0, rejected: 0, catalogs: 0, action_log: 0, history: 0 };
const hashKey = 'sink-suppression-test-key-0123456789abc';

describe('sink: rows of suppressed people', () => {
  it('drops the events of a suppressed user still in flight, counted, and inserts the others', async () => {
    const bus = createInProcessBus({ retryDelayMs: 5 });
    const suppressions = await suppressedOn(bus, hashKey, [{ appId: 'app-1', kind: 'user', id: 'u-gone' }]);
    const h = await startSinkHarness({ bus, registry: createInProcessRegistry(), analytics: chdb.analytics, retention: () => FOREVER, suppressions });
    const gone = { ...pageEvent, user_id: 'u-gone', event_id: 'a'.repeat(32) };
    const kept = { ...pageEvent, user_id: 'u-kept', event_id: 'b'.repeat(32) };
    await h.send(topics.events('core'), [await h.event(gone), await h.event(kept)]);
    const users = await waitFor(
      async () => {
        const r = await chdb.analytics.query<{ user_id: string }>(`SELECT user_id FROM events WHERE app_id = 'app-1' ORDER BY user_id`);
        return r.length > 0 ? r : undefined;
      },
      { timeoutMs: 10_000, what: 'the kept row' },
    );
    expect(users).toEqual([{ user_id: 'u-kept' }]);
    const metric = (await h.sink.metrics.getMetricsAsJSON()).find((m) => m.name === 'segmenter_sink_suppressed_total');
    expect(metric?.values).toEqual([{ value: 1, labels: { table: 'events' } }]);
    await suppressions.close();
    await h.close();
  });
});
