import {
  InfraError,
  USER_TOKEN_COUNTS_SPAN_MS,
  oldestMinuteOfHour,
  zeroOutcomeCounts,
  type UserTokenCount,
  type UserTokenCountStore,
  type UserTokenOutcome,
} from '@evp/core';
import type { RedisHashCommands } from './redis-usage';

/** Adds to one minute's hash and sets when it goes: one hour after its minute ends (ARGV[1], epoch ms). */
const ADD = `
for i = 2, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
return 0
`;

/** Sums the minutes' hashes (all keys of one app: one hash slot, so one script serves a cluster too). */
const SUM = `
local sums = {}
for _, key in ipairs(KEYS) do
  local fields = redis.call('HGETALL', key)
  for i = 1, #fields, 2 do sums[fields[i]] = (sums[fields[i]] or 0) + tonumber(fields[i + 1]) end
end
local out = {}
for outcome, n in pairs(sums) do out[#out + 1] = outcome; out[#out + 1] = n end
return out
`;

const MINUTE_MS = 60_000;

export interface RedisUserTokenCountsOptions {
  redis: Pick<RedisHashCommands, 'eval'>;
  /** Key prefix (default `evp:keys:`); one hash per app and minute, `{prefix}{<app_id>}:user_tokens:<minute epoch ms>`, outcome → calls. */
  prefix?: string;
}

/**
 * Per-minute counts of user token outcomes shared by every replica through Redis: one script call per
 * app and minute per flush, one per read. Each minute's hash expires an hour after the minute ends.
 */
export function createRedisUserTokenCountStore(opts: RedisUserTokenCountsOptions): UserTokenCountStore {
  const prefix = opts.prefix ?? 'evp:keys:';
  const hashOf = (appId: string, minute: number) => `${prefix}{${appId}}:user_tokens:${minute}`;
  const failed = (what: string) => (err: unknown) => {
    throw new InfraError('redis', `${what} user token counts: ${(err as Error).message}`, { retriable: true, cause: err });
  };
  return {
    async add(counts: readonly UserTokenCount[]) {
      const byHash = new Map<string, { minute: number; args: (string | number)[] }>();
      for (const c of counts) {
        const key = hashOf(c.appId, c.minute);
        const held = byHash.get(key) ?? { minute: c.minute, args: [] };
        held.args.push(c.outcome, c.count);
        byHash.set(key, held);
      }
      await Promise.all(
        [...byHash].map(([key, { minute, args }]) => opts.redis.eval(ADD, 1, key, minute + MINUTE_MS + USER_TOKEN_COUNTS_SPAN_MS, ...args)),
      ).catch(failed('adding'));
    },
    async lastHour(appId: string, now: number) {
      const keys: string[] = [];
      for (let m = oldestMinuteOfHour(now); m <= now; m += MINUTE_MS) keys.push(hashOf(appId, m));
      const flat = (await opts.redis.eval(SUM, keys.length, ...keys).catch(failed('reading'))) as (string | number)[];
      const sums = zeroOutcomeCounts();
      for (let i = 0; i < flat.length; i += 2) {
        const outcome = String(flat[i]) as UserTokenOutcome;
        if (outcome in sums) sums[outcome] = Number(flat[i + 1]);
      }
      return sums;
    },
    async close() {},
  };
}
