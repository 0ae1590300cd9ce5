import { zeroOutcomeCounts, type UserTokenCountStore } from '@evp/core';

const MINUTE = 60_000;

/**
 * One suite for every UserTokenCountStore adapter. `make` gives a store on a fresh key space; `peer`
 * a second handle on the same space, as another replica's. Minutes are real recent ones: a store may
 * forget (expire) what is older than the hour.
 */
export function describeUserTokenCountStoreConformance(name: string, make: () => Promise<{ store: UserTokenCountStore; peer: UserTokenCountStore }>) {
  describe(`UserTokenCountStore conformance: ${name}`, () => {
    const now = Math.floor(Date.now() / MINUTE) * MINUTE + 30_000;
    const minute = now - 30_000;
    const counts = (c: Partial<ReturnType<typeof zeroOutcomeCounts>>) => ({ ...zeroOutcomeCounts(), ...c });

    it('answers zero for every outcome of an app with no count', async () => {
      const { store } = await make();
      expect(await store.lastHour('app-none', now)).toEqual(counts({}));
    });

    it('adds counts per app and outcome across minutes and writes', async () => {
      const { store } = await make();
      await store.add([
        { appId: 'app-a', outcome: 'valid', minute, count: 3 },
        { appId: 'app-a', outcome: 'required', minute: minute - 10 * MINUTE, count: 2 },
        { appId: 'app-b', outcome: 'expired', minute, count: 7 },
      ]);
      await store.add([
        { appId: 'app-a', outcome: 'valid', minute: minute - 59 * MINUTE, count: 1 },
        { appId: 'app-a', outcome: 'expired', minute, count: 1 },
      ]);
      expect(await store.lastHour('app-a', now)).toEqual(counts({ valid: 4, required: 2, expired: 1 }));
      expect(await store.lastHour('app-b', now)).toEqual(counts({ expired: 7 }));
    });

    it('sums the current minute and the 59 before it: an older minute is out of the hour', async () => {
      const { store } = await make();
      await store.add([
        { appId: 'app-h', outcome: 'mismatch', minute: minute - 60 * MINUTE, count: 5 },
        { appId: 'app-h', outcome: 'mismatch', minute: minute - 59 * MINUTE, count: 1 },
        { appId: 'app-h', outcome: 'anonymous', minute, count: 2 },
      ]);
      expect(await store.lastHour('app-h', now)).toEqual(counts({ mismatch: 1, anonymous: 2 }));
      // A minute later the oldest of those minutes has left the hour too.
      expect(await store.lastHour('app-h', now + MINUTE)).toEqual(counts({ anonymous: 2 }));
    });

    it('shares counts between replicas: concurrent adds are summed, each reads the same', async () => {
      const { store, peer } = await make();
      await Promise.all([
        store.add([{ appId: 'app-r', outcome: 'invalid', minute, count: 2 }]),
        peer.add([
          { appId: 'app-r', outcome: 'invalid', minute, count: 3 },
          { appId: 'app-r', outcome: 'valid', minute, count: 1 },
        ]),
      ]);
      const seen = await peer.lastHour('app-r', now);
      expect(seen).toEqual(counts({ invalid: 5, valid: 1 }));
      expect(await store.lastHour('app-r', now)).toEqual(seen);
    });
  });
}
