import type { Logger } from '@evp/core';
import type { PrivacyService } from './service';

/**
 * Runs the privacy processor every `intervalMs`: each pass carries every open request as far as it
 * goes. A failed pass (ClickHouse away) is logged and the next one resumes from the stored states.
 */
export function startPrivacyProcessor(deps: { privacy: PrivacyService; logger: Logger; intervalMs: number }) {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const pass = () => {
    running = deps.privacy
      .runOnce()
      .catch((err: unknown) => deps.logger.warn({ err }, 'privacy pass failed; the next pass resumes it'))
      .finally(() => {
        if (!stopped) timer = setTimeout(pass, deps.intervalMs);
      });
  };
  timer = setTimeout(pass, 0);
  return {
    /** Waits for the pass in hand: a request is left in a stored state, never half-written. */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
