import Redis from 'ioredis';
import { ManualClock, RedisActionStore } from '@evp/actions';
import { createLogger } from '@evp/core';
import { SEEDED_RECORDS, deletePrefix, keysUnder, randomActionPrefix, seedPerson as seedActions, useMigratedChdb } from '@evp/testkit';
import { seedPerson } from '../testing';
import { createPrivacyService, type ErasureRequest } from '.';

// The privacy processor as the segmenter composes it on the real stack: ClickHouse (chdb here) and
// the action store's Redis, a store entry `redis.actions` beside the tables.
const chdb = useMigratedChdb('privacy_erase_redis');
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 2, lazyConnect: true });
const prefix = randomActionPrefix();
afterAll(async () => {
  await deletePrefix(redis, prefix);
  await redis.quit();
});

describe('erasure of the action store in Redis', () => {
  it('completes with the Redis entry at 0 records and 0 keys, asks for an AOF rewrite, and leaves the other user and app alone', async () => {
    const actions = new RedisActionStore({ redis, clock: new ManualClock(Date.UTC(2030, 0, 1)), prefix });
    for (const app of ['rda', 'rdb']) for (const user of ['u-red', 'u-red-kept']) await seedActions(actions, app, user);
    await seedPerson(chdb.analytics, 'rda', 'u-red', 'p-red');
    const othersKeys = async () => (await keysUnder(redis, prefix)).filter((k) => k.startsWith('{rdb}') || k.includes('u-red-kept')).sort();
    const kept = await othersKeys();
    const privacy = createPrivacyService({ analytics: chdb.analytics, logger: createLogger('test', 'silent'), hashKey: 'test-key', actions });
    const r = await privacy.createErasure('rda', [
      { kind: 'user', id: 'u-red' },
      { kind: 'patient', id: 'p-red' },
    ]);
    await privacy.runOnce();
    const done = (await privacy.get('rda', 'erasure', r.id)) as ErasureRequest;
    expect(done.state).toBe('completed');
    expect(done.not_covered.some((c) => c.startsWith('redis'))).toBe(false);
    const entry = done.stores.find((e) => e.store === 'redis.actions');
    expect(entry).toMatchObject({ state: 'completed', before: SEEDED_RECORDS, after: 0, keys_after: 0 });
    expect(entry?.storage).toMatch(
      /^BGREWRITEAOF(: Background append only file rewriting (started|scheduled)( \(after waiting \d+ ms for a running rewrite\))?| refused: .*already in progress.*); AOF (on|off)/,
    );
    // No key of the app names the erased user any more; the others' keys are all there.
    expect((await keysUnder(redis, prefix)).filter((k) => k.startsWith('{rda}') && /(:u-red$|:u-red:)/.test(k))).toEqual([]);
    expect(await othersKeys()).toEqual(kept);
    for (const [app, user] of [
      ['rda', 'u-red-kept'],
      ['rdb', 'u-red'],
    ] as const) {
      expect([app, user, (await actions.countPeople(app, [user])).records]).toEqual([app, user, SEEDED_RECORDS]);
    }
  });
});
