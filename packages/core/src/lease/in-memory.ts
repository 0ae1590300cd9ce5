import type { LeaseStore } from '../ports/lease';

/**
 * The leases of one process (`npm start`, tests, a segmenter run without Redis): every job that
 * takes one is in this process, so it only orders the process's own turns. `now` (default Date.now)
 * is the instant holds lapse by.
 */
export function createInMemoryLeaseStore(opts: { now?: () => number } = {}): LeaseStore {
  const now = opts.now ?? Date.now;
  const held = new Map<string, { holder: string; until: number }>();
  /** The live hold of `name`: a lapsed one is forgotten here, as Redis forgets an expired key. */
  const live = (name: string) => {
    const h = held.get(name);
    if (h && h.until <= now()) held.delete(name);
    return held.get(name);
  };
  const hold = (name: string, holder: string, ttlMs: number) => void held.set(name, { holder, until: now() + ttlMs });
  return {
    async acquire(name, holder, ttlMs) {
      const h = live(name);
      if (h && h.holder !== holder) return false;
      hold(name, holder, ttlMs);
      return true;
    },
    async renew(name, holder, ttlMs) {
      if (live(name)?.holder !== holder) return false;
      hold(name, holder, ttlMs);
      return true;
    },
    async release(name, holder) {
      if (live(name)?.holder !== holder) return false;
      held.delete(name);
      return true;
    },
    holderOf: async (name) => live(name)?.holder,
    async close() {},
  };
}
