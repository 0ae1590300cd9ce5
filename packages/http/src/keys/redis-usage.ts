import { InfraError, type KeyUsageStore, type KeyUse } from '@evp/core';

/** The two commands the store needs; an ioredis client has them (the caller owns its connection). */
export interface RedisHashCommands {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  hgetall(key: string): Promise<Record<string, string>>;
}

/** Keeps the later instant per field: replicas flush in any order and an old flush never goes back in time. */
const KEEP_LATEST = `
for i = 1, #ARGV, 2 do
  local held = tonumber(redis.call('HGET', KEYS[1], ARGV[i]))
  if held == nil or held < tonumber(ARGV[i + 1]) then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 0
`;

export interface RedisKeyUsageOptions {
  redis: RedisHashCommands;
  /** Key prefix (default `evp:keys:`); one hash per app, `{prefix}{<app_id>}:last_used`, key id → epoch ms. */
  prefix?: string;
}

/** Last uses shared by every replica of every service through Redis: one round trip per app per flush. */
export function createRedisKeyUsageStore(opts: RedisKeyUsageOptions): KeyUsageStore {
  const prefix = opts.prefix ?? 'evp:keys:';
  const hashOf = (appId: string) => `${prefix}{${appId}}:last_used`;
  const failed = (what: string) => (err: unknown) => {
    throw new InfraError('redis', `${what} key usage: ${(err as Error).message}`, { retriable: true, cause: err });
  };
  return {
    async record(uses: readonly KeyUse[]) {
      const byApp = new Map<string, (string | number)[]>();
      for (const u of uses) {
        const args = byApp.get(u.appId) ?? [];
        args.push(u.keyId, u.at);
        byApp.set(u.appId, args);
      }
      await Promise.all([...byApp].map(([appId, args]) => opts.redis.eval(KEEP_LATEST, 1, hashOf(appId), ...args))).catch(failed('writing'));
    },
    async lastUsed(appId: string) {
      const held = await opts.redis.hgetall(hashOf(appId)).catch(failed('reading'));
      return new Map(Object.entries(held).map(([keyId, at]) => [keyId, Number(at)]));
    },
    async close() {},
  };
}
