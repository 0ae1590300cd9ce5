import Redis from 'ioredis';
import { SEEDED_RECORDS, deletePrefix, describeActionStoreConformance, keysUnder, randomActionPrefix, seedPerson } from '@evp/testkit';
import { InfraError } from '@evp/core';
import { ManualClock } from '../clock';
import { RedisActionStore } from './redis-action-store';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let redis: Redis;
beforeAll(() => {
  redis = new Redis(url, { maxRetriesPerRequest: 2 });
});
afterAll(async () => {
  await redis.quit();
});

describeActionStoreConformance('redis', async (clock, opts) => {
  const prefix = randomActionPrefix();
  return {
    store: new RedisActionStore({ redis, clock, prefix, ...opts }),
    cleanup: async () => {
      await deletePrefix(redis, prefix);
    },
  };
});

describe('RedisActionStore data model', () => {
  const T0 = Date.UTC(2030, 0, 1);
  const DAY = 24 * 3600 * 1000;
  const base = {
    type: 'message' as const,
    render_method: 'push_notification' as const,
    content: { title: 't', body: 'b' },
    tags: [] as string[],
  };
  let prefix: string;
  let clock: ManualClock;
  let store: RedisActionStore;
  beforeEach(() => {
    prefix = randomActionPrefix();
    clock = new ManualClock(T0);
    store = new RedisActionStore({ redis, clock, prefix, retentionMs: DAY });
  });
  afterEach(async () => {
    await deletePrefix(redis, prefix);
  });

  const keys = () => keysUnder(redis, prefix);

  it('puts the app id (as a cluster hash tag) into every key but the app list', async () => {
    for (const app of ['app-a', 'app-b']) {
      await store.create(app, [
        { ...base, user_id: 'u1', delivery_mode: 'cached', attr: { k: 'v' }, expired_at: '2030-01-02T00:00:00Z', inv_id: 1, action_id: 2 },
      ]);
    }
    await store.recordFeedback('app-a', { user_id: 'u1', inv_id: 1, action_id: 2, response: 'block' });
    expect(await keys()).toEqual([
      'apps',
      '{app-a}:a:1:2:u1',
      '{app-a}:blk:u1',
      '{app-a}:ix:u1',
      '{app-a}:log',
      '{app-a}:seq',
      '{app-a}:st:2',
      '{app-b}:a:1:2:u1',
      '{app-b}:all:cached:message:push_notification',
      '{app-b}:exp',
      '{app-b}:ix:u1',
      '{app-b}:j:1:2:u1',
      '{app-b}:log',
      '{app-b}:seq',
      '{app-b}:st:2',
      '{app-b}:u:cached:message:push_notification:u1',
      '{app-b}:x:cached:message:push_notification:1:k:v',
    ]);
    expect(await redis.smembers(`${prefix}apps`).then((a) => a.sort())).toEqual(['app-a', 'app-b']);
  });

  it('keeps a delivered one-off action only as a small tombstone for the retention period', async () => {
    await store.create('app-a', [
      { ...base, user_id: 'u1', delivery_mode: 'one-off', attr: {}, expired_at: '0001-01-01T00:00:00Z', inv_id: 1, action_id: 1 },
      { ...base, user_id: 'u1', delivery_mode: 'one-off', attr: {}, expired_at: '2030-01-03T00:00:00Z', inv_id: 1, action_id: 2 },
    ]);
    const h1 = `${prefix}{app-a}:a:1:1:u1`;
    const h2 = `${prefix}{app-a}:a:1:2:u1`;
    expect([await redis.pttl(h1), await redis.pttl(`${prefix}{app-a}:j:1:1:u1`)]).toEqual([-1, -1]);
    // Finite expiry: kept until expired_at plus retention (2 days + 1 day, from the store's clock).
    expect(Math.abs((await redis.pttl(h2)) - 3 * DAY)).toBeLessThan(5_000);
    expect(Math.abs((await redis.pttl(`${prefix}{app-a}:j:1:2:u1`)) - 3 * DAY)).toBeLessThan(5_000);
    await store.pull('app-a', { user_id: 'u1', type: 'message', render_method: 'push_notification', delivery_mode: 'one-off' });
    expect(await redis.hget(h1, 'st')).toBe('d');
    expect(await redis.exists(`${prefix}{app-a}:j:1:1:u1`)).toBe(0);
    expect(Math.abs((await redis.pttl(h1)) - DAY)).toBeLessThan(5_000);
    expect(await keys()).toEqual([
      'apps',
      '{app-a}:a:1:1:u1',
      '{app-a}:a:1:2:u1',
      '{app-a}:ix:u1',
      '{app-a}:log',
      '{app-a}:seq',
      '{app-a}:st:1',
      '{app-a}:st:2',
    ]);
    // The user's index lists both hashes with when they expire, and expires with the later one.
    expect(await redis.zrange(`${prefix}{app-a}:ix:u1`, 0, -1, 'WITHSCORES')).toEqual([
      'a:1:1:u1',
      String(T0 + DAY),
      'a:1:2:u1',
      String(Date.UTC(2030, 0, 3) + DAY),
    ]);
    expect(Math.abs((await redis.pttl(`${prefix}{app-a}:ix:u1`)) - 3 * DAY)).toBeLessThan(5_000);
    expect(await redis.hgetall(h2)).toEqual({
      u: 'u1',
      m: 'one-off',
      t: 'message',
      r: 'push_notification',
      e: String(Date.UTC(2030, 0, 3)),
      s: '2',
      st: 'd',
      av: '[]',
      i: '1',
      c: '2',
      l: `${T0}|${Date.UTC(2030, 0, 3)}|one-off|message|push_notification`,
    });
  });

  it('appends one outbox record per step kind of a script call, in the script; marks a cached action until its first pull', async () => {
    const cached = { ...base, delivery_mode: 'cached' as const, attr: {}, expired_at: '2030-01-02T00:00:00Z' };
    await store.create(
      'app-a',
      [
        { ...cached, user_id: 'u1', inv_id: 1, action_id: 1 },
        { ...cached, user_id: 'u2', inv_id: 1, action_id: 1, tags: ['t'] },
      ],
      { source: 'test' },
    );
    const entry = (user: string) => redis.get(`${prefix}{app-a}:j:1:1:${user}`);
    expect([(await entry('u1'))?.slice(0, 2), (await entry('u2'))?.slice(0, 2)]).toEqual([' {', ' {']);
    // The mark is JSON whitespace: a store without the action log (a rolling deploy) still parses it.
    expect((JSON.parse(`[${await entry('u2')}]`) as { user_id: string }[])[0]?.user_id).toBe('u2');
    clock.advance(1000);
    const pulled = await store.pull('app-a', { user_id: 'u1', type: 'message', render_method: 'push_notification', delivery_mode: 'cached' });
    expect(pulled.data.map((r) => r.payload.internal.ref)).toEqual(['1:1']);
    await store.pull('app-a', { user_id: 'u1', type: 'message', render_method: 'push_notification', delivery_mode: 'cached' });
    // The mark is gone from the delivered one (its TTL kept: expiry plus retention), kept on the other.
    expect([(await entry('u1'))?.slice(0, 2), (await entry('u2'))?.slice(0, 2)]).toEqual(['{"', ' {']);
    expect(Math.abs((await redis.pttl(`${prefix}{app-a}:j:1:1:u1`)) - (Date.UTC(2030, 0, 2) - T0 + DAY))).toBeLessThan(5_000);
    const records = (await redis.xrange(`${prefix}{app-a}:log`, '-', '+')).map(([, fields]) => fields);
    const created = (tags: string[]) =>
      JSON.stringify({
        type: 'message',
        render_method: 'push_notification',
        delivery_mode: 'cached',
        tags,
        attr: {},
        expired_at: Date.UTC(2030, 0, 2),
        available_at: null,
      });
    expect(records).toEqual([
      ['k', 'c', 't', String(T0), 's', 'test', '1:1:u1', created([]), '1:1:u2', created(['t'])],
      ['k', 'd', 't', String(T0 + 1000), '1:1:u1', `${T0}|${Date.UTC(2030, 0, 2)}|cached|message|push_notification`],
    ]);
  });

  it('keeps cap counters per user (and key) that expire with their window, and pending lists only while pending', async () => {
    const one = { ...base, delivery_mode: 'one-off' as const, attr: {}, expired_at: '0001-01-01T00:00:00Z', inv_id: 1 };
    await store.create('app-a', [
      { ...one, user_id: 'a:b', action_id: 1, caps: { campaign: { key: 'c:1', max: 5, within_ms: 60_000 }, app: { max: 5 } } },
      { ...one, user_id: 'a:b', action_id: 2, available_at: new Date(T0 + 1000).toISOString() },
    ]);
    const t = '{app-a}:';
    expect((await keys()).filter((k) => /:(cc|ac|pd|pu):/.test(k))).toEqual([
      `${t}ac:a:b`,
      `${t}cc:3:a:b:c:1`,
      `${t}pd:one-off:message:push_notification`,
      `${t}pu:one-off:message:push_notification:a:b`,
    ]);
    expect(await redis.zrange(`${prefix}${t}cc:3:a:b:c:1`, 0, -1, 'WITHSCORES')).toEqual([`1:1:a:b@${T0}`, String(T0)]);
    const ttl = await redis.pttl(`${prefix}${t}cc:3:a:b:c:1`);
    expect(ttl > 55_000 && ttl <= 60_000).toBe(true);
    expect(Math.abs((await redis.pttl(`${prefix}${t}ac:a:b`)) - DAY)).toBeLessThan(5_000);
    expect(await redis.hget(`${prefix}${t}a:1:2:a:b`, 'v')).toBe(String(T0 + 1000));
    expect(await redis.hget(`${prefix}${t}a:1:1:a:b`, 'v')).toBeNull();
    clock.set(T0 + 1000);
    const pulled = await store.pull('app-a', { user_id: 'a:b', type: 'message', render_method: 'push_notification', delivery_mode: 'one-off' });
    expect(pulled.data.map((r) => r.payload.internal.ref)).toEqual(['1:1', '1:2']);
    expect((await keys()).filter((k) => /:(pd|pu):/.test(k))).toEqual([]);
  });

  it('reloads its scripts after Redis lost them (NOSCRIPT)', async () => {
    await store.create('app-a', [{ ...base, user_id: 'u1', delivery_mode: 'one-off', attr: {}, expired_at: '0001-01-01T00:00:00Z', inv_id: 1, action_id: 1 }]);
    await redis.script('FLUSH');
    const p = await store.pull('app-a', { user_id: 'u1', type: 'message', render_method: 'push_notification', delivery_mode: 'one-off' });
    expect(p.data.map((r) => r.payload.internal.ref)).toEqual(['1:1']);
  });

  it('throws a retriable InfraError when Redis is unreachable', async () => {
    const down = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true, retryStrategy: () => null });
    const broken = new RedisActionStore({ redis: down, clock, prefix });
    const err = await broken
      .pull('app-a', { user_id: 'u1', type: 'message', render_method: 'push_notification', delivery_mode: 'one-off' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InfraError);
    expect([(err as InfraError).dependency, (err as InfraError).retriable]).toEqual(['redis', true]);
    expect(await broken.ping()).toBe(false);
    down.disconnect();
  });
});

