import { InfraError, type LeaseStore } from '@evp/core';

/** The commands the adapter needs; an ioredis client has them (the caller owns its connection). */
export interface RedisLeaseCommands {
  set(key: string, value: string, px: 'PX', ms: number, nx: 'NX'): Promise<'OK' | null>;
  get(key: string): Promise<string | null>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** Extends the hold only if ARGV[1] holds it: a holder whose hold lapsed and was taken never extends the new holder's. */
const RENEW = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

/** Frees it only if ARGV[1] holds it: a late release never frees another holder's hold. */
const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

export interface RedisLeaseOptions {
  redis: RedisLeaseCommands;
  /** Key prefix (default `evp:lease:`); one string per lease, `{prefix}<name>` → its holder, expiring with the hold (PX). */
  prefix?: string;
}

/**
 * Leases every replica shares through Redis: a take is `SET key holder NX PX ttl` (Redis expires a
 * lapsed hold on its own clock); renew and release compare the holder and act in one Lua script, so
 * a holder acts only on its own hold. A take that finds the key held asks to renew: true when it is
 * this holder's already. One Redis node (or a primary with replicas): a failover that loses the
 * key's write can let a second holder in, which the jobs' own checks make harmless.
 */
export function createRedisLeaseStore(opts: RedisLeaseOptions): LeaseStore {
  const prefix = opts.prefix ?? 'evp:lease:';
  const keyOf = (name: string) => `${prefix}${name}`;
  const failed = (what: string) => (err: unknown) => {
    throw new InfraError('redis', `${what} lease: ${(err as Error).message}`, { retriable: true, cause: err });
  };
  const renew = async (name: string, holder: string, ttlMs: number) =>
    (await opts.redis.eval(RENEW, 1, keyOf(name), holder, Math.ceil(ttlMs)).catch(failed('renewing'))) === 1;
  return {
    async acquire(name, holder, ttlMs) {
      const taken = await opts.redis.set(keyOf(name), holder, 'PX', Math.ceil(ttlMs), 'NX').catch(failed('taking'));
      return taken === 'OK' || renew(name, holder, ttlMs);
    },
    renew,
    async release(name, holder) {
      return (await opts.redis.eval(RELEASE, 1, keyOf(name), holder).catch(failed('releasing'))) === 1;
    },
    holderOf: async (name) => (await opts.redis.get(keyOf(name)).catch(failed('reading'))) ?? undefined,
    async close() {},
  };
}
