/** The clock port: epoch milliseconds, possibly fractional (the action store's `queued_at` keeps the fraction). */
export interface Clock {
  now(): number;
}

/**
 * The clock of timers: what time it is and how to be called back later. Every periodic job of a
 * consumer (every.ts) runs on the clock its part was given, so a test moves time by hand
 * (ManualClock) and replicas sharing a wall clock fire on the same instants.
 */
export interface TimerClock extends Clock {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Whatever a clock's setTimeout returns; only its clearTimeout reads it. */
export type TimerHandle = object | number;

/**
 * The process's timers on `now` (default Date.now: an injected `now` that runs at wall-clock pace,
 * e.g. a shifted one, keeps the timers' alignment on its own instants). Timers do not keep the process alive.
 */
export function timerClock(now: () => number = Date.now): TimerClock {
  return {
    now,
    setTimeout(fn, ms) {
      const t = setTimeout(fn, ms);
      t.unref();
      return t;
    },
    clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  };
}

interface ManualTimer {
  at: number;
  seq: number;
  fn: () => void;
}

/** Lets every settled promise's reactions run (a turn of the event loop). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A clock that moves only when told to, firing its timers as it passes them; for tests. */
export class ManualClock implements TimerClock {
  private readonly timers: ManualTimer[] = [];
  private seq = 0;
  constructor(private ms = 0) {}
  now(): number {
    return this.ms;
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { at: this.ms + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return timer;
  }
  clearTimeout(handle: TimerHandle): void {
    const i = this.timers.indexOf(handle as ManualTimer);
    if (i >= 0) this.timers.splice(i, 1);
  }
  /** Timers set and not yet fired nor cleared. */
  pending(): number {
    return this.timers.length;
  }
  /**
   * Moves time forward by `ms`, firing each timer due on the way at its own instant, earliest first
   * (ties in the order they were set); what a fired callback started settles (as far as it awaits
   * only promises) before the next timer fires.
   */
  async advance(ms: number): Promise<void> {
    const end = this.ms + ms;
    for (;;) {
      const next = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) break;
      this.timers.splice(this.timers.indexOf(next), 1);
      this.ms = next.at;
      next.fn();
      await settle();
    }
    this.ms = end;
    await settle();
  }
}
