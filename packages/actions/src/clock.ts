import type { Clock } from '@evp/core';

/** The clock port is @evp/core's (the consumers' timers run on its TimerClock). */
export type { Clock };

/**
 * Wall-clock time with sub-millisecond resolution. `performance.now()` has microseconds but drifts
 * from the wall clock when the system clock is stepped, so it is re-anchored whenever the two
 * disagree by a millisecond or more.
 */
export function systemClock(): Clock {
  let origin = Date.now() - performance.now();
  return {
    now() {
      const p = performance.now();
      const wall = Date.now();
      const t = origin + p;
      if (t < wall || t >= wall + 1) {
        origin = wall - p;
        return wall;
      }
      return t;
    },
  };
}

/** A clock that moves only when told to; for tests and simulations. */
export class ManualClock implements Clock {
  constructor(private ms: number) {}
  now(): number {
    return this.ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}
