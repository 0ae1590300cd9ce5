import fc from 'fast-check';
import Redis from 'ioredis';
import { InMemoryActionStore } from '@evp/embedded';
import { deletePrefix, drainLog, randomActionPrefix, sampleAction } from '@evp/testkit';
import { ManualClock } from '../clock';
import { ACTION_RESPONSES, NEVER_EXPIRES, type ActionCaps, type NewAction, type PullQuery } from '../model';
import type { ActionStore } from '../store';
import { RedisActionStore } from './redis-action-store';

/**
 * Random operation sequences run against the Redis adapter and the in-memory adapter side by side:
 * every answer must be identical, and so must the action logs they wrote. The conformance suite pins the behaviour; this finds the corners
 * it does not name (duplicates within a call, expiry between pulls, blocks mid-sequence, paging,
 * frequency caps and their windows, actions that become available between pulls, a user erased
 * mid-sequence).
 */
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const T0 = Date.UTC(2030, 0, 1);
const DIMS = [
  ['message', 'push_notification'],
  ['message', 'in_app_message'],
  ['custom', 'generic_message'],
] as const;

const user = fc.constantFrom('u1', 'u2', 'u3');
const dim = fc.constantFrom(...DIMS);
const mode = fc.constantFrom('one-off' as const, 'cached' as const);
const attr = fc.dictionary(fc.constantFrom('k', 'j', 'a:b'), fc.constantFrom('x', 'y', ''), { maxKeys: 2 });

/** One window per campaign key (as docs/actions.md asks), short enough for `advance` to pass it. */
const CAP_WINDOWS = { c1: 2000, c2: 5000 } as const;
const caps: fc.Arbitrary<ActionCaps> = fc
  .record({
    key: fc.option(fc.constantFrom('c1' as const, 'c2' as const), { nil: undefined }),
    max: fc.integer({ min: 1, max: 2 }),
    app: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
  })
  .map(({ key, max, app }) => ({
    ...(key === undefined ? {} : { campaign: { key, max, within_ms: CAP_WINDOWS[key] } }),
    ...(app === undefined ? {} : { app: { max: app } }),
  }));

const newAction: fc.Arbitrary<NewAction> = fc
  .record({
    user,
    dim,
    mode,
    attr,
    expiresIn: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined, freq: 2 }),
    inv: fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined, freq: 5 }),
    act: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined, freq: 5 }),
    availableIn: fc.option(fc.integer({ min: -1, max: 4 }), { nil: undefined, freq: 2 }),
    caps: fc.option(caps, { nil: undefined, freq: 2 }),
  })
  .map(({ user: u, dim: [type, rm], mode: m, attr: at, expiresIn, inv, act, availableIn, caps: c }) => ({
    user_id: u,
    type,
    render_method: rm,
    delivery_mode: m,
    content: { title: 't', body: 'b' },
    attr: at,
    tags: [],
    expired_at: expiresIn === undefined ? NEVER_EXPIRES : new Date(T0 + expiresIn * 1000).toISOString(),
    ...(inv !== undefined ? { inv_id: inv } : {}),
    ...(act !== undefined ? { action_id: act } : {}),
    ...(availableIn !== undefined ? { available_at: new Date(T0 + availableIn * 1000).toISOString() } : {}),
    ...(c !== undefined ? { caps: c } : {}),
  }));

