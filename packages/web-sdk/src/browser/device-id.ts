/// <reference lib="dom" />
import type { SyncStore } from '../core/ports';

/** How long the tab that made the device id holds its lock (below). */
const ID_LOCK_MS = 10_000;

/**
 * Runs `make` (which reads the device id at `key` of `shared`, or makes and stores one, and answers
 * it) so that the tabs of a first visit make one id. A lock around it is not enough: Chromium carries
 * one renderer's localStorage write to another renderer asynchronously, so a tab that gets the lock
 * right after another tab wrote its new id can still read none (seen in CI on a loaded machine; the
 * Chromium test reproduces it with a tab writing megabytes to localStorage just before). Lock names
 * are different: the browser's lock manager holds them, the same for every renderer at once. So the
 * tab that makes the id takes a lock named after it (`<key>:<id>`, granted before the creation lock
 * is released, held for ID_LOCK_MS) and the creation path reads those names (`navigator.locks.query()`) when
 * localStorage shows no id. Without `locks` (no Web Locks, or an id that is not shared: api.ts)
 * `make` runs at once.
 */
export async function oneDeviceId(key: string, shared: SyncStore, make: () => string, locks: LockManager | undefined): Promise<void> {
  const named = `${key}:`;
  await (locks
    ? locks.request(key, async () => {
        // 0: the id is known; undefined: no tab holds a new one (this tab makes it).
        const held = shared.get(key) ? 0 : (await locks.query()).held!.find((l) => l.name!.startsWith(named));
        if (held) shared.set(key, held.name!.slice(named.length));
        const id = make();
        // Only the tab that made the id holds its lock, granted before the creation lock goes, for
        // ID_LOCK_MS (the localStorage write has reached every renderer by then): Chromium evicts a
        // page holding a Web Lock from the back/forward cache once another page of its origin opens.
        await (held ??
          new Promise(
            (granted) => void locks.request(named + id, { ifAvailable: true }, (l) => (granted(l), l && new Promise((r) => setTimeout(r, ID_LOCK_MS)))),
          ));
      })
    : void make());
}
