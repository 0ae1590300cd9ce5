import type { Logger } from '@evp/core';
import type { ActionStore } from '@evp/actions';

/**
 * Sweeps expired actions of every app on a timer. Pulls already skip (and lazily sweep) expired
 * actions; this keeps memory bounded for apps nobody pulls. One sweep at a time; `stop` waits for
 * the running one.
 */
export function startSweeper(deps: { store: ActionStore; logger: Logger; intervalMs: number }): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = deps.store
      .sweepExpired()
      .then((n) => {
        if (n > 0) deps.logger.info({ swept: n }, 'swept expired actions');
      })
      .catch((err) => deps.logger.warn({ err }, 'sweep failed; retrying next interval'))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, deps.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
