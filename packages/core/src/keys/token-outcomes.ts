import { CoalescedWrites } from './coalesced-writes';
import {
  USER_TOKEN_COUNTS_SPAN_MS,
  USER_TOKEN_OUTCOMES,
  type UserTokenCount,
  type UserTokenCountStore,
  type UserTokenOutcome,
  type UserTokenOutcomeCounts,
} from '../ports/user-token-counts';

export interface UserTokenOutcomeTrackerOptions {
  store: UserTokenCountStore;
  /** How long counts gather in memory before one write to the store (default 5 s). */
  flushMs?: number;
  now?: () => number;
  /** A failed flush: its counts are kept for the next one (while their minute is within the hour), and this hears of it. */
  onFlushError?: (err: unknown) => void;
}

const MINUTE_MS = 60_000;

export const zeroOutcomeCounts = (): UserTokenOutcomeCounts => Object.fromEntries(USER_TOKEN_OUTCOMES.map((o) => [o, 0])) as UserTokenOutcomeCounts;

/** The start of the oldest minute a last-hour read still sums. */
export const oldestMinuteOfHour = (now: number) => Math.floor(now / MINUTE_MS) * MINUTE_MS - USER_TOKEN_COUNTS_SPAN_MS + MINUTE_MS;

const slot = (c: UserTokenCount) => `${c.appId}\u0000${c.minute}\u0000${c.outcome}`;

/**
 * The last hour's user token outcomes per app, without a write per request: a check only adds one
 * to this replica's count for (app, minute, outcome) in memory; the first one after a flush schedules
 * the next flush, which adds every count gathered since to the shared store in one write per app and
 * minute. A request never waits for the store, and a store that is down fails no request: the flush
 * keeps its counts for the next try (dropping minutes that left the hour) and says so through onFlushError.
 */
export class UserTokenOutcomeTracker {
  private readonly writes: CoalescedWrites<UserTokenCount>;
  private readonly now: () => number;

  constructor(private readonly opts: UserTokenOutcomeTrackerOptions) {
    this.now = opts.now ?? Date.now;
    this.writes = new CoalescedWrites({
      flushMs: opts.flushMs ?? 5_000,
      keyOf: slot,
      merge: (held, c) => (held ? { ...held, count: held.count + c.count } : c),
      write: (batch) => opts.store.add(batch),
      // Minutes older than the hour would never be read: retrying them only grows the backlog.
      keep: (c) => c.minute >= oldestMinuteOfHour(this.now()),
      ...(opts.onFlushError ? { onFlushError: opts.onFlushError } : {}),
    });
  }

  record(appId: string, outcome: UserTokenOutcome): void {
    this.writes.hold({ appId, outcome, minute: Math.floor(this.now() / MINUTE_MS) * MINUTE_MS, count: 1 });
  }

  /** Adds what gathered to the store; on failure puts it back for the next flush. */
  async flush(): Promise<void> {
    await this.writes.flush();
  }

  /** The app's counts of the last hour: the store's, plus what this replica has not flushed yet. */
  async lastHour(appId: string): Promise<UserTokenOutcomeCounts> {
    const now = this.now();
    const counts = await this.opts.store.lastHour(appId, now);
    const oldest = oldestMinuteOfHour(now);
    for (const c of this.writes.held()) if (c.appId === appId && c.minute >= oldest) counts[c.outcome] += c.count;
    return counts;
  }

  /** Flushes what is left (at shutdown); the store's connection belongs to whoever made it. */
  async close(): Promise<void> {
    await this.flush();
  }
}

/** The store of one process (npm start, tests, a service run without Redis: its own counts only). */
export function createInMemoryUserTokenCountStore(): UserTokenCountStore {
  const byApp = new Map<string, Map<number, UserTokenOutcomeCounts>>();
  return {
    async add(counts) {
      for (const c of counts) {
        const minutes = byApp.get(c.appId) ?? new Map<number, UserTokenOutcomeCounts>();
        byApp.set(c.appId, minutes);
        let minute = minutes.get(c.minute);
        if (!minute) {
          // A new minute forgets those that left its hour, as the Redis keys expire: at most 60 per app.
          for (const m of minutes.keys()) if (m < oldestMinuteOfHour(c.minute)) minutes.delete(m);
          minutes.set(c.minute, (minute = zeroOutcomeCounts()));
        }
        minute[c.outcome] += c.count;
      }
    },
    async lastHour(appId, now) {
      const sums = zeroOutcomeCounts();
      const oldest = oldestMinuteOfHour(now);
      for (const [minute, counts] of byApp.get(appId) ?? []) {
        if (minute >= oldest && minute <= now) for (const o of USER_TOKEN_OUTCOMES) sums[o] += counts[o];
      }
      return sums;
    },
    async close() {},
  };
}
