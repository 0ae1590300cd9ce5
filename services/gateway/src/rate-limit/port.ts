/**
 * Rate limiter port: a fixed window of `limit` requests per `windowMs`, counted per key (the SDK key
 * id). The Redis adapter shares the count across gateway replicas; the in-memory adapter serves
 * embedded mode and single-process runs. Both pass one conformance suite (conformance.ts).
 */
export interface RateLimitPolicy {
  limit: number;
  windowMs: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests left in the current window (0 when refused). */
  remaining: number;
  /** Whole seconds until the window resets; at least 1. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Counts one request for `key`; throws an InfraError when the store cannot answer. */
  take(key: string): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

export const decide = (count: number, ttlMs: number, policy: RateLimitPolicy): RateLimitDecision => ({
  allowed: count <= policy.limit,
  remaining: Math.max(0, policy.limit - count),
  retryAfterSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
});