describe('RedisActionStore erasure', () => {
  let prefix: string;
  let store: RedisActionStore;
  beforeEach(() => {
    prefix = randomActionPrefix();
    store = new RedisActionStore({ redis, clock: new ManualClock(Date.UTC(2030, 0, 1)), prefix });
  });
  afterEach(async () => {
    await deletePrefix(redis, prefix);
  });

  const rid = /^\d+:\d+:u1$/;
  /** A key's contents as plain data, the erased user's parts left out (their rids, their hash field and zset member). */
  async function withoutU1(key: string): Promise<unknown> {
    const k = prefix + key;
    switch (await redis.type(k)) {
      case 'zset': {
        const flat = await redis.zrange(k, 0, -1, 'WITHSCORES');
        const pairs: string[][] = [];
        for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i] as string, flat[i + 1] as string]);
        return pairs.filter(([m]) => m !== 'u1' && !rid.test(m as string));
      }
      case 'hash': {
        const { u1: _gone, ...rest } = await redis.hgetall(k);
        return rest;
      }
      case 'stream': {
        // Records are rewritten under new ids: compared by their fields, without the user's entries.
        const records = (await redis.xrange(k, '-', '+')).map(([, fields]) => {
          const out: string[] = [];
          for (let i = 0; i < fields.length; i += 2) if (!rid.test(fields[i] as string)) out.push(fields[i] as string, fields[i + 1] as string);
          return JSON.stringify(out);
        });
        return records.filter((r) => /"\d+:\d+:/.test(r)).sort();
      }
      default:
        return redis.dump(k);
    }
  }

  it("deletes the user's keys through the index; every other key is byte for byte the same, shared ones lose only the user's parts", async () => {
    for (const app of ['app-a', 'app-b']) for (const user of ['u1', 'u1:x']) await seedPerson(store, app, user);
    const before = await keysUnder(redis, prefix);
    const dumps = new Map<string, Buffer | null>();
    const shared = new Map<string, unknown>();
    for (const k of before) {
      dumps.set(k, await redis.dumpBuffer(prefix + k));
      shared.set(k, await withoutU1(k));
    }

    const erased = await store.erasePeople('app-a', ['u1']);
    expect(erased.before).toEqual({ records: SEEDED_RECORDS, keys: 10 });
    expect(erased.after).toEqual({ records: 0, keys: 0 });
    expect(erased.storage).toMatch(
      /^BGREWRITEAOF(: Background append only file rewriting (started|scheduled)( \(after waiting \d+ ms for a running rewrite\))?| refused: .*already in progress.*); AOF (on|off)/,
    );

    const after = await keysUnder(redis, prefix);
    expect(before.filter((k) => !after.includes(k))).toEqual([
      '{app-a}:a:1:1:u1',
      '{app-a}:a:1:2:u1',
      '{app-a}:a:1:3:u1',
      '{app-a}:a:1:4:u1',
      '{app-a}:ac:u1',
      '{app-a}:blk:u1',
      '{app-a}:cc:2:u1:c',
      '{app-a}:ix:u1',
      '{app-a}:j:1:3:u1',
      '{app-a}:u:cached:message:push_notification:u1',
    ]);
    expect(after.filter((k) => !before.includes(k))).toEqual([]);
    // Nothing left names the user, in a key's name or inside it.
    for (const k of after) {
      const inside = JSON.stringify(await withoutU1(k)) === JSON.stringify(shared.get(k));
      const named = k.startsWith('{app-a}') && /(:u1$|:u1:(?!x))/.test(k);
      expect([k, named]).toEqual([k, false]);
      expect([k, inside]).toEqual([k, true]);
    }
    const changed = [];
    for (const k of after) if (!(await redis.dumpBuffer(prefix + k))?.equals(dumps.get(k) as Buffer)) changed.push(k);
    // Only keys the user shared with others changed, and only by the user's parts (above).
    expect(changed).toEqual(['{app-a}:all:cached:message:push_notification', '{app-a}:exp', '{app-a}:le:2', '{app-a}:log', '{app-a}:lz:2']);
  });
});
