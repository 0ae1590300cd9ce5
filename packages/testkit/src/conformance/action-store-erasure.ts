import type { ActionStore, ManualClock, PersonAction, PersonHoldings } from '@evp/actions';
import { drainLog } from './action-store-log';
import { T0, freshStoreEachTest, iso, q, sampleAction, type MakeActionStore } from './action-store-fixtures';

const HOUR = 60 * 60 * 1000;
const USERS = ['u1', 'u1:x'] as const;
const APPS = ['app-a', 'app-b'] as const;

/**
 * Gives one user of one app something of every kind the store keeps: actions in every state (a
 * delivered one-off that never expired, a delivered expiring one with an attr, a delivered cached
 * one, a later-available one withdrawn by a block), a capped create, cap counters, a block, an
 * error report, and their action log entries left in the outbox. 17 records (PersonHoldings).
 */
export async function seedPerson(store: ActionStore, appId: string, user: string): Promise<void> {
  const caps = { campaign: { key: 'c', max: 5, within_ms: HOUR }, app: { max: 5 } };
  await store.create(
    appId,
    [
      sampleAction({ user_id: user, inv_id: 1, action_id: 1, caps }),
      sampleAction({ user_id: user, inv_id: 1, action_id: 2, attr: { k: 'v' }, expired_at: iso(T0 + 24 * HOUR) }),
      sampleAction({ user_id: user, inv_id: 1, action_id: 3, delivery_mode: 'cached', expired_at: iso(T0 + 24 * HOUR) }),
      sampleAction({ user_id: user, inv_id: 1, action_id: 4, available_at: iso(T0 + HOUR) }),
      sampleAction({ user_id: user, inv_id: 1, action_id: 5, caps: { campaign: { key: 'c', max: 1, within_ms: HOUR } } }),
    ],
    { source: 'test' },
  );
  await store.pull(appId, q({ user_id: user }));
  await store.pull(appId, q({ user_id: user, delivery_mode: 'cached' }));
  await store.recordFeedback(appId, { user_id: user, inv_id: 1, action_id: 2, response: 'error', details: 'boom' });
  await store.recordFeedback(appId, { user_id: user, inv_id: 1, action_id: 4, response: 'block' });
}

/** Records per seeded person: 4 actions, 1 block, 2 cap counter entries, 1 error report, 9 log entries. */
export const SEEDED_RECORDS = 17;

/**
 * The erasure part of the ActionStore conformance suite (run by describeActionStoreConformance for
 * every adapter): one user of one app erased leaves nothing of theirs, and the other user of the
 * same app and both users of the other app exactly as they were.
 */
