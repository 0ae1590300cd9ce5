import { errorMessage } from '../errors';
import type { Logger } from '../logger';
import type { TimerClock } from './clock';

export interface EveryOptions {
  /** The period; 0 or less: no timer at all (someone else calls `run`). */
  everyMs: number;
  /** Named in the log line of a failed run. */
  what: string;
  run: () => Promise<void>;
  clock: TimerClock;
  logger: Logger;
}

export interface Every {
  /** Clears the timer and resolves once a run in progress has ended; no run starts after it. */
  stop(): Promise<void>;
}

/**
 * Runs `run` on every multiple of `everyMs` of the clock (so replicas sharing a wall clock run on the
 * same instants, and a test's clock decides when). A failed run is logged and the timer goes on.
 * Runs never overlap: the next one is set when a run ends, for the first multiple after its end, so
 * the multiples a long run spans are skipped, not queued.
 */
export function every(opts: EveryOptions): Every {
  const { everyMs, clock } = opts;
  if (everyMs <= 0) return { stop: async () => undefined };
  let stopped = false;
  let handle: ReturnType<TimerClock['setTimeout']> | undefined;
  let running: Promise<void> | undefined;
  const fire = () => {
    handle = undefined;
    running = (async () => opts.run())()
      .catch((err: unknown) => opts.logger.error({ err }, `${opts.what} failed: ${errorMessage(err)}`))
      .finally(() => {
        running = undefined;
        schedule();
      });
  };
  const schedule = () => {
    if (!stopped) handle = clock.setTimeout(fire, everyMs - (clock.now() % everyMs));
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (handle !== undefined) clock.clearTimeout(handle);
      handle = undefined;
      await running;
    },
  };
}
