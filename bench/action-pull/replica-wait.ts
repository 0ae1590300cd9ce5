import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { NEVER_EXPIRES, RedisActionStore, systemClock, type NewAction } from '@evp/actions';
import { RedisGroup, freePort } from '@evp/testkit';

/**
 * What the replica wait (`REDIS_WAIT_REPLICAS=1`: `WAIT 1 <ms>` after a delivering one-off pull)
 * costs: the same one-off pulls with and without it, on one connection to a primary with one
 * replica (redis-server processes of its own, loopback), the variant without it as the baseline.
 */
export async function withReplicaGroup<T>(
  run: (stores: { plain: RedisActionStore; waiting: RedisActionStore; seed: (app: string, n: number) => Promise<void> }) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-replica-wait-'));
  const primary = await freePort();
  const group = await RedisGroup.start({ dir, masterName: 'bench', ports: { primary, replica: await freePort(), sentinels: [] } });
  const redis = new Redis({ port: primary, lazyConnect: true });
  try {
    await redis.connect();
    const clock = systemClock();
    const plain = new RedisActionStore({ redis, clock, prefix: 'bench:' });
    const unconfirmed = { n: 0 };
    const waiting = new RedisActionStore({
      redis,
      clock,
      prefix: 'bench:',
      replicaWait: { replicas: 1, timeoutMs: 200 },
      onUnconfirmed: () => unconfirmed.n++,
    });
    const seed = async (app: string, n: number) => {
      for (let at = 0; at < n; at += 1000) {
        const batch: NewAction[] = Array.from({ length: Math.min(1000, n - at) }, (_, k) => ({
          user_id: `oo-${at + k}`,
          type: 'message',
          render_method: 'in_app_message',
          delivery_mode: 'one-off',
          content: { title: 'Title', body: 'A body of moderate length, like a real in-app message.' },
          attr: { screen: 'home' },
          tags: ['bench'],
          expired_at: NEVER_EXPIRES,
          inv_id: 1,
          action_id: 100,
        }));
        await plain.create(app, batch);
      }
    };
    const out = await run({ plain, waiting, seed });
    if (unconfirmed.n > 0) process.stderr.write(`replica wait: ${unconfirmed.n} pulls not confirmed within 200 ms\n`);
    return out;
  } finally {
    redis.disconnect();
    await group.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