export function describeActionStoreErasureConformance(name: string, makeStore: MakeActionStore): void {
  describe(`ActionStore conformance, erasure: ${name}`, () => {
    let clock: ManualClock;
    let store: ActionStore;
    freshStoreEachTest(makeStore, (s) => ({ store, clock } = s));

    const others = async () => {
      const out: Record<string, PersonHoldings> = {};
      for (const app of APPS) for (const user of USERS) if (app !== 'app-a' || user !== 'u1') out[`${app} ${user}`] = await store.countPeople(app, [user]);
      return out;
    };
    const allStats = async () => {
      const out: unknown[] = [];
      for (const app of APPS) for (const act of [1, 2, 3, 4, 5]) out.push(await store.stats(app, act));
      return out;
    };

    it("deletes one user's actions, blocks, caps, error reports and outbox entries; the other user and the other app stay as they were", async () => {
      for (const app of APPS) for (const user of USERS) await seedPerson(store, app, user);
      const othersBefore = await others();
      expect(Object.values(othersBefore).map((h) => h.records)).toEqual([SEEDED_RECORDS, SEEDED_RECORDS, SEEDED_RECORDS]);
      const statsBefore = await allStats();

      const erased = await store.erasePeople('app-a', ['u1']);
      expect(erased.before.records).toBe(SEEDED_RECORDS);
      expect(erased.before.keys).toBeGreaterThan(0);
      expect(erased.after).toEqual({ records: 0, keys: 0 });
      expect(typeof erased.storage).toBe('string');
      expect(await store.countPeople('app-a', ['u1'])).toEqual({ records: 0, keys: 0 });
      expect(await others()).toEqual(othersBefore);
      // The counters are sums over everyone and stay; the erased user's error report is gone.
      const statsAfter = await allStats();
      const a2 = statsBefore[1] as { last_errors: { user_id: string }[] };
      expect(a2.last_errors.map((r) => r.user_id)).toEqual(['u1:x', 'u1']);
      expect(statsAfter).toEqual(statsBefore.map((s, i) => (i === 1 ? { ...a2, last_errors: a2.last_errors.filter((r) => r.user_id !== 'u1') } : s)));

      // The outbox: none of the erased user's entries, all 9 of everyone else's.
      const log = await drainLog(store);
      const per = new Map<string, string[]>();
      for (const e of log) per.set(`${e.app_id} ${e.user_id}`, [...(per.get(`${e.app_id} ${e.user_id}`) ?? []), `${e.kind} ${e.action_id}`]);
      const seeded = ['created 1', 'created 2', 'created 3', 'created 4', 'capped 5', 'delivered 1', 'delivered 2', 'delivered 3', 'withdrawn 4'].sort();
      expect([...per.keys()].sort()).toEqual(['app-a u1:x', 'app-b u1', 'app-b u1:x']);
      for (const kinds of per.values()) expect(kinds.sort()).toEqual(seeded);

      // Nothing of theirs is left to refuse a create: no remembered action, no block, no cap counter.
      clock.set(T0 + 2 * HOUR);
      const again = await store.create('app-a', [
        sampleAction({ user_id: 'u1', inv_id: 1, action_id: 1, caps: { campaign: { key: 'c', max: 1, within_ms: HOUR * 10 }, app: { max: 1 } } }),
        sampleAction({ user_id: 'u1', inv_id: 1, action_id: 4 }),
      ]);
      expect(again.map((r) => r.status)).toEqual(['created', 'created']);
      // …while the other user's are: a duplicate, and still blocked.
      const kept = await store.create('app-a', [
        sampleAction({ user_id: 'u1:x', inv_id: 1, action_id: 1 }),
        sampleAction({ user_id: 'u1:x', inv_id: 9, action_id: 4 }),
      ]);
      expect(kept.map((r) => r.status)).toEqual(['duplicate', 'blocked']);
    });

    const actionsOf = async (app: string, user: string) => {
      const out: PersonAction[] = [];
      for await (const a of store.personActions(app, user)) out.push(a);
      return out.sort((x, y) => x.action_id - y.action_id);
    };

    it("hands out one user's remembered actions in every state (the export's lines), none of the other user's or app's", async () => {
      for (const app of APPS) for (const user of USERS) await seedPerson(store, app, user);
      const got = await actionsOf('app-a', 'u1');
      const base = {
        user_id: 'u1',
        inv_id: 1,
        type: 'message',
        render_method: 'push_notification',
        attr: {},
        expires_at: null,
        available_at: null,
        feedback: [],
        entry: null,
      };
      expect(got.map((a) => (a.action_id === 3 ? { ...a, entry: null } : a))).toEqual([
        { ...base, action_id: 1, state: 'delivered', delivery_mode: 'one-off' },
        { ...base, action_id: 2, state: 'delivered', delivery_mode: 'one-off', attr: { k: 'v' }, expires_at: T0 + 24 * HOUR, feedback: ['error'] },
        { ...base, action_id: 3, state: 'available', delivery_mode: 'cached', expires_at: T0 + 24 * HOUR },
        { ...base, action_id: 4, state: 'withdrawn', delivery_mode: 'one-off', available_at: T0 + HOUR, feedback: ['block'] },
      ]);
      // The available one carries its whole entry, as a pull returns it.
      const entry = got[2]?.entry;
      expect([entry?.user_id, entry?.payload.internal.action_id, entry?.payload.delivery_mode]).toEqual(['u1', 3, 'cached']);
      expect((await actionsOf('app-a', 'u1:x')).map((a) => `${a.user_id} ${a.action_id}`)).toEqual(['u1:x 1', 'u1:x 2', 'u1:x 3', 'u1:x 4']);
      expect(await actionsOf('app-c', 'u1')).toEqual([]);
      await store.erasePeople('app-a', ['u1']);
      expect(await actionsOf('app-a', 'u1')).toEqual([]);
    });

    it('hands out every action of a user with more than one page of them, each once', async () => {
      const many = Array.from({ length: 1200 }, (_, i) => sampleAction({ user_id: 'u1', inv_id: 2, action_id: i + 1 }));
      await store.create('app-a', many);
      await store.create('app-a', [sampleAction({ user_id: 'u1:x', inv_id: 2, action_id: 1 })]);
      const got = await actionsOf('app-a', 'u1');
      expect(got.map((a) => a.action_id)).toEqual(many.map((_, i) => i + 1));
      expect(new Set(got.map((a) => a.user_id))).toEqual(new Set(['u1']));
    });

    it('counts nothing for a user the app never saw, and erasing them changes nothing', async () => {
      await seedPerson(store, 'app-a', 'u1:x');
      const before = await others();
      expect(await store.erasePeople('app-a', ['nobody'])).toMatchObject({ before: { records: 0, keys: 0 }, after: { records: 0, keys: 0 } });
      expect(await store.erasePeople('app-c', ['u1'])).toMatchObject({ before: { records: 0, keys: 0 }, after: { records: 0, keys: 0 } });
      expect(await others()).toEqual(before);
    });
  });
}
