import type { KeyUsageStore } from '@evp/core';

/**
 * One suite for every KeyUsageStore adapter. `make` gives a store on a fresh key space; `peer`
 * (optional) a second handle on the same space, as another replica's.
 */
export function describeKeyUsageStoreConformance(name: string, make: () => Promise<{ store: KeyUsageStore; peer: KeyUsageStore }>) {
  describe(`KeyUsageStore conformance: ${name}`, () => {
    it('answers nothing for an app with no recorded use', async () => {
      const { store } = await make();
      expect([...(await store.lastUsed('app-none'))]).toEqual([]);
    });

    it('keeps the latest instant per key of each app, whatever the order of writes', async () => {
      const { store } = await make();
      await store.record([
        { appId: 'app-a', keyId: 'sdk-1', at: 1_700_000_000_500 },
        { appId: 'app-a', keyId: 'api-1', at: 1_700_000_000_100 },
        { appId: 'app-b', keyId: 'sdk-1', at: 1_700_000_000_900 },
      ]);
      await store.record([
        { appId: 'app-a', keyId: 'sdk-1', at: 1_700_000_000_400 },
        { appId: 'app-a', keyId: 'api-1', at: 1_700_000_000_200 },
      ]);
      expect([...(await store.lastUsed('app-a'))].sort()).toEqual([
        ['api-1', 1_700_000_000_200],
        ['sdk-1', 1_700_000_000_500],
      ]);
      expect([...(await store.lastUsed('app-b'))]).toEqual([['sdk-1', 1_700_000_000_900]]);
    });

    it('shares uses between replicas: each one reads what the other recorded', async () => {
      const { store, peer } = await make();
      await Promise.all([
        store.record([{ appId: 'app-r', keyId: 'k1', at: 1_700_000_001_000 }]),
        peer.record([
          { appId: 'app-r', keyId: 'k1', at: 1_700_000_000_999 },
          { appId: 'app-r', keyId: 'k2', at: 1_700_000_002_000 },
        ]),
      ]);
      const seen = [...(await peer.lastUsed('app-r'))].sort();
      expect(seen).toEqual([
        ['k1', 1_700_000_001_000],
        ['k2', 1_700_000_002_000],
      ]);
      expect([...(await store.lastUsed('app-r'))].sort()).toEqual(seen);
    });
  });
}
