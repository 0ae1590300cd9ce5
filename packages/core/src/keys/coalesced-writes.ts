export interface CoalescedWritesOptions<V> {
  /** How long values gather in memory before one write. */
  flushMs: number;
  keyOf: (v: V) => string;
  /** The value held for a key once `v` joins `held` (the later instant, a sum …). */
  merge: (held: V | undefined, v: V) => V;
  write: (batch: V[]) => Promise<void>;
  /** Whether a value of a failed write is worth retrying (default: all are). */
  keep?: (v: V) => boolean;
  /** A failed write: its values are merged back for the next flush, and this hears of it (log, metric). */
  onFlushError?: (err: unknown) => void;
}

/**
 * Values gathered in memory per key and written in one batch: the first value after a flush schedules
 * the next one, so an idle process holds no timer; a failed write puts its values back. The key usage
 * and the user token counts both write to a shared store this way, never once per request.
 */
export class CoalescedWrites<V> {
  private pending = new Map<string, V>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: CoalescedWritesOptions<V>) {}

  hold(v: V): void {
    const k = this.opts.keyOf(v);
    this.pending.set(k, this.opts.merge(this.pending.get(k), v));
    // unref: a scheduled flush never keeps a process (or a test) alive; close() flushes at shutdown.
    this.timer ??= setTimeout(() => void this.flush(), this.opts.flushMs).unref();
  }

  /** What has not been written yet. */
  held(): IterableIterator<V> {
    return this.pending.values();
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await this.opts.write(batch);
    } catch (err) {
      const keep = this.opts.keep ?? (() => true);
      for (const v of batch) if (keep(v)) this.hold(v);
      this.opts.onFlushError?.(err);
    }
  }
}
