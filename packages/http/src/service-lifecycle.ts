import { ConfigError, errorMessage, type Logger } from '@evp/core';

/** One step of a service's shutdown. */
export interface StopStep {
  what: string;
  run: () => unknown;
}

export interface ServiceLifecycle {
  /**
   * Stops the service once: every step in order — a failing step is logged and the next still runs
   * (a stuck consumer must not keep the producer from flushing) — then exits with `code`. A second
   * call while stopping returns at once.
   */
  shutdown(reason: string, code?: number): Promise<void>;
  /**
   * The `onDead` of a consumer: one that stopped for good leaves the process up consuming nothing,
   * so it logs why and shuts down with exit code 1; an orchestrator restarts the process.
   */
  exitOnDead: (consumer: string) => (err: Error) => void;
}

export interface ServiceLifecycleOptions {
  logger: Logger;
  /**
   * The steps, read when the shutdown starts: a composition root lists parts it may not have
   * assigned yet (a consumer dying during start-up) and skips them with `undefined` checks.
   */
  steps: () => StopStep[];
  /** Default process.exit. */
  exit?: (code: number) => void;
  /** Shut down on SIGTERM and SIGINT (default true). */
  signals?: boolean;
}

/** The shutdown of a composition root (main.ts): one place for the order, the logging and the exit. */
export function serviceLifecycle(opts: ServiceLifecycleOptions): ServiceLifecycle {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const lifecycle: ServiceLifecycle = {
    async shutdown(reason, code = 0) {
      if (stopping) return;
      stopping = true;
      opts.logger.info({ reason }, 'shutting down');
      for (const step of opts.steps()) {
        try {
          await step.run();
        } catch (err) {
          opts.logger.error({ err }, `shutdown: ${step.what} failed: ${errorMessage(err)}`);
        }
      }
      exit(code);
    },
    exitOnDead: (consumer) => (err) => {
      opts.logger.fatal({ err }, `the ${consumer} consumer stopped for good: not ready, exiting to be restarted`);
      void lifecycle.shutdown('consumer dead', 1);
    },
  };
  if (opts.signals ?? true) {
    process.once('SIGTERM', () => void lifecycle.shutdown('SIGTERM'));
    process.once('SIGINT', () => void lifecycle.shutdown('SIGINT'));
  }
  return lifecycle;
}

/**
 * Runs a composition root. A start-up failure exits 1, printing a configuration error as its list of
 * problems (every bad variable at once) and anything else as it is.
 */
export function runService(main: () => Promise<void>, exit: (code: number) => void = (code) => process.exit(code)): Promise<void> {
  return main().catch((err: unknown) => {
    console.error(err instanceof ConfigError ? err.message : err);
    exit(1);
  });
}
