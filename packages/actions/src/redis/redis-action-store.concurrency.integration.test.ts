import Redis from 'ioredis';
import { ManualClock, NEVER_EXPIRES, type ActionStore, type NewAction, type PullQuery } from '../index';
import { RedisActionStore } from './redis-action-store';
import { deletePrefix, drainLog, randomActionPrefix } from '@evp/testkit';

/**
 * Several action-store replicas pulling the same app at once: one-off actions must each be
 * delivered exactly once (none twice, none lost), cached ones to every puller until they expire.
 */
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const T0 = Date.UTC(2030, 0, 1);
const USERS = 100;
const ONE_OFF = 10_000;
const PULLERS_PER_STORE = 50;

const action = (i: number, overrides: Partial<NewAction> = {}): NewAction => ({
  user_id: `user-${i % USERS}`,
  type: 'message',
  render_method: 'in_app_message',
  delivery_mode: 'one-off',
  content: { title: `t${i}`, body: `b${i}` },
  attr: { campaign: i % 2 === 0 ? 'even' : 'odd' },
  tags: [],
  expired_at: NEVER_EXPIRES,
  inv_id: 1,
  action_id: i,
  ...overrides,
});

describe('RedisActionStore under concurrent pullers on two instances', () => {
  const prefix = randomActionPrefix();
  const clock = new ManualClock(T0);
  const connections: Redis[] = [];
  let stores: ActionStore[];

  beforeAll(() => {
    // Two connections = two replicas as far as Redis can tell.
    for (let i = 0; i < 2; i++) connections.push(new Redis(url, { maxRetriesPerRequest: 2 }));
    stores = connections.map((redis) => new RedisActionStore({ redis, clock, prefix }));
  });
  afterAll(async () => {
    await deletePrefix(connections[0] as Redis, prefix);
    await Promise.all(connections.map((c) => c.quit()));
  });

  it('2 instances × 50 pullers over 10,000 one-off actions deliver (and log the delivery of) each exactly once', async () => {
    const all = Array.from({ length: ONE_OFF }, (_, i) => action(i));
    for (let i = 0; i < all.length; i += 1000) {
      const results = await (stores[0] as ActionStore).create('app-conc', all.slice(i, i + 1000));
      expect(results.every((r) => r.status === 'created')).toBe(true);
    }

    const base: PullQuery = { user_id: '*', type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' };
    /** Kinds of puller: `*` pulls, `*` narrowed by attr, and single-user pulls walking the users. */
    async function puller(store: ActionStore, n: number): Promise<string[]> {
      const got: string[] = [];
      const kind = n % 3;
      let idle = 0;
      for (let round = 0; idle < 2; round++) {
        let query: PullQuery;
        if (kind === 0) query = base;
        else if (kind === 1) query = { ...base, attr: { campaign: round % 2 === 0 ? 'even' : 'odd' } };
        else query = { ...base, user_id: `user-${(n + round) % USERS}` };
        const { data, more } = await store.pull('app-conc', query, { max: 1 + (n % 40) });
        for (const r of data) got.push(r.payload.internal.ref);
        // A single-user puller is idle only once a whole walk over the users found nothing.
        if (data.length === 0 && !more && (kind !== 2 || round >= USERS)) idle++;
        else if (data.length > 0) idle = 0;
      }
      return got;
    }

    const results = await Promise.all(
      stores.flatMap((store, s) => Array.from({ length: PULLERS_PER_STORE }, (_, p) => puller(store, s * PULLERS_PER_STORE + p))),
    );
    const delivered = results.flat();
    expect(delivered).toHaveLength(ONE_OFF);
    expect(new Set(delivered).size).toBe(ONE_OFF);
    expect((await (stores[1] as ActionStore).pull('app-conc', base)).data).toEqual([]);
    const pullersThatGotSome = results.filter((r) => r.length > 0).length;
    expect(pullersThatGotSome).toBeGreaterThan(10);
    const stats = await (stores[1] as ActionStore).stats('app-conc', 0);
    expect([stats?.totals.created, stats?.totals.delivered]).toEqual([1, 1]);
    // The action log says the same: one created and one delivered entry per action, none twice.
    const log = await drainLog(stores[0] as ActionStore);
    const count = (kind: string) => new Set(log.filter((e) => e.kind === kind).map((e) => e.action_id)).size;
    expect([log.length, count('created'), count('delivered')]).toEqual([2 * ONE_OFF, ONE_OFF, ONE_OFF]);
  }, 120_000);

  it('returns cached actions to every concurrent puller until they expire', async () => {
    const cached = Array.from({ length: 20 }, (_, i) => action(i, { delivery_mode: 'cached', inv_id: 2, expired_at: new Date(T0 + 60_000).toISOString() }));
    await (stores[1] as ActionStore).create('app-conc', cached);
    const query: PullQuery = { user_id: '*', type: 'message', render_method: 'in_app_message', delivery_mode: 'cached' };
    const expected = cached.map((a) => `2:${a.action_id}`);
    const pulls = await Promise.all(stores.flatMap((store) => Array.from({ length: PULLERS_PER_STORE }, () => store.pull('app-conc', query))));
    expect(pulls).toHaveLength(100);
    for (const p of pulls) expect(p.data.map((r) => r.payload.internal.ref)).toEqual(expected);
    clock.set(T0 + 60_000);
    const after = await Promise.all(stores.map((store) => store.pull('app-conc', query)));
    expect(after).toEqual([
      { data: [], more: false },
      { data: [], more: false },
    ]);
    expect((await (stores[0] as ActionStore).stats('app-conc', 3))?.by_inv_id['2']).toEqual({
      created: 1,
      delivered: 0,
      expired: 1,
      responses: { shown: 0, open: 0, discard: 0, block: 0, expired: 0, error: 0 },
    });
  }, 60_000);
});
