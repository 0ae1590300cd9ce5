import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { errorMessage } from '../errors';
import type { Logger } from '../logger';
import type { LeaseStore } from '../ports/lease';
import { timerClock, type TimerClock } from '../consumer/clock';

/** The shortest hold: a job whose timer is off (period 0) still holds the lease through a turn called by hand. */
const MIN_LEASE_TTL_MS = 60_000;

/**
 * How long a job's hold lasts unrenewed, for a timer of period `periodMs`: twice the period (at least
 * a minute). The holder renews at the end of each turn, and `every` starts the next turn at most one
 * period later, so a live holder keeps the lease from turn to turn (a late timer has a whole period
 * of slack) and the other replicas, firing on the same instants, find it taken. A holder that dies
 * without releasing frees it within two periods: another replica's turn runs at most three periods
 * after the last one.
 */
export const leaseTtlMs = (periodMs: number): number => Math.max(2 * periodMs, MIN_LEASE_TTL_MS);

export interface LeasedTurnsOptions {
  lease: LeaseStore;
  /** The job's lease, the same in every replica: `campaigns.adapt`, `segments.expiry`. */
  name: string;
  /** How long a hold lasts unrenewed (leaseTtlMs of the job's period). */
  ttlMs: number;
  logger: Logger;
  /** This process's name for itself in the lease. Default: host, pid and a random part (unique per job and process). */
  holder?: string;
  /** The timers of the renewal while a turn runs. Default: the process's: a hold lapses in real time, whatever clock the job's timer runs on. */
  timers?: TimerClock;
}

/** A turn that ran (its result), or was not run because another replica holds the lease. */
export type LeasedTurn<T> = { ran: true; value: T } | { ran: false };

/** A job that runs a turn only while holding its lease (leasedTurns). */
export interface LeasedTurns {
  readonly holder: string;
  /**
   * Runs `turn` when this process holds the lease or takes it; otherwise runs nothing. The hold is
   * renewed every third of the TTL while the turn runs (a turn longer than the TTL is not started
   * again elsewhere) and once more when it ends; it is kept after the turn, so the replica that ran
   * this turn runs the next. A failure of the lease store throws (nothing run).
   */
  run<T>(turn: () => Promise<T>): Promise<LeasedTurn<T>>;
  /** Frees the lease if this process holds it (on stop), so another replica takes over at its next turn, not after the TTL. Never throws. */
  release(): Promise<void>;
}

/**
 * A singleton job over a shared lease: of the replicas running the same timer, only the lease's
 * holder runs a turn. The lease cannot make a turn exclusive against a holder that stops for longer
 * than the TTL (a paused process, a renewal Redis did not answer) and then goes on: another replica
 * may have taken the lease meanwhile. That is logged when the holder sees it, and each job keeps its
 * own writes harmless when done twice (docs/campaigns.md, "Adaptive allocation").
 */
export function leasedTurns(opts: LeasedTurnsOptions): LeasedTurns {
  const { lease, name, ttlMs } = opts;
  const holder = opts.holder ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const timers = opts.timers ?? timerClock();
  const logger = opts.logger.child({ lease: name, holder });
  const lost = (when: string) => logger.warn(`lease lost ${when}: another replica may run this job's turn too`);

  /** Renews the hold until `done` says the turn ended; each renewal is set when the last one answered. */
  function keepHeld(done: () => boolean): () => void {
    let handle: ReturnType<TimerClock['setTimeout']> | undefined;
    const schedule = () => {
      handle = timers.setTimeout(() => {
        handle = undefined;
        lease
          .renew(name, holder, ttlMs)
          .then((held) => held || done() || lost('during a turn'))
          .catch((err: unknown) => logger.warn({ err }, `renewing the lease failed (tried again): ${errorMessage(err)}`))
          .finally(() => done() || schedule());
      }, ttlMs / 3);
    };
    schedule();
    return () => {
      if (handle !== undefined) timers.clearTimeout(handle);
      handle = undefined;
    };
  }

  return {
    holder,
    async run(turn) {
      if (!(await lease.acquire(name, holder, ttlMs))) {
        logger.debug('turn not run: another replica holds the lease');
        return { ran: false };
      }
      let ended = false;
      const stop = keepHeld(() => ended);
      let value;
      try {
        value = await turn();
      } finally {
        ended = true;
        stop();
      }
      // The hold counts from the turn's end: the next turn is at most a period later, within the TTL.
      await lease.renew(name, holder, ttlMs).then(
        (held) => held || lost('by the end of a turn'),
        (err: unknown) => logger.warn({ err }, `renewing the lease after a turn failed: ${errorMessage(err)}`),
      );
      return { ran: true, value };
    },
    async release() {
      await lease.release(name, holder).catch((err: unknown) => logger.warn({ err }, `releasing the lease failed (it lapses): ${errorMessage(err)}`));
    },
  };
}
