/// <reference lib="dom" />
import type { SyncStore } from '../core/ports';

/**
 * Runs `make` (which reads the device id at `key` of `shared`, or makes and stores one, and answers
 * it) so that the tabs of a first visit make one id. A lock around it is not enough: Chromium carries
 * one renderer's localStorage write to another renderer asynchronously, so a tab that gets the lock
 * right after another tab wrote its new id can still read none (seen in CI on a loaded machine; the
 * Chromium test reproduces it with a tab writing megabytes to localStorage just before). Lock names
 * are different: the browser's lock manager holds them, the same for every renderer at once. So the
 * tab takes a lock named after its id (`<key>:<id>`, granted before the creation lock is released,
 * held until the page goes) and the creation path reads those names (`navigator.locks.query()`) when
 * localStorage shows no id. Without `locks` (no Web Locks, or an id that is not shared: api.ts)
 * `make` runs at once.
 */
export async function oneDeviceId(key: string, shared: SyncStore, make: () => string, locks: LockManager | undefined): Promise<void> {
  const named = `${key}:`;
  await (locks
    ? locks.request(key, async () => {
        const held = shared.get(key) ? undefined : (await locks.query()).held!.find((l) => l.name!.startsWith(named));
        if (held) shared.set(key, held.name!.slice(named.length));
        const id = make();
        // Granted (or refused: another tab holds the same id's lock, which keeps it visible) before the creation lock goes.
        await new Promise((granted) => void locks.request(named + id, { ifAvailable: true }, (l) => (granted(l), l && new Promise(() => undefined))));
      })
    : void make());
}
