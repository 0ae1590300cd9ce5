import { APP_CAP_WINDOW_MS, ManualClock, actionLogEntryId, type ActionCaps, type ActionStore, type CreateResult } from '@evp/actions';
import { drainLog } from './action-store-log';
import { T0, freshStoreEachTest, ids, iso, q, sampleAction, type MakeActionStore } from './action-store-fixtures';

/**
 * The campaign part of the ActionStore conformance suite (run by describeActionStoreConformance for
 * every adapter): frequency caps checked atomically at creation, and `available_at`.
 */

const HOUR = 60 * 60 * 1000;

/** `<status>` or `capped:<reason>` per result: compact enough to assert exact sequences. */
const outcome = (results: CreateResult[]) => results.map((r) => (r.reason === undefined ? r.status : `${r.status}:${r.reason}`));

export function describeActionStoreCampaignConformance(name: string, makeStore: MakeActionStore): void {
  describe(`ActionStore conformance, campaigns: ${name}`, () => {
    let clock: ManualClock;
    let store: ActionStore;
    freshStoreEachTest(makeStore, (s) => ({ store, clock } = s));

    const campaign = (key: string, max: number, within_ms = HOUR): ActionCaps => ({ campaign: { key, max, within_ms } });
    const create = async (user_id: string, inv_id: number, caps: ActionCaps, action_id = 1) =>
      outcome(await store.create('app-a', [sampleAction({ user_id, inv_id, action_id, caps })]));

    describe('campaign cap', () => {
      it('allows max creations per user and key within the window, then refuses with campaign_cap', async () => {
        expect(await create('u1', 1, campaign('c1', 2))).toEqual(['created']);
        clock.advance(1000);
        expect(await create('u1', 2, campaign('c1', 2))).toEqual(['created']);
        expect(await create('u1', 3, campaign('c1', 2))).toEqual(['capped:campaign_cap']);
        // Other users and other keys have their own counters.
        expect(await create('u2', 3, campaign('c1', 2))).toEqual(['created']);
        expect(await create('u1', 3, campaign('c2', 2))).toEqual(['created']);
        expect(ids((await store.pull('app-a', q())).data)).toEqual(['u1/1:1', 'u1/2:1', 'u2/3:1', 'u1/3:1']);
      });

      it('makes a user eligible again once the oldest creation is within_ms old (rolling window)', async () => {
        expect(await create('u1', 1, campaign('c1', 1))).toEqual(['created']);
        clock.set(T0 + HOUR - 1);
        expect(await create('u1', 2, campaign('c1', 1))).toEqual(['capped:campaign_cap']);
        clock.set(T0 + HOUR);
        expect(await create('u1', 3, campaign('c1', 1))).toEqual(['created']);
        clock.set(T0 + 2 * HOUR - 1);
        expect(await create('u1', 4, campaign('c1', 1))).toEqual(['capped:campaign_cap']);
        clock.set(T0 + 2 * HOUR);
        // The capped action was never stored, so its redelivery is simply created now.
        expect(await create('u1', 4, campaign('c1', 1))).toEqual(['created']);
      });

      it('counts several actions of one call for one user in order', async () => {
        const results = await store.create('app-a', [
          sampleAction({ user_id: 'u1', inv_id: 1, action_id: 1, caps: campaign('c1', 2) }),
          sampleAction({ user_id: 'u2', inv_id: 1, action_id: 1, caps: campaign('c1', 2) }),
          sampleAction({ user_id: 'u1', inv_id: 1, action_id: 2, caps: campaign('c1', 2) }),
          sampleAction({ user_id: 'u1', inv_id: 1, action_id: 3, caps: campaign('c1', 2) }),
          sampleAction({ user_id: 'u1', inv_id: 1, action_id: 4 }),
        ]);
        expect(results).toEqual([
          { status: 'created', user_id: 'u1', inv_id: 1, action_id: 1 },
          { status: 'created', user_id: 'u2', inv_id: 1, action_id: 1 },
          { status: 'created', user_id: 'u1', inv_id: 1, action_id: 2 },
          { status: 'capped', reason: 'campaign_cap', user_id: 'u1', inv_id: 1, action_id: 3 },
          { status: 'created', user_id: 'u1', inv_id: 1, action_id: 4 },
        ]);
        expect(await store.stats('app-a', 3)).toBeNull();
      });

      it('never consumes a cap twice for a redelivered request: a duplicate is answered before the caps', async () => {
        const first = sampleAction({ user_id: 'u1', inv_id: 7, action_id: 1, caps: campaign('c1', 2) });
        expect(outcome(await store.create('app-a', [first]))).toEqual(['created']);
        expect(outcome(await store.create('app-a', [first, first]))).toEqual(['duplicate', 'duplicate']);
        expect(await create('u1', 8, campaign('c1', 2))).toEqual(['created']);
        // Now full: the redelivered first action is still a duplicate, not capped.
        expect(outcome(await store.create('app-a', [first]))).toEqual(['duplicate']);
        expect(await create('u1', 9, campaign('c1', 2))).toEqual(['capped:campaign_cap']);
      });

      it('answers expired and blocked before the caps, and neither consumes them', async () => {
        await store.create('app-a', [sampleAction({ user_id: 'u1', inv_id: 1, action_id: 5 })]);
        await store.recordFeedback('app-a', { user_id: 'u1', inv_id: 1, action_id: 5, response: 'block' });
        const results = await store.create('app-a', [
          sampleAction({ user_id: 'u1', inv_id: 2, action_id: 1, caps: campaign('c1', 1), expired_at: iso(T0) }),
          sampleAction({ user_id: 'u1', inv_id: 2, action_id: 5, caps: campaign('c1', 1) }),
          sampleAction({ user_id: 'u1', inv_id: 2, action_id: 2, caps: campaign('c1', 1) }),
          sampleAction({ user_id: 'u1', inv_id: 2, action_id: 3, caps: campaign('c1', 1) }),
        ]);
        expect(outcome(results)).toEqual(['expired', 'blocked', 'created', 'capped:campaign_cap']);
      });
    });

    describe('app cap', () => {
      const both = (key: string, appMax: number): ActionCaps => ({ ...campaign(key, 10), app: { max: appMax } });

      it('allows max actions carrying an app cap per user in 24 h across campaigns, then refuses with app_cap', async () => {
        expect(await create('u1', 1, both('c1', 2))).toEqual(['created']);
        expect(await create('u1', 2, both('c2', 2))).toEqual(['created']);
        expect(await create('u1', 3, both('c3', 2))).toEqual(['capped:app_cap']);
        expect(await create('u2', 3, both('c3', 2))).toEqual(['created']);
        clock.set(T0 + APP_CAP_WINDOW_MS - 1);
        expect(await create('u1', 4, both('c3', 2))).toEqual(['capped:app_cap']);
        clock.set(T0 + APP_CAP_WINDOW_MS);
        expect(await create('u1', 5, both('c3', 2))).toEqual(['created']);
      });

      it('neither counts nor limits actions without an app cap (campaigns that ignore it, the HTTP API)', async () => {
        expect(await create('u1', 1, campaign('c1', 5))).toEqual(['created']);
        expect(await create('u1', 2, {})).toEqual(['created']);
        expect(await create('u1', 3, both('c2', 1))).toEqual(['created']);
        expect(await create('u1', 4, both('c3', 1))).toEqual(['capped:app_cap']);
        expect(await create('u1', 5, campaign('c3', 5))).toEqual(['created']);
        expect(outcome(await store.create('app-a', [sampleAction({ user_id: 'u1', inv_id: 6, action_id: 1 })]))).toEqual(['created']);
      });

      it('reports campaign_cap when both are full; an action refused by one cap counts toward neither', async () => {
        expect(await create('u1', 1, { campaign: { key: 'c1', max: 1, within_ms: HOUR }, app: { max: 2 } })).toEqual(['created']);
        // The campaign cap refuses it: the app counter stays at 1.
        expect(await create('u1', 2, { campaign: { key: 'c1', max: 1, within_ms: HOUR }, app: { max: 2 } })).toEqual(['capped:campaign_cap']);
        expect(await create('u1', 3, both('c2', 2))).toEqual(['created']);
        // The app cap refuses it: c3's counter stays empty.
        expect(await create('u1', 4, { campaign: { key: 'c3', max: 1, within_ms: HOUR }, app: { max: 2 } })).toEqual(['capped:app_cap']);
        expect(await create('u1', 5, campaign('c3', 1))).toEqual(['created']);
        expect(await create('u1', 6, { campaign: { key: 'c1', max: 1, within_ms: HOUR }, app: { max: 2 } })).toEqual(['capped:campaign_cap']);
      });
    });

    it('logs a capped entry with its reason and what the action would have been; nothing else changes', async () => {
      clock.set(T0 + 0.25);
      await store.create(
        'app-a',
        [
          sampleAction({ user_id: 'u1', inv_id: 1, action_id: 1, caps: campaign('c1', 1) }),
          sampleAction({
            user_id: 'u1',
            inv_id: 1,
            action_id: 2,
            delivery_mode: 'cached',
            attr: { screen: 'home' },
            tags: ['campaign:c1'],
            expired_at: iso(T0 + HOUR),
            available_at: iso(T0 + 60_000),
            caps: { ...campaign('c1', 1), app: { max: 3 } },
          }),
        ],
        { source: 'campaign:c1' },
      );
      const log = await drainLog(store);
      expect(log.map((e) => `${e.kind} ${e.inv_id}:${e.action_id}`)).toEqual(['created 1:1', 'capped 1:2']);
      expect(log[1]).toEqual({
        entry_id: actionLogEntryId('app-a', '1:2:u1', T0, 'capped'),
        kind: 'capped',
        app_id: 'app-a',
        user_id: 'u1',
        inv_id: 1,
        action_id: 2,
        at: T0,
        created_at: T0,
        type: 'message',
        render_method: 'push_notification',
        delivery_mode: 'cached',
        expired_at: T0 + HOUR,
        tags: ['campaign:c1'],
        attr: { screen: 'home' },
        source: 'campaign:c1',
        reason: 'campaign_cap',
        available_at: T0 + 60_000,
      });
      expect(log[0]?.reason).toBe('');
      expect(await store.stats('app-a', 2)).toBeNull();
      expect(ids((await store.pull('app-a', q({ delivery_mode: 'cached' }))).data)).toEqual([]);
    });

    describe('available_at', () => {
      it('keeps a one-off action from every pull until available_at, then delivers it exactly once', async () => {
        const results = await store.create('app-a', [sampleAction({ user_id: 'u1', inv_id: 1, action_id: 1, available_at: iso(T0 + 60_000) })]);
        expect(outcome(results)).toEqual(['created']);
        clock.set(T0 + 59_999);
        expect(await store.pull('app-a', q({ user_id: 'u1' }))).toEqual({ data: [], more: false });
        expect(await store.pull('app-a', q())).toEqual({ data: [], more: false });
        clock.set(T0 + 60_000);
        const { data } = await store.pull('app-a', q({ user_id: 'u1' }));
        expect(ids(data)).toEqual(['u1/1:1']);
        // queued_at stays the creation time.
        expect(data[0]?.queued_at).toBe('2030-01-01T00:00:00.000000Z');
        expect(await store.pull('app-a', q())).toEqual({ data: [], more: false });
        expect((await store.stats('app-a', 1))?.totals).toMatchObject({ created: 1, delivered: 1 });
      });

      it('returns a cached action to every pull from available_at until it expires', async () => {
        await store.create('app-a', [
          sampleAction({ user_id: 'u1', inv_id: 1, action_id: 1, delivery_mode: 'cached', available_at: iso(T0 + 1000), expired_at: iso(T0 + 5000) }),
        ]);
        const cached = q({ user_id: 'u1', delivery_mode: 'cached' });
        expect((await store.pull('app-a', cached)).data).toEqual([]);
        clock.set(T0 + 1000);
        expect(ids((await store.pull('app-a', cached)).data)).toEqual(['u1/1:1']);
        expect(ids((await store.pull('app-a', q({ delivery_mode: 'cached' }))).data)).toEqual(['u1/1:1']);
        clock.set(T0 + 5000);
        expect((await store.pull('app-a', cached)).data).toEqual([]);
      });

      it('orders pulls by creation (queued_at), not by availability; pending actions never set more', async () => {
        await store.create('app-a', [sampleAction({ user_id: 'u1', inv_id: 1, action_id: 1, available_at: iso(T0 + 10_000) })]);
        clock.set(T0 + 1);
        await store.create('app-a', [
          sampleAction({ user_id: 'u1', inv_id: 1, action_id: 2 }),
          sampleAction({ user_id: 'u2', inv_id: 1, action_id: 3, available_at: iso(T0 + 20_000) }),
          sampleAction({ user_id: 'u2', inv_id: 1, action_id: 4, available_at: iso(T0 + 10_000), attr: { k: 'v' } }),
        ]);
        expect(await store.pull('app-a', q({ user_id: 'u2' }), { max: 1 })).toEqual({ data: [], more: false });
        clock.set(T0 + 10_000);
        expect(ids((await store.pull('app-a', q({ attr: { k: 'v' } }))).data)).toEqual(['u2/1:4']);
        expect(ids((await store.pull('app-a', q())).data)).toEqual(['u1/1:1', 'u1/1:2']);
        clock.set(T0 + 20_000);
        expect(ids((await store.pull('app-a', q())).data)).toEqual(['u2/1:3']);
      });

      it('refuses as expired an action that would expire no later than it becomes available', async () => {
        const results = await store.create('app-a', [
          sampleAction({ user_id: 'u1', inv_id: 1, action_id: 1, available_at: iso(T0 + 5000), expired_at: iso(T0 + 5000) }),
          sampleAction({ user_id: 'u1', inv_id: 1, action_id: 2, available_at: iso(T0 + 5000), expired_at: iso(T0 + 6000) }),
          // An available_at already passed means available at once.
          sampleAction({ user_id: 'u1', inv_id: 1, action_id: 3, available_at: iso(T0 - 5000) }),
        ]);
        expect(outcome(results)).toEqual(['expired', 'created', 'created']);
        expect((await drainLog(store)).map((e) => [e.kind, e.action_id, e.available_at])).toEqual([
          ['created', 2, T0 + 5000],
          ['created', 3, null],
        ]);
        expect(ids((await store.pull('app-a', q())).data)).toEqual(['u1/1:3']);
        clock.set(T0 + 5000);
        expect(ids((await store.pull('app-a', q())).data)).toEqual(['u1/1:2']);
      });

      it('withdraws a pending action on block; it never becomes available', async () => {
        await store.create('app-a', [sampleAction({ user_id: 'u1', inv_id: 1, action_id: 1, available_at: iso(T0 + 1000) })]);
        await drainLog(store);
        expect(await store.recordFeedback('app-a', { user_id: 'u1', inv_id: 1, action_id: 1, response: 'block' })).toBe('recorded');
        expect((await drainLog(store)).map((e) => e.kind)).toEqual(['withdrawn']);
        clock.set(T0 + 1000);
        expect((await store.pull('app-a', q())).data).toEqual([]);
      });

      it('expires a pending action that no pull could take, logging the expiry', async () => {
        await store.create('app-a', [sampleAction({ user_id: 'u1', inv_id: 1, action_id: 1, available_at: iso(T0 + 1000), expired_at: iso(T0 + 2000) })]);
        await drainLog(store);
        clock.set(T0 + 2000);
        expect(await store.sweepExpired()).toBe(1);
        expect((await drainLog(store)).map((e) => [e.kind, e.at])).toEqual([['expired', T0 + 2000]]);
        expect((await store.pull('app-a', q())).data).toEqual([]);
      });
    });
  });
}
