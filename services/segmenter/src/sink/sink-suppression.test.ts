import { topics, type AppRetention } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { actionLogEntrySchema, blockSubject, type ActionLogEntry } from '@evp/schemas';
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

  it('drops an action log entry of a suppressed user published after the erasure (the relay held it), and inserts the others', async () => {
    const bus = createInProcessBus({ retryDelayMs: 5 });
    const suppressions = await suppressedOn(bus, hashKey, [{ appId: 'app-log', kind: 'user', id: 'u-gone' }]);
    const registry = createInProcessRegistry();
    const h = await startSinkHarness({ bus, registry, analytics: chdb.analytics, retention: () => FOREVER, suppressions });
    const id = await registry.register(blockSubject(topics.actionsLog), actionLogEntrySchema);
    const entry = (user: string): ActionLogEntry => ({
      entry_id: `e-${user}`,
      kind: 'delivered',
      app_id: 'app-log',
      user_id: user,
      inv_id: 1,
      action_id: 7,
      at: Date.UTC(2030, 0, 1),
      created_at: Date.UTC(2030, 0, 1),
      type: 'message',
      render_method: 'push_notification',
      delivery_mode: 'one-off',
      expired_at: Date.UTC(2030, 1, 1),
      tags: [],
      attr: {},
      source: '',
      reason: '',
      available_at: null,
    });
    // The same user id in another app is not suppressed there.
    const otherApp = { ...entry('u-gone'), app_id: 'app-other', entry_id: 'e-other-app' };
    await h.send(
      topics.actionsLog,
      await Promise.all(
        [entry('u-gone'), entry('u-kept'), otherApp].map(async (e) => ({ key: `${e.app_id}:${e.user_id}`, value: await registry.encode(id, e) })),
      ),
    );
    const rows = await waitFor(
      async () => {
        const r = await chdb.analytics.query<{ app_id: string; user_id: string }>(
          `SELECT app_id, user_id FROM actions_log WHERE app_id IN ('app-log', 'app-other') ORDER BY app_id, user_id`,
        );
        return r.length >= 2 ? r : undefined;
      },
      { timeoutMs: 10_000, what: 'the kept rows' },
    );
    expect(rows).toEqual([
      { app_id: 'app-log', user_id: 'u-kept' },
      { app_id: 'app-other', user_id: 'u-gone' },
    ]);
    const metric = (await h.sink.metrics.getMetricsAsJSON()).find((m) => m.name === 'segmenter_sink_suppressed_total');
    expect(metric?.values).toEqual([{ value: 1, labels: { table: 'actions_log' } }]);
    await suppressions.close();
    await h.close();
  });
});
