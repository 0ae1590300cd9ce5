import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { InfraError } from '@evp/core';
import { RedisGroup, freePort, waitFor } from '@evp/testkit';
import { systemClock } from '../clock';
import { NEVER_EXPIRES, type NewAction } from '../model';
import { RedisActionStore } from './redis-action-store';

/**
 * The replica wait (`replicaWait`) on a primary, a replica and one Sentinel of their own: what it
 * confirms survives a kill -9 of the primary; what it cannot confirm (a stalled replica) fails a
 * create (retriable) and still answers a pull. WAIT timeouts of 1.5 s: on a loaded machine the
 * replica may take a few hundred ms to acknowledge.
 */
const MASTER = 'evp-test';
const oneOff = (i: number): NewAction => ({
  user_id: `u${i % 3}`,
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: 'one-off',
  content: { title: `t${i}`, body: 'b' },
  attr: {},
  tags: [],
  expired_at: NEVER_EXPIRES,
  inv_id: 1,
  action_id: i + 1,
});
const star = { user_id: '*', type: 'message', render_method: 'push_notification', delivery_mode: 'one-off' } as const;

let dir: string;
let group: RedisGroup;
let redis: Redis;
const unconfirmed: [string, number][] = [];
let store: RedisActionStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evp-redis-group-'));
  group = await RedisGroup.start({ dir, masterName: MASTER, ports: { primary: await freePort(), replica: await freePort(), sentinels: [await freePort()] } });
  redis = new Redis({ sentinels: group.sentinels, name: MASTER, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined); // the kill -9 below: reconnection errors are expected
  store = new RedisActionStore({
    redis,
    clock: systemClock(),
    prefix: 'failover:',
    replicaWait: { replicas: 1, timeoutMs: 1500 },
    onUnconfirmed: (what, n) => unconfirmed.push([what, n]),
  });
}, 60_000);
afterAll(async () => {
  redis?.disconnect();
  await group?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('answers a pull the stalled replica did not confirm, and fails such a create as retriable', async () => {
  expect(await store.create('a', [0, 1, 2].map(oneOff))).toEqual([0, 1, 2].map((i) => ({ status: 'created', inv_id: 1, action_id: i + 1, user_id: `u${i}` })));
  const replica = new Redis({ port: await replicaPort(), lazyConnect: true });
  await replica.connect();
  const sleeping = replica.call('DEBUG', 'SLEEP', '5');
  try {
    const pulled = await store.pull('a', star);
    expect(pulled.data.map((a) => a.payload.internal.action_id)).toEqual([1, 2, 3]);
    const err = await store.create('a', [oneOff(3)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InfraError);
    expect([(err as InfraError).retriable, (err as Error).message]).toEqual([true, 'redis: create: fewer than 1 replicas confirmed within 1500 ms']);
    expect(unconfirmed).toEqual([
      ['pull', 0],
      ['create', 0],
    ]);
  } finally {
    await sleeping;
    replica.disconnect();
  }
  // The repeat of the refused create is answered as the duplicate it is (idempotent), now confirmed.
  expect(await store.create('a', [oneOff(3)])).toEqual([{ status: 'duplicate', inv_id: 1, action_id: 4, user_id: 'u0' }]);
});

it('keeps every confirmed create and delivery across a kill -9 of the primary', async () => {
  unconfirmed.length = 0;
  expect(
    (
      await store.create(
        'b',
        Array.from({ length: 30 }, (_, i) => oneOff(i)),
      )
    ).map((r) => r.status),
  ).toEqual(Array(30).fill('created'));
  const first = await store.pull('b', star, { max: 20 });
  expect(first.data).toHaveLength(20);
  expect(unconfirmed).toEqual([]);
  const old = await group.killPrimary();
  await group.awaitNewPrimary(old);
  // On the promoted replica (which has no replica of its own: read without waiting) the 20 delivered
  // are gone for good, the other 10 are delivered once, and the 30 creates are there.
  const after = new RedisActionStore({ redis, clock: systemClock(), prefix: 'failover:' });
  const rest = await waitFor(() => after.pull('b', star).catch(() => undefined), { timeoutMs: 30_000, intervalMs: 100, what: 'a pull on the new primary' });
  expect(rest.data.map((a) => a.payload.internal.action_id)).toEqual(Array.from({ length: 10 }, (_, i) => 21 + i));
  expect((await after.pull('b', star)).data).toEqual([]);
  expect(
    (
      await after.create(
        'b',
        Array.from({ length: 30 }, (_, i) => oneOff(i)),
      )
    ).map((r) => r.status),
  ).toEqual(Array(30).fill('duplicate'));
  // The new primary has no replica: a waiting store finds that out with its first WAIT (ROLE lists
  // none) and then refuses creates without waiting, until one is back.
  const waiting = new RedisActionStore({
    redis,
    clock: systemClock(),
    prefix: 'failover:',
    replicaWait: { replicas: 1, timeoutMs: 300 },
    onUnconfirmed: (what, n) => unconfirmed.push([what, n]),
  });
  for (let i = 0; i < 2; i++) await expect(waiting.create('b', [oneOff(40)])).rejects.toThrow('redis: create: fewer than 1 replicas confirmed within 300 ms');
  expect(unconfirmed).toEqual([
    ['create', 0],
    ['create', 0],
  ]);
}, 90_000);

/** The replica's port: the one of the group's two servers that is not the primary. */
async function replicaPort(): Promise<number> {
  const info = await redis.info('replication');
  return Number(/slave0:ip=[^,]+,port=(\d+)/.exec(info)?.[1]);
}
