import type { AccessEntry } from './model';
import type { AccessLogStorage, ChainHead } from './log';

/** The commands the adapter needs; an ioredis client has them (the caller owns its connection). */
export interface RedisStreamCommands {
  get(key: string): Promise<string | null>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  xrange(key: string, start: string, end: string, count: 'COUNT', n: number): Promise<[string, string[]][]>;
  xrevrange(key: string, end: string, start: string, count: 'COUNT', n: number): Promise<[string, string[]][]>;
  smembers(key: string): Promise<string[]>;
}

/**
 * Compare-and-append: the entry goes in only if the head is still the one its hash was computed
 * over, so two writers (two replicas, two services) never both link to the same previous entry.
 * Redis has no SHA-256 in Lua, hence the hash is computed by the writer and the script only checks.
 * KEYS: stream, head, apps set (one hash slot per app: `{app}`; the apps set is written apart).
 */
const APPEND = `
local held = redis.call('GET', KEYS[2]) or ''
if held ~= ARGV[1] then return 0 end
redis.call('XADD', KEYS[1], ARGV[2], 'e', ARGV[3])
redis.call('SET', KEYS[2], ARGV[4])
return 1
`;

export interface RedisAccessLogOptions {
  redis: RedisStreamCommands;
  /** Key prefix (default `evp:audit:`): per app a stream `{prefix}{<app>}:reads` (id = `<seq>-0`) and a head `{prefix}{<app>}:head` ("seq hash"). */
  prefix?: string;
}

const encodeHead = (h: ChainHead | undefined) => (h ? `${h.seq} ${h.hash}` : '');
function decodeHead(s: string | null): ChainHead | undefined {
  if (!s) return undefined;
  const [seq, hash] = s.split(' ');
  return { seq: Number(seq), hash: hash as string };
}
const entryOf = ([, fields]: [string, string[]]) => JSON.parse(fields[1] as string) as AccessEntry;

/**
 * The real adapter: a Redis stream per app, never trimmed by the platform and written only by
 * XADD with increasing ids, on the AOF-persisted Redis of the stack (docker-compose: appendonly,
 * appendfsync everysec). Reasons for Redis over ClickHouse: docs/privacy.md, "Access log".
 */
export function createRedisAccessLogStorage(opts: RedisAccessLogOptions): AccessLogStorage {
  const prefix = opts.prefix ?? 'evp:audit:';
  const stream = (app: string) => `${prefix}{${app}}:reads`;
  const headKey = (app: string) => `${prefix}{${app}}:head`;
  const appsKey = `${prefix}apps`;
  return {
    async head(appId) {
      return decodeHead(await opts.redis.get(headKey(appId)));
    },
    async tryAppend(appId, expected, entry) {
      const next = encodeHead({ seq: entry.seq, hash: entry.hash });
      const done = await opts.redis.eval(APPEND, 2, stream(appId), headKey(appId), encodeHead(expected), `${entry.seq}-0`, JSON.stringify(entry), next);
      if (done === 1 && entry.seq === 1) await opts.redis.eval(`return redis.call('SADD', KEYS[1], ARGV[1])`, 1, appsKey, appId);
      return done === 1;
    },
    async range(appId, fromSeq, toSeq, count) {
      const end = toSeq >= Number.MAX_SAFE_INTEGER ? '+' : `${toSeq}-0`;
      return (await opts.redis.xrange(stream(appId), `${fromSeq}-0`, end, 'COUNT', count)).map(entryOf);
    },
    async rangeBack(appId, beforeSeq, count) {
      const end = beforeSeq >= Number.MAX_SAFE_INTEGER ? '+' : `${beforeSeq}-0`;
      return (await opts.redis.xrevrange(stream(appId), end, '-', 'COUNT', count)).map(entryOf);
    },
    async first(appId) {
      const [e] = await opts.redis.xrange(stream(appId), '-', '+', 'COUNT', 1);
      return e ? entryOf(e).seq : undefined;
    },
    async apps() {
      return (await opts.redis.smembers(appsKey)).sort();
    },
    async close() {},
  };
}
