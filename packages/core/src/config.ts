import { z } from 'zod';

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/**
 * Parses the environment once against a zod schema and reports every problem at once.
 * The only place a service reads `process.env` is its config module, which calls this.
 */
export function parseConfig<S extends z.ZodTypeAny>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
}

/** `a, b,,c` → `['a', 'b', 'c']`: how every list variable is written. */
function commaList(s: string): string[] {
  return s
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** Shared env fragments so every service spells its variables the same way. */
export const envFragments = {
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  kafkaBrokers: z.string().min(1).transform(commaList),
  /** Browser origins allowed by CORS, comma-separated; `*` (the default) allows any. */
  corsOrigins: z.string().default('*').transform(commaList),
  port: z.coerce.number().int().min(0).max(65535),
  url: z.string().url(),
  positiveInt: z.coerce.number().int().positive(),
  nonNegativeInt: z.coerce.number().int().min(0),
  /** `true` or `false`, nothing else. */
  bool: z.enum(['true', 'false']).transform((v) => v === 'true'),
  /**
   * How long the group waits for a consumer that stopped heartbeating (killed, frozen) before its
   * partitions move to another member. Short for fast failover; the broker refuses a value outside
   * its group.min/max.session.timeout.ms (6 s to 30 min by default), and the consumer then stops for
   * good, which the service reports by failing readiness and exiting 1.
   */
  /**
   * PRIVACY_HASH_KEY: the secret of the keyed hash (HMAC-SHA256) erasure requests and suppressions
   * are stored by (docs/privacy.md); at least 32 characters, the same in every service and replica,
   * never changed (a new key no longer finds the old suppressions). Unset: no suppression is read,
   * and the segmenter serves no /v1/privacy routes.
   */
  privacyHashKey: z.string().min(32, 'at least 32 characters').optional(),
  kafkaSessionTimeoutMs: z.coerce.number().int().positive().default(10_000),
  /** The keys every service reads (docs/keys.md): the file, how often it is re-read, how keys' last uses are shared. */
  keys: {
    KEYS_FILE: z.string().min(1),
    /** A changed keys file applies within this (no restart); a malformed one is refused and the last good keys stay. */
    KEYS_RELOAD_INTERVAL_MS: z.coerce.number().int().positive().default(2_000),
    /** Uses (and user token outcome counts) gather in memory this long before one write per used key (per app and minute) to Redis (REDIS_URL). */
    KEYS_USAGE_FLUSH_MS: z.coerce.number().int().positive().default(5_000),
    /** The Redis key prefix of the keys' last uses and the last hour's user token counts. */
    KEYS_USAGE_PREFIX: z.string().min(1).default('evp:keys:'),
  },
};
