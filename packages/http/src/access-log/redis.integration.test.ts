import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { describeAccessLogConformance } from './conformance';
import { createAccessLog } from './log';
import { createRedisAccessLogStorage } from './redis';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
const other = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
const prefixes: string[] = [];

afterAll(async () => {
  for (const p of prefixes) {
    const keys = await redis.keys(`${p}*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis.disconnect();
  other.disconnect();
});

describeAccessLogConformance('redis', async () => {
  const prefix = `test:audit:${randomUUID()}:`;
  prefixes.push(prefix);
  const clock = { t: 1_700_000_000_000 };
  const now = () => clock.t;
  const stream = (app: string) => `${prefix}{${app}}:reads`;
  return {
    // Two connections: the peer is another process's client.
    log: createAccessLog(createRedisAccessLogStorage({ redis, prefix }), { now }),
    peer: createAccessLog(createRedisAccessLogStorage({ redis: other, prefix }), { now }),
    clock,
    tamper: {
      // A stream entry cannot be edited in place: rebuild the stream with the one entry changed.
      async modify(appId, seq, patch) {
        const all = await redis.xrange(stream(appId), '-', '+');
        await redis.del(stream(appId));
        for (const [id, fields] of all) {
          const e = JSON.parse(fields[1] as string) as Record<string, unknown>;
          await redis.xadd(stream(appId), id, 'e', JSON.stringify(e.seq === seq ? { ...e, ...patch } : e));
        }
      },
      async remove(appId, seq) {
        await redis.xdel(stream(appId), `${seq}-0`);
      },
    },
  };
});
