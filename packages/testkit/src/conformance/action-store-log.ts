import { ManualClock, actionLogEntryId, type ActionLogEntry, type ActionStore } from '@evp/actions';
import { T0, freshStoreEachTest, iso, q, sampleAction, type MakeActionStore } from './action-store-fixtures';

/**
 * The action log part of the ActionStore conformance suite (run by describeActionStoreConformance
 * for every adapter): which steps are logged, with what, exactly once, and how the outbox is read
 * and acknowledged.
 */

/** Reads and acknowledges everything in the outbox. */
export async function drainLog(store: ActionStore): Promise<ActionLogEntry[]> {
  const out: ActionLogEntry[] = [];
  for (;;) {
    const batch = await store.readLog(1000);
    if (batch.acks.length === 0) return out;
    out.push(...batch.entries);
    await store.ackLog(batch.acks);
  }
}

/** `<kind> <user>/<inv>:<action>@<at − T0>`: compact enough to assert exact sequences. */
const brief = (entries: ActionLogEntry[]) => entries.map((e) => `${e.kind} ${e.user_id}/${e.inv_id}:${e.action_id}@${e.at - T0}`);

export function describeActionLogConformance(name: string, makeStore: MakeActionStore): void {
  describe(`ActionStore conformance, action log: ${name}`, () => {
    let clock: ManualClock;
    let store: ActionStore;
    const fresh = freshStoreEachTest(makeStore, (s) => ({ store, clock } = s));

    it('logs one created entry per stored action, with what it was created with; duplicates and expired ones log nothing', async () => {
      clock.set(T0 + 0.75);
      await store.create(
        'app-a',
        [
          sampleAction({
            user_id: 'u1',
            inv_id: 1,
            action_id: 2,
            type: 'custom',
            render_method: 'generic_message',
            delivery_mode: 'cached',
            attr: { screen: 'cart' },
            tags: ['promo', 'q1'],
            expired_at: '2030-02-01T00:00:00+02:00',
          }),
          sampleAction({ user_id: 'u2', inv_id: 1, action_id: 2 }),
          sampleAction({ user_id: 'u2', inv_id: 1, action_id: 2 }),
          sampleAction({ user_id: 'u3', inv_id: 1, action_id: 3, expired_at: iso(T0 - 1000) }),
        ],
        { source: 'api' },
      );
      const ids = { app_id: 'app-a', inv_id: 1, action_id: 2, at: T0, created_at: T0, source: 'api', reason: '', available_at: null };
      expect(await drainLog(store)).toEqual([
        {
          entry_id: actionLogEntryId('app-a', '1:2:u1', T0, 'created'),
          kind: 'created',
          ...ids,
          user_id: 'u1',
          type: 'custom',
          render_method: 'generic_message',
          delivery_mode: 'cached',
          expired_at: Date.UTC(2030, 0, 31, 22),
          tags: ['promo', 'q1'],
          attr: { screen: 'cart' },
        },
        {
          entry_id: actionLogEntryId('app-a', '1:2:u2', T0, 'created'),
          kind: 'created',
          ...ids,
          user_id: 'u2',
          type: 'message',
          render_method: 'push_notification',
          delivery_mode: 'one-off',
          expired_at: null,
          tags: [],
          attr: {},
        },
      ]);
      expect((await store.create('app-a', [sampleAction({ user_id: 'u2', inv_id: 1, action_id: 2 })]))[0]?.status).toBe('duplicate');
      expect(await store.logLength()).toBe(0);
      // Generated ids are what is logged; a caller naming no source logs ''.
      const [generated] = await store.create('app-a', [sampleAction({ user_id: 'u5' })]);
      expect((await drainLog(store)).map((e) => [e.inv_id, e.action_id, e.source])).toEqual([[generated?.inv_id, generated?.action_id, '']]);
    });

    it('logs exactly one delivered entry per one-off action, at the pull that took it, also under concurrent pulls', async () => {
      await store.create('app-a', [sampleAction({ inv_id: 9, action_id: 9, expired_at: iso(T0 + 60_000) })]);
      await drainLog(store);
      clock.set(T0 + 500);
      await store.pull('app-a', q({ user_id: 'u1' }));
      await store.pull('app-a', q({ user_id: 'u1' }));
      expect(await drainLog(store)).toEqual([
        {
          entry_id: actionLogEntryId('app-a', '9:9:u1', T0, 'delivered'),
          kind: 'delivered',
          app_id: 'app-a',
          user_id: 'u1',
          inv_id: 9,
          action_id: 9,
          at: T0 + 500,
          created_at: T0,
          type: 'message',
          render_method: 'push_notification',
          delivery_mode: 'one-off',
          expired_at: T0 + 60_000,
          tags: [],
          attr: {},
          source: '',
          reason: '',
          available_at: null,
        },
      ]);

      await store.create(
        'app-a',
        Array.from({ length: 200 }, (_, i) => sampleAction({ user_id: `u${i % 7}`, inv_id: 1, action_id: i })),
      );
      clock.set(T0 + 1000);
      await Promise.all(Array.from({ length: 20 }, (_, i) => store.pull('app-a', q(i % 2 === 0 ? {} : { user_id: `u${i % 7}` }), { max: 7 })));
      await store.pull('app-a', q());
      const delivered = (await drainLog(store)).filter((e) => e.kind === 'delivered');
      expect(delivered).toHaveLength(200);
      expect(new Set(delivered.map((e) => `${e.user_id}/${e.action_id}`)).size).toBe(200);
      expect(new Set(delivered.map((e) => e.entry_id)).size).toBe(200);
      expect(delivered.every((e) => e.at === T0 + 1000 && e.created_at === T0 + 500)).toBe(true);
    });

    it("logs a cached action's first delivery only: once per action, whichever pull returned it first", async () => {
      await store.create('app-a', [
        sampleAction({ user_id: 'u1', inv_id: 1, action_id: 1, delivery_mode: 'cached' }),
        sampleAction({ user_id: 'u2', inv_id: 1, action_id: 2, delivery_mode: 'cached' }),
      ]);
      const cached = q({ delivery_mode: 'cached' });
      clock.set(T0 + 1000);
      for (let i = 0; i < 3; i++) await store.pull('app-a', { ...cached, user_id: 'u1' });
      clock.set(T0 + 2000);
      await store.pull('app-a', cached);
      await store.pull('app-a', cached);
      expect(brief(await drainLog(store))).toEqual(['created u1/1:1@0', 'created u2/1:2@0', 'delivered u1/1:1@1000', 'delivered u2/1:2@2000']);

      // Large pulls: most returned actions were delivered before, a few await their first delivery.
      await store.create(
        'app-a',
        Array.from({ length: 40 }, (_, i) => sampleAction({ user_id: `v${i}`, inv_id: 2, action_id: i, delivery_mode: 'cached' })),
      );
      clock.set(T0 + 3000);
      expect((await store.pull('app-a', cached)).data).toHaveLength(42);
      await store.create('app-a', [
        sampleAction({ user_id: 'w1', inv_id: 3, action_id: 1, delivery_mode: 'cached' }),
        sampleAction({ user_id: 'w2', inv_id: 3, action_id: 2, delivery_mode: 'cached' }),
      ]);
      clock.set(T0 + 4000);
      expect((await store.pull('app-a', cached)).data).toHaveLength(44);
      clock.set(T0 + 5000);
      expect((await store.pull('app-a', cached)).data).toHaveLength(44);
      const delivered = (await drainLog(store)).filter((e) => e.kind === 'delivered');
      expect(delivered.map((e) => `${e.user_id}@${e.at - T0}`)).toEqual([...Array.from({ length: 40 }, (_, i) => `v${i}@3000`), 'w1@4000', 'w2@4000']);
    });

    it('logs withdrawn for every queued action a block takes back (a delivered cached one too); a blocked create logs nothing', async () => {
      await store.create('app-a', [
        sampleAction({ user_id: 'u1', inv_id: 1, action_id: 5 }),
        sampleAction({ user_id: 'u1', inv_id: 2, action_id: 5, delivery_mode: 'cached' }),
        sampleAction({ user_id: 'u1', inv_id: 1, action_id: 6 }),
        sampleAction({ user_id: 'u2', inv_id: 1, action_id: 5 }),
      ]);
      await store.pull('app-a', q({ user_id: 'u1', delivery_mode: 'cached' }));
      await drainLog(store);
      clock.set(T0 + 1000);
      await store.recordFeedback('app-a', { user_id: 'u1', inv_id: 1, action_id: 5, response: 'block' });
      expect(await store.create('app-a', [sampleAction({ user_id: 'u1', inv_id: 3, action_id: 5 })])).toEqual([
        { status: 'blocked', user_id: 'u1', inv_id: 3, action_id: 5 },
      ]);
      expect(brief(await drainLog(store))).toEqual(['withdrawn u1/1:5@1000', 'withdrawn u1/2:5@1000']);
    });

    it('logs expired only for actions no pull returned, at their expiry instant, whether the sweep or a pull retired them', async () => {
      await store.create('app-a', [
        sampleAction({ user_id: 'u1', inv_id: 1, action_id: 1, expired_at: iso(T0 + 1000) }),
        sampleAction({ user_id: 'u1', inv_id: 1, action_id: 2, expired_at: iso(T0 + 1000), render_method: 'in_app_message' }),
        sampleAction({ user_id: 'u1', inv_id: 1, action_id: 3, expired_at: iso(T0 + 1000), delivery_mode: 'cached' }),
        sampleAction({ user_id: 'u2', inv_id: 1, action_id: 4, expired_at: iso(T0 + 1000), delivery_mode: 'cached' }),
        sampleAction({ user_id: 'u3', inv_id: 1, action_id: 5, expired_at: iso(T0 + 3000) }),
      ]);
      clock.set(T0 + 500);
      await store.pull('app-a', q({ user_id: 'u1', render_method: 'in_app_message' }));
      await store.pull('app-a', q({ user_id: 'u1', delivery_mode: 'cached' }));
      clock.set(T0 + 2500);
      expect(await store.sweepExpired()).toBe(3);
      clock.set(T0 + 4000);
      expect((await store.pull('app-a', q({ user_id: 'nobody' }))).data).toEqual([]);
      expect(brief((await drainLog(store)).filter((e) => e.kind !== 'created'))).toEqual([
        'delivered u1/1:2@500',
        'delivered u1/1:3@500',
        'expired u1/1:1@1000',
        'expired u2/1:4@1000',
        'expired u3/1:5@3000',
      ]);
    });

    it('hands each record to one read until its lease runs out; ackLog removes it; logLength counts what is left', async () => {
      await store.create('app-b', [sampleAction({ inv_id: 1, action_id: 1 })]);
      await store.create('app-a', [sampleAction({ inv_id: 1, action_id: 1 })]);
      await store.pull('app-a', q());
      expect(await store.logLength()).toBe(3);
      // Apps in id order; whole records until max is reached.
      const first = await store.readLog(1);
      expect(first.entries.map((e) => `${e.app_id} ${e.kind}`)).toEqual(['app-a created', 'app-a delivered']);
      expect(first.acks).toHaveLength(2);
      const second = await store.readLog(1000);
      expect(second.entries.map((e) => `${e.app_id} ${e.kind}`)).toEqual(['app-b created']);
      expect(await store.readLog(1000)).toEqual({ entries: [], acks: [] });
      expect(await store.logLength()).toBe(3);
      await store.ackLog(first.acks);
      await store.ackLog(first.acks);
      expect(await store.logLength()).toBe(1);
      await store.ackLog(second.acks);
      expect(await store.logLength()).toBe(0);
      expect(await store.readLog(1000)).toEqual({ entries: [], acks: [] });
    });

    it('hands a record out again once its lease ran out (its reader died before acknowledging)', async () => {
      await fresh.remake({ logLeaseMs: 0 });
      await store.create('app-a', [sampleAction({ inv_id: 1, action_id: 1 })]);
      const first = await store.readLog(1000);
      const again = await store.readLog(1000);
      expect(again.entries).toEqual(first.entries);
      expect(brief(again.entries)).toEqual(['created u1/1:1@0']);
      await store.ackLog(again.acks);
      expect(await store.readLog(1000)).toEqual({ entries: [], acks: [] });
    });

    it('splits the steps of one operation into records of at most 1,000 entries', async () => {
      await store.create(
        'app-a',
        Array.from({ length: 1001 }, (_, i) => sampleAction({ user_id: `u${i}`, inv_id: 1, action_id: 1 })),
      );
      expect(await store.logLength()).toBe(2);
      const entries = await drainLog(store);
      expect(entries.map((e) => e.user_id)).toEqual(Array.from({ length: 1001 }, (_, i) => `u${i}`));
    });
  });
}
