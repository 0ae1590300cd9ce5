import Redis from 'ioredis';
import { deletePrefix, keysUnder, randomActionPrefix } from '@evp/testkit';
import { ManualClock } from '../clock';
import { RedisActionStore } from './redis-action-store';

// Retention in Redis (docs/actions.md, "Redis data model"; docs/privacy.md): every key that names a
// user or holds their data expires, or is emptied when what it indexes is retired. Short TTLs here:
// a retired action is kept 1.5 s, a block 1.5 s, so the test watches the keys go.
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const T0 = Date.UTC(2030, 0, 1);
const USER = 'patient-7';
let redis: Redis;
let prefix: string;
beforeAll(() => {
  redis = new Redis(url, { maxRetriesPerRequest: 2 });
  prefix = randomActionPrefix();
});
afterAll(async () => {
  await deletePrefix(redis, prefix);
  await redis.quit();
});

/** Keys that name the user, or hold a person's data for an action (blocks, error reports). */
const personal = async () => (await keysUnder(redis, prefix)).filter((k) => k.includes(USER) || /:(le|lz):/.test(k));

describe('RedisActionStore: nothing of a user outlives its use', () => {
  it('gives every personal key an expiry, and after the actions are retired and the TTLs pass, none is left', async () => {
    const clock = new ManualClock(T0);
    const store = new RedisActionStore({ redis, clock, prefix, retentionMs: 1_500, blockTtlMs: 1_500 });
    const action = { type: 'message' as const, render_method: 'push_notification' as const, content: { title: 't', body: 'b' }, tags: [], attr: {} };
    await store.create('clinic', [
      // Delivered by the pull below; expires half a second after creation (store clock).
      { ...action, user_id: USER, delivery_mode: 'one-off', expired_at: new Date(T0 + 500).toISOString(), inv_id: 1, action_id: 1 },
      // Never pulled: expires after a second, under a campaign cap of one second.
      {
        ...action,
        user_id: USER,
        delivery_mode: 'one-off',
        expired_at: new Date(T0 + 1_000).toISOString(),
        inv_id: 1,
        action_id: 2,
        caps: { campaign: { key: 'c1', max: 5, within_ms: 1_000 } },
      },
    ]);
    const pulled = await store.pull('clinic', { user_id: USER, type: 'message', render_method: 'push_notification', delivery_mode: 'one-off' });
    expect(pulled.data.map((r) => r.payload.internal.ref)).toEqual(['1:1', '1:2']);
    await store.recordFeedback('clinic', { user_id: USER, inv_id: 1, action_id: 1, response: 'error', details: 'crashed' });
    await store.recordFeedback('clinic', { user_id: USER, inv_id: 1, action_id: 1, response: 'block' });
    clock.set(T0 + 2_000);
    await store.sweepExpired();

    const held = await personal();
    expect(held).toEqual([
      `{clinic}:a:1:1:${USER}`,
      `{clinic}:a:1:2:${USER}`,
      `{clinic}:blk:${USER}`,
      `{clinic}:cc:${USER.length}:${USER}:c1`,
      // The user's index (what an erasure deletes) expires with the last key it lists.
      `{clinic}:ix:${USER}`,
      '{clinic}:le:1',
      '{clinic}:lz:1',
    ]);
    // At most expiry (store clock) + retention: 2.5 s for the action that expired at 1 s.
    for (const k of held) {
      const ttl = await redis.pttl(`${prefix}${k}`);
      expect([k, ttl > 0 && ttl <= 2_500]).toEqual([k, true]);
    }

    const deadline = Date.now() + 10_000;
    let left = held;
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      left = await personal();
    }
    expect(left).toEqual([]);
  });
});
