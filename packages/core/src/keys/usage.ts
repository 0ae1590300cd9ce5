import type { KeyUsageStore, KeyUse } from '../ports/key-usage';
import { CoalescedWrites } from './coalesced-writes';

export interface KeyUsageTrackerOptions {
  store: KeyUsageStore;
  /** How long uses gather in memory before one write to the store (default 5 s). */
  flushMs?: number;
  now?: () => number;
  /** A failed flush: its uses are kept for the next one, and this hears of it (log, metric). */
  onFlushError?: (err: unknown) => void;
}

const slot = (u: KeyUse) => `${u.appId}\u0000${u.keyId}`;

/**
 * When each key was last used, without a write per request: a use only sets this replica's latest
 * instant for the key in memory; the first use after a flush schedules the next flush, which sends
 * one entry per key used since (whatever the request count) to the shared store. Idle replicas
 * hold no timer. Reads merge the store with what this replica has not flushed yet, so a replica
 * sees its own uses at once and other replicas' within `flushMs`.
 */
export class KeyUsageTracker {
  private readonly writes: CoalescedWrites<KeyUse>;
  private readonly now: () => number;

  constructor(private readonly opts: KeyUsageTrackerOptions) {
    this.now = opts.now ?? Date.now;
    this.writes = new CoalescedWrites({
      flushMs: opts.flushMs ?? 5_000,
      keyOf: slot,
      // A newer use wins, whichever was held first (a failed flush's uses come back after newer ones).
      merge: (held, u) => (!held || held.at < u.at ? u : held),
      write: (batch) => opts.store.record(batch),
      ...(opts.onFlushError ? { onFlushError: opts.onFlushError } : {}),
    });
  }

  used(appId: string, keyId: string): void {
    this.writes.hold({ appId, keyId, at: this.now() });
  }

  /** Sends what gathered; on failure puts it back (a newer use wins) for the next flush. */
  async flush(): Promise<void> {
    await this.writes.flush();
  }

  async lastUsed(appId: string): Promise<Map<string, number>> {
    const stored = await this.opts.store.lastUsed(appId);
    for (const u of this.writes.held()) {
      if (u.appId === appId && (stored.get(u.keyId) ?? -Infinity) < u.at) stored.set(u.keyId, u.at);
    }
    return stored;
  }

  /** Flushes what is left (at shutdown); the store's connection belongs to whoever made it. */
  async close(): Promise<void> {
    await this.flush();
  }
}

/** The store of one process (npm start, tests, a service run without Redis: its own uses only). */
export function createInMemoryKeyUsageStore(): KeyUsageStore {
  const byApp = new Map<string, Map<string, number>>();
  return {
    async record(uses) {
      for (const u of uses) {
        const app = byApp.get(u.appId) ?? new Map<string, number>();
        byApp.set(u.appId, app);
        if ((app.get(u.keyId) ?? -Infinity) < u.at) app.set(u.keyId, u.at);
      }
    },
    async lastUsed(appId) {
      return new Map(byApp.get(appId));
    },
    async close() {},
  };
}
