import { FIRST_GENERATED_ID, ManualClock, NEVER_EXPIRES, type ActionStore } from '@evp/actions';
import { describeActionStoreCampaignConformance } from './action-store-campaigns';
import { describeActionLogConformance } from './action-store-log';
import { describeActionStoreErasureConformance } from './action-store-erasure';
import { T0, freshStoreEachTest, ids, iso, q, sampleAction, type MakeActionStore } from './action-store-fixtures';

export * from './action-store-fixtures';

/**
 * One suite for every ActionStore adapter (Redis, in-memory): what the action-store service relies
 * on, with exact values. The clock is manual so expiry is decided by the test, never by waiting.
 * The action log's part is in action-store-log.ts.
 */

export function describeActionStoreConformance(name: string, makeStore: MakeActionStore): void {
  describe(`ActionStore conformance: ${name}`, () => {
    let clock: ManualClock;
    let store: ActionStore;
    const fresh = freshStoreEachTest(makeStore, (s) => ({ store, clock } = s));

    describe('create', () => {
      it('stores the record exactly as a pull returns it', async () => {
        clock.set(Date.UTC(2030, 0, 2, 3, 4, 5, 678) + 0.901);
        const results = await store.create('app-a', [
          sampleAction({
            user_id: 'user-7',
            type: 'custom',
            render_method: 'generic_message',
            delivery_mode: 'cached',
            content: { title: 'Deal', body: '10% off' },
            attr: { screen: 'cart', lang: 'en' },
            tags: ['promo', 'q1'],
            expired_at: '2030-02-01T00:00:00+02:00',
            inv_id: 11,
            action_id: 22,
          }),
        ]);
        expect(results).toEqual([{ status: 'created', user_id: 'user-7', inv_id: 11, action_id: 22 }]);
        const pulled = await store.pull('app-a', q({ user_id: 'user-7', type: 'custom', render_method: 'generic_message', delivery_mode: 'cached' }));
        expect(pulled).toEqual({
          data: [
            {
              user_id: 'user-7',
              payload: {
                type: 'custom',
                render_method: 'generic_message',
                delivery_mode: 'cached',
                content: { body: '10% off', title: 'Deal' },
                attr: { screen: 'cart', lang: 'en' },
                tags: ['promo', 'q1'],
                internal: { inv_id: 11, action_id: 22, expired_at: '2030-02-01T00:00:00+02:00', ref: '11:22', ref_time: '2030-01-02T03:04:05.678901Z#11:22' },
              },
              error: null,
              queued_at: '2030-01-02T03:04:05.678901Z',
            },
          ],
          more: false,
        });
      });

      it('formats queued_at as UTC with exactly six fraction digits', async () => {
        clock.set(Date.UTC(2031, 11, 31, 23, 59, 59, 999));
        await store.create('app-a', [sampleAction({ inv_id: 1, action_id: 1 })]);
        const { data } = await store.pull('app-a', q());
        expect(data.map((r) => r.queued_at)).toEqual(['2031-12-31T23:59:59.999000Z']);
        expect(data[0]?.queued_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      });

      it('is idempotent on (app, inv_id, action_id, user_id), also within one call', async () => {
        const a = sampleAction({ inv_id: 1, action_id: 2, user_id: 'u1' });
        expect((await store.create('app-a', [a, a, { ...a, user_id: 'u2' }])).map((r) => r.status)).toEqual(['created', 'duplicate', 'created']);
        expect((await store.create('app-a', [{ ...a, content: { title: 'changed', body: 'changed' } }])).map((r) => r.status)).toEqual(['duplicate']);
        const { data } = await store.pull('app-a', q());
        expect(ids(data)).toEqual(['u1/1:2', 'u2/1:2']);
        expect(data[0]?.payload.content).toEqual({ body: 'World', title: 'Hello' });
        expect((await store.stats('app-a', 2))?.totals.created).toBe(2);
      });

      it('does not deliver a one-off action again when it is re-created after delivery', async () => {
        const a = sampleAction({ inv_id: 5, action_id: 6 });
        await store.create('app-a', [a]);
        expect(ids((await store.pull('app-a', q())).data)).toEqual(['u1/5:6']);
        expect(await store.create('app-a', [a])).toEqual([{ status: 'duplicate', user_id: 'u1', inv_id: 5, action_id: 6 }]);
        expect((await store.pull('app-a', q())).data).toEqual([]);
      });

      it('generates ids when not given: one inv_id per call, one action_id per action, never colliding with given ids', async () => {
        const first = await store.create('app-a', [
          sampleAction({ user_id: 'x' }),
          sampleAction({ user_id: 'y', action_id: 9 }),
          sampleAction({ user_id: 'z' }),
        ]);
        expect(first).toEqual([
          { status: 'created', user_id: 'x', inv_id: FIRST_GENERATED_ID, action_id: FIRST_GENERATED_ID + 1 },
          { status: 'created', user_id: 'y', inv_id: FIRST_GENERATED_ID, action_id: 9 },
          { status: 'created', user_id: 'z', inv_id: FIRST_GENERATED_ID, action_id: FIRST_GENERATED_ID + 2 },
        ]);
        const second = await store.create('app-a', [sampleAction({ user_id: 'x' })]);
        expect(second).toEqual([{ status: 'created', user_id: 'x', inv_id: FIRST_GENERATED_ID + 3, action_id: FIRST_GENERATED_ID + 4 }]);
        expect(await store.create('app-a', [sampleAction({ user_id: 'x', inv_id: 1, action_id: 1 })])).toEqual([
          { status: 'created', user_id: 'x', inv_id: 1, action_id: 1 },
        ]);
      });

      it('does not store an action whose expired_at has passed', async () => {
        const results = await store.create('app-a', [
          sampleAction({ inv_id: 1, action_id: 1, expired_at: iso(T0) }),
          sampleAction({ inv_id: 1, action_id: 2, expired_at: iso(T0 - 1000) }),
          sampleAction({ inv_id: 1, action_id: 3, expired_at: iso(T0 + 1000) }),
        ]);
        expect(results.map((r) => r.status)).toEqual(['expired', 'expired', 'created']);
        expect(ids((await store.pull('app-a', q())).data)).toEqual(['u1/1:3']);
        expect(await store.stats('app-a', 1)).toBeNull();
      });

      it('returns an empty list for an empty call', async () => {
        expect(await store.create('app-a', [])).toEqual([]);
      });
    });

    describe('one-off delivery', () => {
      it('returns a one-off action to exactly one pull, ever', async () => {
        await store.create('app-a', [sampleAction({ inv_id: 1, action_id: 1 })]);
        expect(ids((await store.pull('app-a', q({ user_id: 'u1' }))).data)).toEqual(['u1/1:1']);
        expect((await store.pull('app-a', q({ user_id: 'u1' }))).data).toEqual([]);
        expect((await store.pull('app-a', q({ user_id: '*' }))).data).toEqual([]);
        clock.advance(365 * 24 * 3600 * 1000);
        expect((await store.pull('app-a', q({ user_id: 'u1' }))).data).toEqual([]);
      });

      it("a `*` pull takes every user's one-off actions, oldest first, and a user pull then finds none", async () => {
        await store.create('app-a', [sampleAction({ user_id: 'b', inv_id: 1, action_id: 1 }), sampleAction({ user_id: 'a', inv_id: 1, action_id: 2 })]);
        await store.create('app-a', [sampleAction({ user_id: 'b', inv_id: 1, action_id: 3 })]);
        expect(ids((await store.pull('app-a', q())).data)).toEqual(['b/1:1', 'a/1:2', 'b/1:3']);
        expect((await store.pull('app-a', q({ user_id: 'b' }))).data).toEqual([]);
      });

      it('concurrent pulls on one store never share an action', async () => {
        await store.create(
          'app-a',
          Array.from({ length: 200 }, (_, i) => sampleAction({ user_id: `u${i % 7}`, inv_id: 1, action_id: i })),
        );
        const pulls = await Promise.all(Array.from({ length: 20 }, (_, i) => store.pull('app-a', q(i % 2 === 0 ? {} : { user_id: `u${i % 7}` }), { max: 7 })));
        const again = await store.pull('app-a', q());
        const all = [...pulls.flatMap((p) => ids(p.data)), ...ids(again.data)];
        expect(all).toHaveLength(200);
        expect(new Set(all).size).toBe(200);
      });
    });

    describe('cached delivery', () => {
      it('returns a cached action on every matching pull until expired_at, then never', async () => {
        await store.create('app-a', [
          sampleAction({ delivery_mode: 'cached', inv_id: 1, action_id: 1, expired_at: iso(T0 + 60_000) }),
          sampleAction({ delivery_mode: 'cached', inv_id: 1, action_id: 2, expired_at: NEVER_EXPIRES }),
        ]);
        const cached = q({ delivery_mode: 'cached', user_id: 'u1' });
        for (let i = 0; i < 3; i++) expect(ids((await store.pull('app-a', cached)).data)).toEqual(['u1/1:1', 'u1/1:2']);
        clock.set(T0 + 59_999);
        expect(ids((await store.pull('app-a', { ...cached, user_id: '*' })).data)).toEqual(['u1/1:1', 'u1/1:2']);
        clock.set(T0 + 60_000);
        expect(ids((await store.pull('app-a', cached)).data)).toEqual(['u1/1:2']);
        clock.set(T0 + 100 * 365 * 24 * 3600 * 1000);
        expect(ids((await store.pull('app-a', cached)).data)).toEqual(['u1/1:2']);
        // Cached pulls are not counted as deliveries.
        expect((await store.stats('app-a', 1))?.totals).toEqual({
          created: 1,
          delivered: 0,
          expired: 1,
          responses: { shown: 0, open: 0, discard: 0, block: 0, expired: 0, error: 0 },
        });
      });

      it('never returns an expired one-off action', async () => {
        await store.create('app-a', [sampleAction({ inv_id: 1, action_id: 1, expired_at: '2030-01-01T01:00:01+01:00' })]);
        clock.set(T0 + 999);
        await store.sweepExpired();
        clock.set(T0 + 1000);
        expect((await store.pull('app-a', q())).data).toEqual([]);
        expect((await store.stats('app-a', 1))?.totals.expired).toBe(1);
      });

      it('treats any spelling of the zero time as never', async () => {
        await store.create('app-a', [sampleAction({ delivery_mode: 'cached', inv_id: 1, action_id: 1, expired_at: '0001-01-01T00:00:00.000+00:00' })]);
        clock.set(Date.UTC(2999, 0, 1));
        expect(ids((await store.pull('app-a', q({ delivery_mode: 'cached' }))).data)).toEqual(['u1/1:1']);
      });
    });

    describe('filters', () => {
      it('matches type, render_method and delivery_mode exactly', async () => {
        await store.create('app-a', [
          sampleAction({ inv_id: 1, action_id: 1 }),
          sampleAction({ inv_id: 1, action_id: 2, render_method: 'in_app_message' }),
          sampleAction({ inv_id: 1, action_id: 3, type: 'custom', render_method: 'in_app_message' }),
          sampleAction({ inv_id: 1, action_id: 4, delivery_mode: 'cached' }),
        ]);
        expect(ids((await store.pull('app-a', q({ render_method: 'in_app_message', type: 'custom' }))).data)).toEqual(['u1/1:3']);
        expect(ids((await store.pull('app-a', q({ render_method: 'in_app_message' }))).data)).toEqual(['u1/1:2']);
        expect(ids((await store.pull('app-a', q({ delivery_mode: 'cached' }))).data)).toEqual(['u1/1:4']);
        expect(ids((await store.pull('app-a', q())).data)).toEqual(['u1/1:1']);
        expect((await store.pull('app-a', q({ render_method: 'generic_message' }))).data).toEqual([]);
      });

      it("narrows by attr: every given pair must be among the action's attributes", async () => {
        const mk = (id: number, user: string, attr: Record<string, string>) =>
          sampleAction({ delivery_mode: 'cached', user_id: user, inv_id: 1, action_id: id, attr });
        await store.create('app-a', [
          mk(1, 'u1', { screen: 'cart', lang: 'en' }),
          mk(2, 'u1', { screen: 'cart' }),
          mk(3, 'u1', { lang: 'en' }),
          mk(4, 'u2', { screen: 'cart', lang: 'en' }),
          mk(5, 'u2', { screen: 'home', lang: 'en' }),
          mk(6, 'u2', {}),
        ]);
        const pull = async (user_id: string, attr?: Record<string, string>) =>
          ids((await store.pull('app-a', q({ delivery_mode: 'cached', user_id, ...(attr ? { attr } : {}) }))).data);
        expect(await pull('u1', { screen: 'cart' })).toEqual(['u1/1:1', 'u1/1:2']);
        expect(await pull('u1', { screen: 'cart', lang: 'en' })).toEqual(['u1/1:1']);
        expect(await pull('u1', { screen: 'home' })).toEqual([]);
        expect(await pull('u1', {})).toEqual(['u1/1:1', 'u1/1:2', 'u1/1:3']);
        expect(await pull('*', { screen: 'cart' })).toEqual(['u1/1:1', 'u1/1:2', 'u2/1:4']);
        expect(await pull('*', { lang: 'en', screen: 'cart' })).toEqual(['u1/1:1', 'u2/1:4']);
        expect(await pull('*', { lang: 'en' })).toEqual(['u1/1:1', 'u1/1:3', 'u2/1:4', 'u2/1:5']);
        expect(await pull('*', { lang: 'fr' })).toEqual([]);
        expect(await pull('*', { screen: 'cart', missing: 'x' })).toEqual([]);
        expect(await pull('*')).toEqual(['u1/1:1', 'u1/1:2', 'u1/1:3', 'u2/1:4', 'u2/1:5', 'u2/1:6']);
      });

      it('matches attribute names and values literally (separators, empty values)', async () => {
        await store.create('app-a', [sampleAction({ inv_id: 1, action_id: 1, delivery_mode: 'cached', attr: { 'a:b': 'c', a: 'b:c', e: '' } })]);
        const pull = async (attr: Record<string, string>) => ids((await store.pull('app-a', q({ delivery_mode: 'cached', attr }))).data);
        expect(await pull({ 'a:b': 'c' })).toEqual(['u1/1:1']);
        expect(await pull({ a: 'b:c' })).toEqual(['u1/1:1']);
        expect(await pull({ a: 'b' })).toEqual([]);
        expect(await pull({ e: '' })).toEqual(['u1/1:1']);
      });

      it('treats user ids literally (no pattern matching)', async () => {
        await store.create('app-a', [sampleAction({ user_id: 'a:b', inv_id: 1, action_id: 1 }), sampleAction({ user_id: 'a', inv_id: 1, action_id: 2 })]);
        expect(ids((await store.pull('app-a', q({ user_id: 'a' }))).data)).toEqual(['a/1:2']);
        expect(ids((await store.pull('app-a', q({ user_id: 'a:b' }))).data)).toEqual(['a:b/1:1']);
      });
    });

    describe('apps are isolated', () => {
      it('the same ids in two apps are two actions, and pulls see only their own app', async () => {
        const a = sampleAction({ inv_id: 1, action_id: 1 });
        expect((await store.create('app-a', [a]))[0]?.status).toBe('created');
        expect((await store.create('app-b', [a]))[0]?.status).toBe('created');
        await store.create('app-b', [sampleAction({ user_id: 'only-b', inv_id: 1, action_id: 2 })]);
        expect(ids((await store.pull('app-a', q())).data)).toEqual(['u1/1:1']);
        expect((await store.pull('app-a', q())).data).toEqual([]);
        expect(ids((await store.pull('app-b', q())).data)).toEqual(['u1/1:1', 'only-b/1:2']);
        expect(await store.stats('app-a', 2)).toBeNull();
        expect((await store.stats('app-b', 2))?.totals.created).toBe(1);
        expect((await store.pull('app-c', q())).data).toEqual([]);
      });

      it('feedback and blocks in one app do not touch another', async () => {
        const a = sampleAction({ delivery_mode: 'cached', inv_id: 1, action_id: 1 });
        await store.create('app-a', [a]);
        await store.create('app-b', [a]);
        expect(await store.recordFeedback('app-a', { user_id: 'u1', inv_id: 1, action_id: 1, response: 'block' })).toBe('recorded');
        expect((await store.pull('app-a', q({ delivery_mode: 'cached' }))).data).toEqual([]);
        expect(ids((await store.pull('app-b', q({ delivery_mode: 'cached' }))).data)).toEqual(['u1/1:1']);
        expect((await store.stats('app-b', 1))?.totals.responses.block).toBe(0);
      });
    });

    describe('max per pull', () => {
      it('returns at most max one-off actions and says whether more are waiting', async () => {
        await store.create(
          'app-a',
          Array.from({ length: 5 }, (_, i) => sampleAction({ inv_id: 1, action_id: i + 1 })),
        );
        const p1 = await store.pull('app-a', q(), { max: 2 });
        expect([ids(p1.data), p1.more]).toEqual([['u1/1:1', 'u1/1:2'], true]);
        const p2 = await store.pull('app-a', q(), { max: 2 });
        expect([ids(p2.data), p2.more]).toEqual([['u1/1:3', 'u1/1:4'], true]);
        const p3 = await store.pull('app-a', q(), { max: 2 });
        expect(p3).toEqual({ data: [p3.data[0]], more: false });
        expect(ids(p3.data)).toEqual(['u1/1:5']);
        expect(await store.pull('app-a', q(), { max: 2 })).toEqual({ data: [], more: false });
      });

      it('says more=false when exactly max matched', async () => {
        await store.create(
          'app-a',
          Array.from({ length: 3 }, (_, i) => sampleAction({ inv_id: 1, action_id: i + 1 })),
        );
        const p = await store.pull('app-a', q(), { max: 3 });
        expect([ids(p.data), p.more, p.cursor]).toEqual([['u1/1:1', 'u1/1:2', 'u1/1:3'], false, undefined]);
      });

      it('pages through cached actions with the cursor', async () => {
        await store.create(
          'app-a',
          Array.from({ length: 5 }, (_, i) => sampleAction({ delivery_mode: 'cached', inv_id: 1, action_id: i + 1 })),
        );
        const cached = q({ delivery_mode: 'cached' });
        const p1 = await store.pull('app-a', cached, { max: 2 });
        expect([ids(p1.data), p1.more, typeof p1.cursor]).toEqual([['u1/1:1', 'u1/1:2'], true, 'string']);
        // Without the cursor a cached pull starts again at the oldest.
        expect(ids((await store.pull('app-a', cached, { max: 2 })).data)).toEqual(['u1/1:1', 'u1/1:2']);
        const p2 = await store.pull('app-a', { ...cached, cursor: p1.cursor }, { max: 2 });
        expect([ids(p2.data), p2.more]).toEqual([['u1/1:3', 'u1/1:4'], true]);
        const p3 = await store.pull('app-a', { ...cached, cursor: p2.cursor }, { max: 2 });
        expect([ids(p3.data), p3.more, p3.cursor]).toEqual([['u1/1:5'], false, undefined]);
      });

      it('leaves one-off actions it did not return available', async () => {
        await store.create(
          'app-a',
          Array.from({ length: 4 }, (_, i) => sampleAction({ user_id: `u${i}`, inv_id: 1, action_id: i + 1 })),
        );
        await store.pull('app-a', q(), { max: 1 });
        expect(ids((await store.pull('app-a', q({ user_id: 'u3' }))).data)).toEqual(['u3/1:4']);
        expect(ids((await store.pull('app-a', q())).data)).toEqual(['u1/1:2', 'u2/1:3']);
      });

      it('stops after the scan budget and continues from the cursor', async () => {
        await fresh.remake({ scanBudget: 10 });
        const mk = (id: number, k: string) => sampleAction({ delivery_mode: 'cached', inv_id: 1, action_id: id, attr: { k } });
        await store.create('app-a', [...Array.from({ length: 30 }, (_, i) => mk(i + 1, 'no')), mk(31, 'yes'), mk(32, 'yes')]);
        const pages: [string[], boolean][] = [];
        let cursor: string | undefined;
        do {
          const p = await store.pull('app-a', q({ delivery_mode: 'cached', user_id: 'u1', attr: { k: 'yes' }, ...(cursor ? { cursor } : {}) }));
          pages.push([ids(p.data), p.more]);
          cursor = p.cursor;
        } while (cursor !== undefined);
        expect(pages).toEqual([
          [[], true],
          [[], true],
          [[], true],
          [['u1/1:31', 'u1/1:32'], false],
        ]);
        // A `*` pull narrowed by attr reads the smaller attr index, so the budget is not reached.
        const star = await store.pull('app-a', q({ delivery_mode: 'cached', attr: { k: 'yes' } }));
        expect([ids(star.data), star.more]).toEqual([['u1/1:31', 'u1/1:32'], false]);
      });

      it('uses 1,000 as the default max', async () => {
        await store.create(
          'app-a',
          Array.from({ length: 1000 }, (_, i) => sampleAction({ user_id: `u${i % 10}`, inv_id: 1, action_id: i })),
        );
        await store.create('app-a', [sampleAction({ user_id: 'late', inv_id: 2, action_id: 1 })]);
        const p = await store.pull('app-a', q());
        expect([p.data.length, p.more]).toEqual([1000, true]);
        expect(ids((await store.pull('app-a', q())).data)).toEqual(['late/2:1']);
      });
    });

    describe('expiry sweep', () => {
      it('sweeps expired actions of every app and counts them once', async () => {
        await store.create('app-a', [
          sampleAction({ delivery_mode: 'cached', inv_id: 1, action_id: 1, expired_at: iso(T0 + 1000) }),
          sampleAction({ delivery_mode: 'cached', inv_id: 2, action_id: 1, expired_at: iso(T0 + 1000) }),
          sampleAction({ inv_id: 1, action_id: 2, expired_at: iso(T0 + 2000) }),
          sampleAction({ inv_id: 1, action_id: 3, expired_at: NEVER_EXPIRES }),
        ]);
        await store.create('app-b', [sampleAction({ inv_id: 1, action_id: 1, expired_at: iso(T0 + 1000) })]);
        expect(await store.sweepExpired()).toBe(0);
        clock.set(T0 + 1000);
        expect(await store.sweepExpired()).toBe(3);
        expect(await store.sweepExpired()).toBe(0);
        clock.set(T0 + 5000);
        expect(await store.sweepExpired()).toBe(1);
        expect(ids((await store.pull('app-a', q())).data)).toEqual(['u1/1:3']);
        expect((await store.pull('app-a', q({ delivery_mode: 'cached' }))).data).toEqual([]);
        const s = await store.stats('app-a', 1);
        expect([s?.totals.expired, s?.by_inv_id['1']?.expired, s?.by_inv_id['2']?.expired]).toEqual([2, 1, 1]);
        expect((await store.stats('app-b', 1))?.totals.expired).toBe(1);
      });
    });

    describe('feedback and stats', () => {
      it('counts each (action, user, response) once and reports unknown actions', async () => {
        await store.create('app-a', [
          sampleAction({ user_id: 'u1', inv_id: 7, action_id: 3 }),
          sampleAction({ user_id: 'u2', inv_id: 7, action_id: 3 }),
          sampleAction({ user_id: 'u1', inv_id: 8, action_id: 3 }),
        ]);
        await store.pull('app-a', q());
        const fb = (user_id: string, inv_id: number, response: 'shown' | 'open' | 'error') =>
          store.recordFeedback('app-a', { user_id, inv_id, action_id: 3, response });
        expect(await fb('u1', 7, 'shown')).toBe('recorded');
        expect(await fb('u1', 7, 'shown')).toBe('repeated');
        expect(await fb('u1', 7, 'open')).toBe('recorded');
        expect(await fb('u2', 7, 'shown')).toBe('recorded');
        expect(await fb('u1', 8, 'error')).toBe('recorded');
        expect(await fb('nobody', 7, 'shown')).toBe('unknown');
        expect(await store.stats('app-a', 3)).toEqual({
          action_id: 3,
          totals: { created: 3, delivered: 3, expired: 0, responses: { shown: 2, open: 1, discard: 0, block: 0, expired: 0, error: 1 } },
          by_inv_id: {
            '7': { created: 2, delivered: 2, expired: 0, responses: { shown: 2, open: 1, discard: 0, block: 0, expired: 0, error: 0 } },
            '8': { created: 1, delivered: 1, expired: 0, responses: { shown: 0, open: 0, discard: 0, block: 0, expired: 0, error: 1 } },
          },
          last_errors: [{ user_id: 'u1', inv_id: 8, details: null, at: '2030-01-01T00:00:00.000000Z' }],
        });
        expect(await store.stats('app-a', 4)).toBeNull();
      });

      it("block withdraws the user's queued actions of that action_id and refuses later ones", async () => {
        await store.create('app-a', [
          sampleAction({ user_id: 'u1', inv_id: 1, action_id: 5, delivery_mode: 'cached' }),
          sampleAction({ user_id: 'u1', inv_id: 2, action_id: 5, type: 'custom', render_method: 'in_app_message' }),
          sampleAction({ user_id: 'u1', inv_id: 1, action_id: 6 }),
          sampleAction({ user_id: 'u2', inv_id: 1, action_id: 5 }),
        ]);
        expect(await store.recordFeedback('app-a', { user_id: 'u1', inv_id: 1, action_id: 5, response: 'block' })).toBe('recorded');
        expect((await store.pull('app-a', q({ delivery_mode: 'cached' }))).data).toEqual([]);
        expect((await store.pull('app-a', q({ type: 'custom', render_method: 'in_app_message' }))).data).toEqual([]);
        expect(ids((await store.pull('app-a', q())).data)).toEqual(['u1/1:6', 'u2/1:5']);
        expect((await store.create('app-a', [sampleAction({ user_id: 'u1', inv_id: 3, action_id: 5 })]))[0]?.status).toBe('blocked');
        expect((await store.create('app-a', [sampleAction({ user_id: 'u2', inv_id: 3, action_id: 5 })]))[0]?.status).toBe('created');
        expect((await store.stats('app-a', 5))?.totals.responses.block).toBe(1);
      });

      it('keeps the latest error details per (action_id, user), newest first', async () => {
        await store.create('app-a', [
          sampleAction({ user_id: 'u1', inv_id: 1, action_id: 3 }),
          sampleAction({ user_id: 'u2', inv_id: 1, action_id: 3 }),
          sampleAction({ user_id: 'u1', inv_id: 2, action_id: 3 }),
          sampleAction({ user_id: 'u1', inv_id: 1, action_id: 4 }),
        ]);
        const fb = (user_id: string, inv_id: number, action_id: number, response: 'error' | 'open', details?: string) =>
          store.recordFeedback('app-a', { user_id, inv_id, action_id, response, ...(details === undefined ? {} : { details }) });
        clock.set(T0 + 1000.5);
        expect(await fb('u1', 1, 3, 'error', 'render failed: missing image')).toBe('recorded');
        clock.set(T0 + 2000);
        expect(await fb('u2', 1, 3, 'error')).toBe('recorded');
        // details only count on `error`; an `open` with details stores nothing.
        expect(await fb('u2', 1, 3, 'open', 'ignored')).toBe('recorded');
        expect((await store.stats('app-a', 3))?.last_errors).toEqual([
          { user_id: 'u2', inv_id: 1, details: null, at: '2030-01-01T00:00:02.000000Z' },
          { user_id: 'u1', inv_id: 1, details: 'render failed: missing image', at: '2030-01-01T00:00:01.000000Z' },
        ]);
        clock.set(T0 + 3000);
        // A redelivered report of the same action changes nothing; a newer one replaces the user's entry.
        expect(await fb('u1', 1, 3, 'error', 'a different text')).toBe('repeated');
        expect(await fb('u1', 2, 3, 'error', 'timeout')).toBe('recorded');
        const stats = await store.stats('app-a', 3);
        expect(stats?.last_errors).toEqual([
          { user_id: 'u1', inv_id: 2, details: 'timeout', at: '2030-01-01T00:00:03.000000Z' },
          { user_id: 'u2', inv_id: 1, details: null, at: '2030-01-01T00:00:02.000000Z' },
        ]);
        expect(stats?.totals.responses.error).toBe(3);
        // Other action ids and other apps keep their own.
        expect((await store.stats('app-a', 4))?.last_errors).toEqual([]);
        await store.create('app-b', [sampleAction({ user_id: 'u1', inv_id: 1, action_id: 3 })]);
        expect((await store.stats('app-b', 3))?.last_errors).toEqual([]);
      });

      it('cuts error details to 1,024 UTF-8 bytes at a character boundary', async () => {
        await store.create('app-a', [sampleAction({ user_id: 'u1', inv_id: 1, action_id: 1 }), sampleAction({ user_id: 'u2', inv_id: 1, action_id: 1 })]);
        await store.recordFeedback('app-a', { user_id: 'u1', inv_id: 1, action_id: 1, response: 'error', details: 'é'.repeat(600) });
        await store.recordFeedback('app-a', { user_id: 'u2', inv_id: 1, action_id: 1, response: 'error', details: `a${'😀'.repeat(300)}` });
        const details = (await store.stats('app-a', 1))?.last_errors.map((e) => e.details);
        // 'é' is 2 bytes: 512 fit exactly. '😀' is 4 bytes: 1 + 255 × 4 = 1,021, the next would pass 1,024.
        expect(details).toEqual([`a${'😀'.repeat(255)}`, 'é'.repeat(512)]);
      });

      it('keeps the error reports of the newest 20 users per action_id', async () => {
        const users = Array.from({ length: 25 }, (_, i) => `u${i}`);
        await store.create(
          'app-a',
          users.map((user_id) => sampleAction({ user_id, inv_id: 1, action_id: 1 })),
        );
        for (const user_id of users) {
          await store.recordFeedback('app-a', { user_id, inv_id: 1, action_id: 1, response: 'error', details: `d-${user_id}` });
        }
        const stats = await store.stats('app-a', 1);
        expect(stats?.last_errors.map((e) => `${e.user_id}:${e.details}`)).toEqual(
          users
            .slice(5)
            .reverse()
            .map((u) => `${u}:d-${u}`),
        );
        expect(stats?.totals.responses.error).toBe(25);
      });
    });

    describe('unblock', () => {
      it('lifts a block: later creates of that action_id are accepted again; withdrawn ones stay withdrawn', async () => {
        await store.create('app-a', [
          sampleAction({ user_id: 'u1', inv_id: 1, action_id: 5 }),
          sampleAction({ user_id: 'u1', inv_id: 2, action_id: 5, delivery_mode: 'cached' }),
        ]);
        await store.recordFeedback('app-a', { user_id: 'u1', inv_id: 1, action_id: 5, response: 'block' });
        expect((await store.create('app-a', [sampleAction({ user_id: 'u1', inv_id: 3, action_id: 5 })]))[0]?.status).toBe('blocked');

        expect(await store.unblock('app-a', 'u1', 5)).toBe('unblocked');
        expect(await store.unblock('app-a', 'u1', 5)).toBe('not_blocked');
        // The withdrawn actions do not come back (also not by re-creating them: they are duplicates).
        expect((await store.pull('app-a', q())).data).toEqual([]);
        expect((await store.pull('app-a', q({ delivery_mode: 'cached' }))).data).toEqual([]);
        expect((await store.create('app-a', [sampleAction({ user_id: 'u1', inv_id: 2, action_id: 5, delivery_mode: 'cached' })]))[0]?.status).toBe('duplicate');
        // New invocations are accepted and delivered.
        expect((await store.create('app-a', [sampleAction({ user_id: 'u1', inv_id: 4, action_id: 5 })]))[0]?.status).toBe('created');
        expect(ids((await store.pull('app-a', q({ user_id: 'u1' }))).data)).toEqual(['u1/4:5']);
        // A redelivered block event of the old action counts nothing and does not block again.
        expect(await store.recordFeedback('app-a', { user_id: 'u1', inv_id: 1, action_id: 5, response: 'block' })).toBe('repeated');
        expect((await store.create('app-a', [sampleAction({ user_id: 'u1', inv_id: 5, action_id: 5 })]))[0]?.status).toBe('created');
        // A block of a newer action blocks again.
        expect(await store.recordFeedback('app-a', { user_id: 'u1', inv_id: 4, action_id: 5, response: 'block' })).toBe('recorded');
        expect(ids((await store.pull('app-a', q({ user_id: 'u1' }))).data)).toEqual([]);
        expect((await store.create('app-a', [sampleAction({ user_id: 'u1', inv_id: 6, action_id: 5 })]))[0]?.status).toBe('blocked');
        expect((await store.stats('app-a', 5))?.totals.responses.block).toBe(2);
      });

      it('touches only that user, that action_id and that app', async () => {
        for (const app of ['app-a', 'app-b']) {
          await store.create(app, [
            sampleAction({ user_id: 'u1', inv_id: 1, action_id: 5 }),
            sampleAction({ user_id: 'u1', inv_id: 1, action_id: 6 }),
            sampleAction({ user_id: 'u2', inv_id: 1, action_id: 5 }),
          ]);
          for (const [user_id, action_id] of [
            ['u1', 5],
            ['u1', 6],
            ['u2', 5],
          ] as const) {
            await store.recordFeedback(app, { user_id, inv_id: 1, action_id, response: 'block' });
          }
        }
        expect(await store.unblock('app-a', 'u1', 5)).toBe('unblocked');
        const tryCreate = async (app: string, user_id: string, action_id: number) =>
          (await store.create(app, [sampleAction({ user_id, inv_id: 2, action_id })]))[0]?.status;
        expect(await tryCreate('app-a', 'u1', 5)).toBe('created');
        expect(await tryCreate('app-a', 'u1', 6)).toBe('blocked');
        expect(await tryCreate('app-a', 'u2', 5)).toBe('blocked');
        expect(await tryCreate('app-b', 'u1', 5)).toBe('blocked');
      });

      it('answers unknown_action for an action_id the app never created, also when another app did', async () => {
        await store.create('app-b', [sampleAction({ user_id: 'u1', inv_id: 1, action_id: 5 })]);
        await store.recordFeedback('app-b', { user_id: 'u1', inv_id: 1, action_id: 5, response: 'block' });
        expect(await store.unblock('app-a', 'u1', 5)).toBe('unknown_action');
        expect(await store.unblock('app-b', 'nobody', 5)).toBe('not_blocked');
        expect((await store.create('app-b', [sampleAction({ user_id: 'u1', inv_id: 2, action_id: 5 })]))[0]?.status).toBe('blocked');
      });
    });
  });
  describeActionLogConformance(name, makeStore);
  describeActionStoreCampaignConformance(name, makeStore);
  describeActionStoreErasureConformance(name, makeStore);
}
