import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { KeyRing, createLogger } from '@evp/core';
import { chdbScratchPath, createChdbAnalystSql } from '@evp/embedded';
import { chainEntry, createAccessLog, createRedisAccessLogStorage, type AccessLog } from '@evp/http';
import { createEmbeddedParts } from '../../dev/src/embedded-parts';
import { startPipeline } from '../../dev/src/pipeline';

// The access log's cost on the SQL and inspector paths: the same sequential requests against
// `npm start`'s pipeline with the Redis log (one GET + one EVAL per read) and with a log that
// stores nothing (the call only), alternating rounds so a busy machine hits both alike.
const ANALYST = 'analyst_bench_0123456789abcd';
const API = 'api_bench_0123456789abcdef01';
const keys = new KeyRing({
  keys: [
    { id: 'bench-analyst', app_id: 'bench-app', role: 'analyst', key: ANALYST },
    { id: 'bench-api', app_id: 'bench-app', role: 'api', key: API },
  ],
});
const N = Number(process.argv[2] ?? 300);
const ROUNDS = 3;

const noLog: AccessLog = {
  append: async (read) => chainEntry(read, Date.now(), undefined),
  list: async () => ({ data: [] }),
  verify: async () => ({ ok: true, entries: 0, head: undefined }),
  apps: async () => [],
  close: async () => {},
};

async function time(n: number, op: () => Promise<void>): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await op();
  return Number(process.hrtime.bigint() - t0) / 1e6 / n;
}

async function main() {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `bench:audit:${randomUUID()}:`;
  const results: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, log] of [
      ['none', noLog],
      ['redis', createAccessLog(createRedisAccessLogStorage({ redis, prefix }))],
    ] as const) {
      const database = `bench_${randomUUID().slice(0, 8)}`;
      const parts = createEmbeddedParts({ chdbPath: ':memory:', database });
      const p = await startPipeline({
        parts,
        keys,
        logger: createLogger('bench', 'silent'),
        analystSql: createChdbAnalystSql({ path: chdbScratchPath(), database }),
        analystDatabase: database,
        accessLog: log,
      });
      const sql = async () => {
        const r = await fetch(`${p.baseUrl}/clickhouse/?query=${encodeURIComponent('SELECT count() FROM events')}`, {
          headers: { 'X-ClickHouse-Key': ANALYST },
        });
        if (r.status !== 200) throw new Error(`sql ${r.status}`);
        await r.arrayBuffer();
      };
      const inspect = async () => {
        const r = await fetch(`${p.baseUrl}/v1/inspect/events?user_id=u-1&limit=10`, { headers: { Authorization: `Bearer ${API}` } });
        if (r.status !== 200) throw new Error(`inspect ${r.status}`);
        await r.arrayBuffer();
      };
      await time(20, sql);
      await time(20, inspect);
      (results[`sql ${name}`] ??= []).push(await time(N, sql));
      (results[`inspect ${name}`] ??= []).push(await time(N, inspect));
      await p.stop();
      await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  for (const path of ['sql', 'inspect']) {
    const none = median(results[`${path} none`] as number[]);
    const withLog = median(results[`${path} redis`] as number[]);
    process.stdout.write(
      `${path}: ${none.toFixed(2)} ms without the log, ${withLog.toFixed(2)} ms with it (Redis): ratio ${(withLog / none).toFixed(2)}, +${(withLog - none).toFixed(2)} ms per read; rounds ${JSON.stringify(results[`${path} none`]?.map((x) => +x.toFixed(2)))} vs ${JSON.stringify(results[`${path} redis`]?.map((x) => +x.toFixed(2)))}\n`,
    );
  }
  const keysLeft = await redis.keys(`${prefix}*`);
  if (keysLeft.length > 0) await redis.del(...keysLeft);
  redis.disconnect();
}

void main().then(() => process.exit(0));
