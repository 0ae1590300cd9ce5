import { ApiError } from '@evp/core';

/** Defaults of the per-user pull limit (docs/actions.md, "Per-user rate limit"). */
const USER_PULL_BURST = 60;
const USER_PULL_PER_SECOND = 1;
/** Buckets kept before full ones are dropped: a full bucket is the same as none. */
const SWEEP_ABOVE = 100_000;

export interface UserPullLimitOptions {
  /** Pulls one user may make at once (the bucket's size). Default 60. */
  burst?: number;
  /** Pulls per second the bucket refills. Default 1. */
  perSecond?: number;
  now?: () => number;
}

/**
 * A token bucket per app and user on the single-user pulls: a copied SDK key (or a looping client)
 * cannot drain or poll one person's messages faster than the refill. In this process's memory: with
 * N replicas behind a balancer a user gets up to N times the rate, which is still a bound per user.
 */
export function userPullLimit(opts: UserPullLimitOptions = {}) {
  const burst = opts.burst ?? USER_PULL_BURST;
  const perMs = (opts.perSecond ?? USER_PULL_PER_SECOND) / 1000;
  const now = opts.now ?? Date.now;
  const buckets = new Map<string, { tokens: number; at: number }>();
  const level = (b: { tokens: number; at: number }, t: number) => Math.min(burst, b.tokens + (t - b.at) * perMs);

  /** Takes one pull of the user's bucket, or throws 429 rate_limited with the seconds until the next. */
  return (appId: string, userId: string): void => {
    const t = now();
    const key = `${appId}\u0000${userId}`;
    const b = buckets.get(key);
    const tokens = b ? level(b, t) : burst;
    if (tokens < 1) {
      throw new ApiError('rate_limited', {
        message: `Too many pulls for this user: at most ${burst} at once, then ${perMs * 1000} a second.`,
        retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / perMs / 1000)),
      });
    }
    if (buckets.size >= SWEEP_ABOVE && !b) for (const [k, v] of buckets) if (level(v, t) >= burst) buckets.delete(k);
    buckets.set(key, { tokens: tokens - 1, at: t });
  };
}
