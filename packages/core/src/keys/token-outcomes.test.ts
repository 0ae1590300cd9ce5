import { UserTokenOutcomeTracker, createInMemoryUserTokenCountStore, zeroOutcomeCounts } from './token-outcomes';
import type { UserTokenCount, UserTokenCountStore } from '../ports/user-token-counts';

const T0 = Date.UTC(2026, 10, 28, 17, 0, 0);

/** A store whose adds fail while `down` is set, and which keeps every batch it was given. */
function flakyStore() {
  const inner = createInMemoryUserTokenCountStore();
  const batches: UserTokenCount[][] = [];
  const state = { down: false };
  const store: UserTokenCountStore = {
    async add(counts) {
      if (state.down) throw new Error('store down');
      batches.push(counts.map((c) => ({ ...c })));
      await inner.add(counts);
    },
    lastHour: (app, now) => inner.lastHour(app, now),
    close: async () => {},
  };
  return { store, batches, state };
}

describe('UserTokenOutcomeTracker', () => {
  it('adds one count per (app, minute, outcome) per flush, whatever the number of calls', async () => {
    const { store, batches } = flakyStore();
    let now = T0 + 1_000;
    const tracker = new UserTokenOutcomeTracker({ store, now: () => now, flushMs: 60_000 });
    for (let i = 0; i < 3; i++) tracker.record('app-a', 'valid');
    tracker.record('app-a', 'required');
    tracker.record('app-a', 'required');
    now = T0 + 61_000;
    tracker.record('app-a', 'expired');
    tracker.record('app-b', 'valid');
    // Seen at once by this replica, before any flush.
    expect(await tracker.lastHour('app-a')).toEqual({ ...zeroOutcomeCounts(), valid: 3, required: 2, expired: 1 });
    await tracker.flush();
    expect(batches).toEqual([
      [
        { appId: 'app-a', outcome: 'valid', minute: T0, count: 3 },
        { appId: 'app-a', outcome: 'required', minute: T0, count: 2 },
        { appId: 'app-a', outcome: 'expired', minute: T0 + 60_000, count: 1 },
        { appId: 'app-b', outcome: 'valid', minute: T0 + 60_000, count: 1 },
      ],
    ]);
    expect(await tracker.lastHour('app-a')).toEqual({ ...zeroOutcomeCounts(), valid: 3, required: 2, expired: 1 });
  });

  it('keeps the counts of a failed flush for the next one and reports the failure; minutes out of the hour are dropped', async () => {
    const { store, batches, state } = flakyStore();
    const errors: unknown[] = [];
    let now = T0;
    const tracker = new UserTokenOutcomeTracker({ store, now: () => now, flushMs: 60_000, onFlushError: (e) => errors.push(e) });
    tracker.record('app-a', 'mismatch');
    state.down = true;
    await tracker.flush();
    expect(errors).toHaveLength(1);
    now = T0 + 30 * 60_000;
    tracker.record('app-a', 'mismatch');
    await tracker.flush();
    expect(errors).toHaveLength(2);
    state.down = false;
    await tracker.flush();
    expect(batches).toEqual([
      [
        { appId: 'app-a', outcome: 'mismatch', minute: T0, count: 1 },
        { appId: 'app-a', outcome: 'mismatch', minute: T0 + 30 * 60_000, count: 1 },
      ],
    ]);
    // A flush failing after a held minute left the hour keeps only the newer minute.
    state.down = true;
    tracker.record('app-a', 'invalid');
    now = T0 + 90 * 60_000;
    tracker.record('app-a', 'invalid');
    await tracker.flush();
    state.down = false;
    await tracker.flush();
    expect(batches[1]).toEqual([{ appId: 'app-a', outcome: 'invalid', minute: T0 + 90 * 60_000, count: 1 }]);
  });

  it('never makes a caller wait or fail: record returns at once while the store hangs', async () => {
    const store: UserTokenCountStore = { add: () => new Promise(() => {}), lastHour: async () => zeroOutcomeCounts(), close: async () => {} };
    const tracker = new UserTokenOutcomeTracker({ store, flushMs: 1 });
    expect(() => tracker.record('app-a', 'valid')).not.toThrow();
    void tracker.flush();
    expect(() => tracker.record('app-a', 'valid')).not.toThrow();
  });
});
