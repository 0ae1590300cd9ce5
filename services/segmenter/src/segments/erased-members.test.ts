import { allTopics, createLogger } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { useMigratedChdb } from '@evp/testkit';
import type { Condition } from '@evp/segment-language';
import { type EngineHarness, insertEvents, readMembership, startEngine, userEvent } from '../testing';
import { createPrivacyService, type ErasureRequest } from '../privacy';

// An erasure deletes a person's events before their memberships (privacy/targets.ts). A full
// evaluation in between sees a member with no events left: without the check, that is an `exited`
// for the person being erased, and a row written back into segment_members.
const chdb = useMigratedChdb('segments_erased');
const HOUR = 3_600_000;
const T = Date.UTC(2026, 0, 10, 12, 0, 0);
const buyers: Condition = { event: 'purchase', count: { gte: 2 }, within: 'P1D' };
const running: EngineHarness[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.stop()));
});

async function setup(app: string) {
  const bus = createInProcessBus({ retryDelayMs: 5, maxRetryDelayMs: 20 });
  await bus.ensureTopics(allTopics());
  const registry = createInProcessRegistry();
  let clock = T;
  const h = await startEngine({ analytics: chdb.analytics, bus, registry, now: () => clock });
  running.push(h);
  const seg = await h.engine.definitions.create(app, { name: 'buyers', definition: buyers });
  await h.engine.refresh();
  const users = ['u-gone', 'u-kept'];
  await insertEvents(
    chdb.analytics,
    users.flatMap((u) => [userEvent(app, u, 'purchase', T - HOUR), userEvent(app, u, 'purchase', T - HOUR / 2)]),
  );
  await h.engine.onInserted(users.map((u) => ({ app_id: app, user_id: u, name: 'purchase' })));
  await h.settled();
  const changes = async () => (await readMembership(bus, registry)).map((r) => `${r.change.user_id} ${r.change.change} ${r.change.seq}`).sort();
  expect(await changes()).toEqual(['u-gone entered 1', 'u-kept entered 1']);
  // A minute on each time: a full evaluation already started at the request's instant covers it.
  const recompute = async () => {
    clock += 60_000;
    await h.engine.scheduler.requestRecompute(app, seg.id);
    await h.settled();
  };
  /** The user's rows: every version with the deleted mask ignored, or (`physical` false) the latest as queries see it. */
  const rows = async (user: string, physical = true) =>
    (
      await chdb.analytics.query<{ n: number }>(
        physical
          ? 'SELECT count() AS n FROM segment_members WHERE app_id = {app:String} AND user_id = {user:String} SETTINGS apply_deleted_mask = 0'
          : 'SELECT count() AS n FROM segment_members FINAL WHERE app_id = {app:String} AND user_id = {user:String}',
        { app, user },
      )
    )[0]?.n;
  return { h, seg, changes, recompute, rows };
}

describe('segment membership of an erased person', () => {
  it('emits no exited and writes no row for a person while their erasure deletes their events, nor after it', async () => {
    const app = 'app-erased';
    const { changes, recompute, rows } = await setup(app);
    const privacy = createPrivacyService({ analytics: chdb.analytics, logger: createLogger('test', 'silent'), hashKey: 'test-key' });
    const r = await privacy.createErasure(app, [{ kind: 'user', id: 'u-gone' }]);
    // Mid-`deleting`, as the processor leaves it between the events' statement and segment_members'.
    await chdb.analytics.command(`DELETE FROM events WHERE app_id = {app:String} AND user_id = 'u-gone'`, { app });
    await recompute();
    expect(await changes()).toEqual(['u-gone entered 1', 'u-kept entered 1']);
    // The processor carries the request to its end: every row of the person gone, the mask ignored.
    await privacy.runOnce();
    expect(((await privacy.get(app, 'erasure', r.id)) as ErasureRequest).state).toBe('completed');
    expect(await rows('u-gone')).toBe(0);
    await recompute();
    expect(await changes()).toEqual(['u-gone entered 1', 'u-kept entered 1']);
    expect(await rows('u-gone')).toBe(0);
    // Everyone else is evaluated as before: the kept user still a member, and exits when their events go.
    await chdb.analytics.command(`DELETE FROM events WHERE app_id = {app:String} AND user_id = 'u-kept'`, { app });
    await recompute();
    expect(await changes()).toEqual(['u-gone entered 1', 'u-kept entered 1', 'u-kept exited 2']);
  });

  it('does not write back the emitted mark it held for a person whose rows the erasure deleted', async () => {
    const app = 'app-erased-marks';
    const { h, rows } = await setup(app);
    const privacy = createPrivacyService({ analytics: chdb.analytics, logger: createLogger('test', 'silent'), hashKey: 'test-key' });
    await privacy.createErasure(app, [{ kind: 'user', id: 'u-gone' }]);
    // The processor's statement on segment_members, while the engine still holds the entry's mark
    // (written within a second, or when the engine stops, below).
    await chdb.analytics.command(`DELETE FROM segment_members WHERE app_id = {app:String} AND user_id = 'u-gone'`, { app });
    await h.stop();
    running.splice(running.indexOf(h), 1);
    expect([await rows('u-gone', false), await rows('u-kept', false)]).toEqual([0, 1]);
  });
});
