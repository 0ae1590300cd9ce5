import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { DEFAULT_RETENTION, createLogger, type Analytics } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { createRedisLeaseStore } from '@evp/http';
import { deletePrefix, useMigratedChdb } from '@evp/testkit';
import { handCompile } from '../testing';
import { createSegmentEngine, type SegmentEngine } from './engine';

// Two replicas of the segment engine on one ClickHouse (chdb) and one real Redis, each with its own
// connection: both run the expiry of ended memberships at the same instant, and one round runs (one
// DELETE of segment_members), on one of them; the other takes over once the lease is released.
const chdb = useMigratedChdb('expiry_lease');
const logger = createLogger('expiry-lease-it', 'silent');
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 30, 0, 0, 0);
const ts = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
const prefix = `test:lease:${randomBytes(6).toString('hex')}:`;
const connections = [new Redis(process.env.REDIS_URL as string), new Redis(process.env.REDIS_URL as string)];
afterAll(async () => {
  await deletePrefix(connections[0] as Redis, prefix);
  for (const r of connections) r.disconnect();
});

it('two engines sharing a Redis lease both run the expiry at once: one round runs, on one of them; the other takes over once it is released', async () => {
  const app = 'exp_lease_app';
  // A user whose membership ended 40 days ago (past the app's 30 days), and one 10 days ago.
  for (const [user, days] of [
    ['gone', 40],
    ['recent', 10],
  ] as const)
    for (const emitted of [false, true])
      await chdb.analytics.insert('segment_members', [
        {
          app_id: app,
          segment_id: 'seg-1',
          user_id: user,
          is_member: false,
          entered_at: ts(NOW - 100 * DAY),
          exited_at: ts(NOW - days * DAY),
          version: 1,
          seq: 2,
          emitted,
          state_version: 4 + (emitted ? 1 : 0),
          written_at: ts(NOW - days * DAY),
        },
      ]);
  let deletes = 0;
  const counted: Analytics = {
    ...chdb.analytics,
    command: async (sql, params) => {
      if (sql.startsWith('DELETE FROM segment_members')) deletes++;
      return chdb.analytics.command(sql, params);
    },
  };
  const replica = (redis: Redis): SegmentEngine =>
    createSegmentEngine({
      analytics: counted,
      bus: createInProcessBus(),
      registry: createInProcessRegistry(),
      logger,
      now: () => NOW,
      compile: handCompile,
      expiry: { apps: () => [app], retention: () => ({ ...DEFAULT_RETENTION, history: 30 }) },
      lease: createRedisLeaseStore({ redis, prefix }),
    });
  const engines = connections.map(replica);
  const members = async () =>
    (await chdb.analytics.query<{ user_id: string }>('SELECT user_id FROM segment_members FINAL WHERE app_id = {app:String} ORDER BY user_id', { app })).map(
      (r) => r.user_id,
    );

  const ran = await Promise.all(engines.map((e) => e.expire()));
  expect(ran.map(String).sort()).toEqual(['false', 'true']);
  expect(deletes).toBe(1);
  expect(await members()).toEqual(['recent']);
  const holder = ran.indexOf(true);
  const other = engines[1 - holder] as SegmentEngine;
  // The holder keeps the lease between rounds: the other's next round runs nothing.
  expect(await other.expire()).toBe(false);
  // Stopped, the holder releases it: the other's next round runs (nothing left to delete).
  await (engines[holder] as SegmentEngine).stop();
  expect(await other.expire()).toBe(true);
  expect([deletes, await members()]).toEqual([1, ['recent']]);
  await other.stop();
});
