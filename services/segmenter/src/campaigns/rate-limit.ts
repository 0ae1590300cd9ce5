/**
 * A token bucket per campaign: `rate_per_second` actions per second, with a burst of one second's
 * worth. The worker takes tokens for a message's actions before producing it and waits when the
 * bucket is short. Per replica, which for one campaign is the whole rate: every trigger item of a
 * campaign has the key `app_id:campaign_id`, so one partition and one replica (its owner) carry all
 * of them; during a rebalance two replicas may briefly both hold the campaign (documented bound:
 * at most twice the rate for a session timeout).
 */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number; rate: number }>();

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /** Resolves once `n` actions of `key` may go at `rate` per second (undefined rate: at once). */
  async take(key: string, rate: number | undefined, n: number): Promise<void> {
    if (rate === undefined || n <= 0) return;
    let b = this.#buckets.get(key);
    if (!b || b.rate !== rate) this.#buckets.set(key, (b = { tokens: rate, at: this.clock(), rate }));
    let need = n;
    while (need > 0) {
      const now = this.clock();
      b.tokens = Math.min(rate, b.tokens + ((now - b.at) / 1000) * rate);
      b.at = now;
      // A take larger than the burst goes in parts, each at most a full bucket.
      const part = Math.min(need, rate);
      if (b.tokens >= part) {
        b.tokens -= part;
        need -= part;
        continue;
      }
      await this.sleep(Math.ceil(((part - b.tokens) / rate) * 1000));
    }
  }
}
