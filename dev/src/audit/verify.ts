import { parseArgs } from 'node:util';
import Redis from 'ioredis';
import { createAccessLog, createRedisAccessLogStorage, type AccessLog, type ChainVerdict } from '@evp/http';

/** One line per app: how many entries hold together and the head to keep elsewhere, or the first broken link. */
export function verdictLine(appId: string, v: ChainVerdict): string {
  if (v.ok) return `${appId}: ok, ${v.entries} entries${v.head ? `, head ${v.head.seq} ${v.head.hash}` : ''}`;
  return `${appId}: BROKEN at seq ${v.seq} (${v.reason}); ${v.entries} entries hold before it`;
}

/** Verifies every app's chain (or the named ones); true when all hold. */
export async function verifyAll(log: AccessLog, apps: readonly string[], out: (line: string) => void): Promise<boolean> {
  let ok = true;
  for (const app of apps.length > 0 ? apps : await log.apps()) {
    const v = await log.verify(app);
    out(verdictLine(app, v));
    ok &&= v.ok;
  }
  return ok;
}

/** `npm run audit:verify -- [--redis URL] [--prefix evp:audit:] [--app ID]…`: exit 1 when a chain is broken. */
async function main() {
  const { values } = parseArgs({
    options: {
      redis: { type: 'string', default: 'redis://127.0.0.1:6379' },
      prefix: { type: 'string', default: 'evp:audit:' },
      app: { type: 'string', multiple: true, default: [] },
    },
  });
  const redis = new Redis(values.redis, { maxRetriesPerRequest: 1 });
  try {
    const log = createAccessLog(createRedisAccessLogStorage({ redis, prefix: values.prefix }));
    const ok = await verifyAll(log, values.app, (line) => process.stdout.write(`${line}\n`));
    process.exitCode = ok ? 0 : 1;
  } finally {
    redis.disconnect();
  }
}

if (require.main === module) void main();