type Op =
  | { op: 'create'; actions: NewAction[] }
  | { op: 'pull'; query: PullQuery; max: number }
  | { op: 'advance'; ms: number }
  | { op: 'sweep' }
  | { op: 'feedback'; user: string; inv: number; act: number; response: (typeof ACTION_RESPONSES)[number]; details?: string }
  | { op: 'unblock'; user: string; act: number }
  | { op: 'stats'; act: number }
  | { op: 'erase'; user: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.array(newAction, { minLength: 1, maxLength: 5 }).map((actions) => ({ op: 'create' as const, actions })), weight: 4 },
  {
    arbitrary: fc
      .record({ user: fc.constantFrom('*', 'u1', 'u2', 'u3'), dim, mode, attr, max: fc.integer({ min: 1, max: 6 }) })
      .map(({ user: u, dim: [type, rm], mode: m, attr: at, max }) => ({
        op: 'pull' as const,
        query: { user_id: u, type, render_method: rm, delivery_mode: m, ...(Object.keys(at).length > 0 ? { attr: at } : {}) },
        max,
      })),
    weight: 4,
  },
  { arbitrary: fc.integer({ min: 0, max: 2500 }).map((ms) => ({ op: 'advance' as const, ms })), weight: 2 },
  { arbitrary: fc.constant({ op: 'sweep' as const }), weight: 1 },
  {
    arbitrary: fc
      .record({
        user,
        inv: fc.integer({ min: 1, max: 2 }),
        act: fc.integer({ min: 1, max: 4 }),
        response: fc.constantFrom(...ACTION_RESPONSES),
        details: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
      })
      .map(({ details, ...r }) => ({ op: 'feedback' as const, ...r, ...(details === undefined ? {} : { details }) })),
    weight: 1,
  },
  { arbitrary: fc.record({ user, act: fc.integer({ min: 1, max: 4 }) }).map((r) => ({ op: 'unblock' as const, ...r })), weight: 1 },
  { arbitrary: fc.integer({ min: 1, max: 4 }).map((act) => ({ op: 'stats' as const, act })), weight: 1 },
  { arbitrary: user.map((u) => ({ op: 'erase' as const, user: u })), weight: 1 },
);

const LAPSED_CAP = [
  {
    op: 'create',
    actions: [sampleAction({ user_id: 'u3', caps: { campaign: { key: 'c1', max: 1, within_ms: 2000 } } }), sampleAction({ user_id: 'u1' })],
  },
  { op: 'advance', ms: 154 },
  { op: 'advance', ms: 1846 },
  { op: 'create', actions: [sampleAction({ user_id: 'u3' })] },
  { op: 'erase', user: 'u3' },
] as Op[];
/** Its twin (found after the first fix): the cap lapses with no later write of the user, so nothing prunes Redis's index. */
const LAPSED_CAP_UNPRUNED = [LAPSED_CAP[0], LAPSED_CAP[1], LAPSED_CAP[2], LAPSED_CAP[4]] as Op[];

function run(store: ActionStore, clock: ManualClock, o: Op): Promise<unknown> {
  switch (o.op) {
    case 'create':
      return store.create('app', o.actions);
    case 'pull':
      return store.pull('app', o.query, { max: o.max });
    case 'advance':
      clock.advance(o.ms);
      return Promise.resolve(null);
    case 'sweep':
      return store.sweepExpired();
    case 'feedback':
      return store.recordFeedback('app', {
        user_id: o.user,
        inv_id: o.inv,
        action_id: o.act,
        response: o.response,
        ...(o.details === undefined ? {} : { details: o.details }),
      });
    case 'unblock':
      return store.unblock('app', o.user, o.act);
    case 'stats':
      return store.stats('app', o.act);
    case 'erase':
      // `keys` and `storage` are each adapter's own; the records are the contract.
      return store.erasePeople('app', [o.user]).then((r) => ({ before: r.before.records, after: r.after }));
  }
}

describe('Redis and in-memory adapters agree on random operation sequences', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(url, { maxRetriesPerRequest: 2 });
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('gives identical answers to every operation', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 60 }), async (ops) => {
        const prefix = randomActionPrefix();
        const redisClock = new ManualClock(T0);
        const memClock = new ManualClock(T0);
        const redisStore = new RedisActionStore({ redis, clock: redisClock, prefix });
        const memStore = new InMemoryActionStore({ clock: memClock });
        try {
          for (const o of ops) {
            const [a, b] = [await run(redisStore, redisClock, o), await run(memStore, memClock, o)];
            expect({ o, answer: a }).toEqual({ o, answer: b });
          }
          // Both logged the same steps, record by record.
          expect(await redisStore.logLength()).toBe(await memStore.logLength());
          expect(await drainLog(redisStore)).toEqual(await drainLog(memStore));
        } finally {
          await deletePrefix(redis, prefix);
        }
      }),
      // Sequences fast-check once found (CI, seed 1474927287, and after the first fix): a campaign cap
      // lapsed exactly at its window's end, which one adapter still counted among the person's holdings.
      { numRuns: 200, examples: [[LAPSED_CAP], [LAPSED_CAP_UNPRUNED]] },
    );
  }, 120_000);
});
